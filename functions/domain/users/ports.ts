/**
 * What the users and import use cases need from storage. Storage reports a failed write as the
 * list of entities whose condition failed, so the domain can word the reference's messages.
 */
import type { AccountWrites, WebauthnWrites } from './companions.js';
import type { SearchField, UserRecord } from './model.js';

/** One thing a user write touches; a failed conditional write is reported as its entity. */
export type WriteEntity =
  | { readonly kind: 'user'; readonly userId: string }
  | {
      readonly kind: 'uniqueEmail';
      readonly recipeId: 'emailpassword' | 'passwordless' | 'webauthn';
      readonly email: string;
    }
  | { readonly kind: 'uniquePhone'; readonly phoneNumber: string }
  | { readonly kind: 'uniqueThirdParty'; readonly thirdPartyId: string; readonly thirdPartyUserId: string }
  /** An account info reserved by (or, for a check, belonging to) a primary user in a shared tenant. */
  | { readonly kind: 'primaryAccountInfo' }
  | { readonly kind: 'externalId'; readonly externalUserId: string }
  | { readonly kind: 'externalIdIsUserId'; readonly externalUserId: string }
  | { readonly kind: 'role'; readonly role: string }
  | { readonly kind: 'metadata' }
  | { readonly kind: 'totpDevice'; readonly deviceName: string }
  /** A staged row the write was to delete (see {@link CompanionWrites}) is no longer PROCESSING. */
  | { readonly kind: 'stagedRow'; readonly id: string }
  /** The one-time token the write consumes (see {@link CompanionWrites}) is gone: used or revoked. */
  | { readonly kind: 'oneTimeToken' }
  /** A verified-email item is not in the state the write was decided on. */
  | { readonly kind: 'verifiedEmail' }
  /** A write that checked "the app has no primary user" met one: its users are checked one by one. */
  | { readonly kind: 'primaryGuard' }
  /**
   * A passkey the write registers is registered already, or one it removes is no longer there
   * (see {@link CompanionWrites}).
   */
  | { readonly kind: 'webauthnCredential' }
  | { readonly kind: 'internal' };

/** An account info of a non-primary login method that no primary user may hold in that tenant. */
export interface PrimaryFreeCheck {
  readonly tenantId: string;
  readonly email?: string;
  readonly phoneNumber?: string;
}

interface TotpDeviceInput {
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
  /**
   * Login methods this write moves out of "pending the password-migration hook" because the hook
   * said the password matched: counted as migrated (docs/password-migration-hook.md "Readiness").
   */
  readonly passwordsMigratedByHook?: number;
}

/**
 * Writes of other stores that must commit in the same transaction as a user write, stated as
 * intent: storage composes the items.
 */
export interface CompanionWrites {
  /**
   * Staged rows (still PROCESSING) whose users this write imports: each is deleted with its
   * counter share, and the whole write fails (`stagedRow`) if one is no longer PROCESSING.
   */
  readonly importedStagedRows?: readonly string[];
  /** Token consumption and verified-email items (password reset, email verification). */
  readonly account?: AccountWrites;
  /** A passkey registered or removed with the login method that lists it (docs/passkeys.md). */
  readonly webauthn?: WebauthnWrites;
}

/**
 * One atomic write of one app's users being put together (one DynamoDB transaction). It is built
 * once, as plans are added; its size is read from it before it is committed.
 */
export interface UserWrite {
  /** DynamoDB actions the write needs (at most {@link MAX_ACTIONS_PER_WRITE} can commit). */
  readonly actionCount: number;
  /**
   * Adds a plan with its companion writes. With `limit`, a plan that would take the write above
   * `limit` actions is not added (false) and the write is left as it was.
   */
  add(plan: UserWritePlan, companions?: CompanionWrites, limit?: number): boolean;
}

export type WriteResult =
  | { readonly ok: true }
  /**
   * Conditions failed, nothing was written: the entities, in action order (one per failing
   * action), and per entity the index of the plan it belongs to (undefined for shared writes).
   * A key two plans of one write both need fails the write the same way, before writing.
   */
  | {
      readonly ok: false;
      readonly failed: readonly WriteEntity[];
      readonly plans?: readonly (number | undefined)[];
    };

/** DynamoDB's TransactWriteItems limit. */
export const MAX_ACTIONS_PER_WRITE = 100;

