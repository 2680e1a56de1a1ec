/**
 * What the users and import use cases need from storage. Storage reports a failed write as the
 * list of entities whose condition failed, so the domain can word the reference's messages.
 */
import type { UserRecord } from './model.js';

/** One thing a user write touches; a failed conditional write is reported as its entity. */
export type WriteEntity =
  | { readonly kind: 'user'; readonly userId: string }
  | { readonly kind: 'uniqueEmail'; readonly recipeId: 'emailpassword' | 'passwordless'; readonly email: string }
  | { readonly kind: 'uniquePhone'; readonly phoneNumber: string }
  | { readonly kind: 'uniqueThirdParty'; readonly thirdPartyId: string; readonly thirdPartyUserId: string }
  /** An account info reserved by (or, for a check, belonging to) a primary user in a shared tenant. */
  | { readonly kind: 'primaryAccountInfo' }
  | { readonly kind: 'externalId'; readonly externalUserId: string }
  | { readonly kind: 'externalIdIsUserId'; readonly externalUserId: string }
  | { readonly kind: 'role'; readonly role: string }
  | { readonly kind: 'metadata' }
  | { readonly kind: 'totpDevice'; readonly deviceName: string }
  | { readonly kind: 'extra'; readonly index: number }
  | { readonly kind: 'internal' };

/** An account info of a non-primary login method that no primary user may hold in that tenant. */
export interface PrimaryFreeCheck {
  readonly tenantId: string;
  readonly email?: string;
  readonly phoneNumber?: string;
}

export interface TotpDeviceInput {
  readonly deviceName: string;
  readonly secretKey: string;
  readonly period: number;
  readonly skew: number;
}

/** Everything one atomic user write does (one DynamoDB transaction). */
export interface UserWritePlan {
  /** Users created (no `before`), rewritten (both) or deleted (no `after`). */
  readonly changes: readonly { readonly before?: UserRecord; readonly after?: UserRecord }[];
  readonly primaryFreeChecks?: readonly PrimaryFreeCheck[];
  /** External ids that must not be SuperTokens user ids (E030). */
  readonly externalIdsNotUserIds?: readonly string[];
  /** Role assignments; each role must exist (ConditionCheck). */
  readonly roles?: { readonly userId: string; readonly assignments: readonly { role: string; tenantId: string }[] };
  /** Shallow-merged into the metadata of `userId`. */
  readonly metadata?: { readonly userId: string; readonly update: Record<string, unknown> };
  readonly totpDevices?: { readonly userId: string; readonly devices: readonly TotpDeviceInput[] };
  /** Caller-supplied writes (storage items, opaque to the domain), e.g. the worker's staged-row delete. */
  readonly extra?: readonly object[];
}

export type WriteResult =
  | { readonly ok: true }
  /**
   * Conditions failed: the entities, in action order (one per failing action), and for a group
   * write, per entity the index of the plan it belongs to (undefined for shared and extra writes).
   */
  | {
      readonly ok: false;
      readonly retryable: false;
      readonly failed: readonly WriteEntity[];
      readonly plans?: readonly (number | undefined)[];
    }
  /** TransactionConflict / throttling: nothing was written; try again. */
  | { readonly ok: false; readonly retryable: true };

/** DynamoDB's TransactWriteItems limit. */
export const MAX_ACTIONS_PER_WRITE = 100;

export interface AccountInfoQuery {
  readonly email?: string;
  readonly phoneNumber?: string;
  readonly thirdParty?: { readonly id: string; readonly userId: string };
}

/** A user's place in the time-joined order (ties broken by user id). */
export interface UserPosition {
  readonly timeJoined: number;
  readonly userId: string;
}

export interface ListUsersQuery {
  readonly order: 'ASC' | 'DESC';
  readonly limit: number;
  /** The last user of the previous page; the page starts right after it. */
  readonly after?: UserPosition;
  /** Only users having a login method of one of these recipe-combination masks. */
  readonly masks?: readonly number[];
}

export interface UserIdMapping {
  readonly superTokensUserId: string;
  readonly externalUserId: string;
  readonly externalUserIdInfo?: string;
}

export interface UserStore {
  /** The user owning this SuperTokens id (user id or linked recipe user id), consistent read. */
  getUserBySuperTokensId(appId: string, superTokensId: string): Promise<UserRecord | undefined>;
  getMappingByExternalId(appId: string, externalUserId: string): Promise<UserIdMapping | undefined>;
  /** The emailpassword login method of this email in this tenant, with its user. */
  getEmailPasswordUser(
    appId: string,
    tenantId: string,
    email: string,
  ): Promise<{ user: UserRecord; recipeUserId: string } | undefined>;
  /** Users having a login method with this account info in this tenant (one list per info given). */
  usersByAccountInfo(appId: string, tenantId: string, query: AccountInfoQuery): Promise<UserRecord[][]>;
  /** A page of a tenant's users by time joined; `next` is set when more users follow. */
  listUsers(
    appId: string,
    tenantId: string,
    query: ListUsersQuery,
  ): Promise<{ users: UserRecord[]; next?: UserPosition }>;
  /** Exact count (O(shards) reads) of users with a recipe mask in `masks`, in a tenant or the whole app. */
  countUsers(appId: string, tenantId: string | undefined, masks: readonly number[]): Promise<number>;
  /** How many DynamoDB actions a plan needs (refuse before hashing when above the limit). */
  countActions(appId: string, plan: UserWritePlan): number;
  write(appId: string, plan: UserWritePlan): Promise<WriteResult>;
  /** {@link countActions} of several plans written together (with `extra` writes of the group). */
  countGroupActions(appId: string, plans: readonly UserWritePlan[], extra?: readonly object[]): number;
  /**
   * Several plans (and `extra`, e.g. the bulk worker's staged-row deletions) in ONE transaction,
   * sharing one update per counter item. Extra writes are reported by index over the plans'
   * `extra` lists followed by `extra`. A key two plans both need fails the group (as a duplicate).
   */
  writeGroup(appId: string, plans: readonly UserWritePlan[], extra?: readonly object[]): Promise<WriteResult>;
  /** Deletes roles, metadata and TOTP devices stored under these user ids (after a user removal). */
  purgeUserIdData(appId: string, userIds: readonly string[]): Promise<void>;
}