export interface AccountInfoQuery {
  readonly email?: string;
  readonly phoneNumber?: string;
  readonly thirdParty?: { readonly id: string; readonly userId: string };
  /** A passkey's id: its user, in whatever tenant (the reference looks passkeys up app-wide). */
  readonly webauthnCredentialId?: string;
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

/**
 * An account info in one tenant, as a primary user reserves it (every account info of every login
 * method of a primary user, in every tenant of that user).
 */
export type TenantAccountInfo =
  | { readonly tenantId: string; readonly email: string }
  | { readonly tenantId: string; readonly phoneNumber: string }
  | { readonly tenantId: string; readonly thirdParty: { readonly id: string; readonly userId: string } };

export interface UserIdMapping {
  readonly superTokensUserId: string;
  readonly externalUserId: string;
  readonly externalUserIdInfo?: string;
}

/** Where a page of the pending list ended (docs/password-migration-hook.md "Readiness"). */
export interface PendingPasswordPosition {
  readonly shard: number;
  readonly sortKey: string;
}

export interface PendingPasswordPage {
  readonly users: { userId: string; email: string; timeJoined: number }[];
  /** Set when more may follow. */
  readonly next?: PendingPasswordPosition;
}

/**
 * What may be kept under a user id apart from a user, by the name of the reference's recipe (its
 * messages say `UserId is already in use in <kind> recipe`), in the reference's order of checks.
 */
export type UserIdDataKind = 'Session' | 'UserMetadata' | 'UserRoles' | 'EmailVerification' | 'TOTP';

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
  /**
   * The primary user holding each account info in its tenant (its reservation), in the order
   * given; undefined where no primary user holds it. Consistent reads.
   */
  primaryUsersHolding(appId: string, infos: readonly TenantAccountInfo[]): Promise<(string | undefined)[]>;
  /** A page of a tenant's users by time joined; `next` is set when more users follow. */
  listUsers(
    appId: string,
    tenantId: string,
    query: ListUsersQuery,
  ): Promise<{ users: UserRecord[]; next?: UserPosition }>;
  /**
   * Users having a login method in the tenant whose `field` value starts with one of `terms`
   * (lower-cased; an email's domain counts too, docs/users.md "Searching users"): candidates read
   * from the field's search index, at most `limit` of them, in no particular order. An eventually
   * consistent index may still list a changed login method: the caller checks the users.
   */
  searchUsers(
    appId: string,
    tenantId: string,
    query: { readonly field: SearchField; readonly terms: readonly string[]; readonly limit: number },
  ): Promise<UserRecord[]>;
  /** Exact count (O(shards) reads) of users with a recipe mask in `masks`, in a tenant or the whole app. */
  countUsers(appId: string, tenantId: string | undefined, masks: readonly number[]): Promise<number>;
  /**
   * Replaces the password hash of `user`'s login method `recipeUserId` with `replacement`, only
   * if the stored hash is still the one `user` was read with (one conditional write: the hash is
   * stored once, in the user's own item). False, with nothing written, when it changed meanwhile.
   */
  replacePasswordHash(appId: string, user: UserRecord, recipeUserId: string, replacement: string): Promise<boolean>;
  /** Login methods pending the password-migration hook, and those it migrated (counters, not a scan). */
  passwordMigrationCounts(appId: string): Promise<{ pending: number; migrated: number }>;
  /** A page of the login methods pending the password-migration hook. */
  listPasswordPending(
    appId: string,
    limit: number,
    after: PendingPasswordPosition | undefined,
  ): Promise<PendingPasswordPage>;
  /**
   * Starts a write of this app's users. `primaryChecks: 'guard'` (only as {@link primaryCheckMode}
   * allows, and only for plans creating no primary user): the plans' primary checks become one
   * check that the app still has no primary user, failing the write (`primaryGuard`) if it has one.
   */
  newWrite(appId: string, options?: { readonly primaryChecks?: 'each' | 'guard' }): UserWrite;
  /**
   * Whether this app's imports may fold their primary checks into one (`guard`: the app has had
   * no primary user since it was known to have none) or must check each account info (`each`).
   */
  primaryCheckMode(appId: string): Promise<'guard' | 'each'>;
  /**
   * Commits a write built by {@link newWrite}. Transient failures (conflicts, throttling) are
   * retried by storage; when they persist, it throws (nothing was written).
   */
  commit(write: UserWrite): Promise<WriteResult>;
  /**
   * What committing these writes one after another would answer, found by reading alone (nothing
   * is written): each write sees the items of the writes before it that would have committed.
   * Only writes that create users under fresh ids (imports) can be previewed: the items keyed by
   * those ids are taken to be new, and metadata merges are not checked. The writes are taken one
   * by one and not kept (give a generator that builds them: a large preview then holds only what
   * each write checks).
   */
  previewCommits(writes: Iterable<UserWrite>): Promise<WriteResult[]>;
  /**
   * What is kept under this user id (sessions not expired at `now`, metadata, roles, email
   * verification tokens and verified emails, TOTP devices), in the order of {@link UserIdDataKind}.
   */
  userIdDataKinds(appId: string, userId: string, now: number): Promise<UserIdDataKind[]>;
  /**
   * Deletes what is kept under a user id for one tenant (its role assignments, email-verification
   * tokens, TOTP attempt records and sessions there) when the user leaves the tenant; true when
   * there was any.
   */
  purgeUserIdTenantData(appId: string, userId: string, tenantId: string): Promise<boolean>;
  /** Deletes roles, metadata and TOTP devices stored under these user ids (after a user removal). */
  purgeUserIdData(appId: string, userIds: readonly string[]): Promise<void>;
}
