/**
 * THE import function (docs/import-pipeline.md "The import of one user"): turns one validated, normalised import user into the
 * core's users in ONE atomic write. Used by `POST /bulk-import/import` and by the import worker, so
 * both behave identically (docs/import-pipeline.md, invariant 4).
 *
 * Steps: feature checks (E019, E037) → user records (linked under the primary when a login method
 * is `isPrimary`, else one standalone recipe user per login method; time joined of a linked group =
 * its minimum) → size check (≤ 100 DynamoDB actions) → password hashing (before the transaction) →
 * one transaction with the users, account-info reservations, external-id mapping, email
 * verification state, TOTP devices, metadata merge, role assignments (each role must exist) and
 * the caller's companion writes. Condition failures map to the reference's E0xx messages.
 */

import { hashPassword } from '#functions/domain/passwords/hash.js';
import { assignTotpDeviceNames } from '#functions/domain/totp/names.js';
import { type LoginMethodRecord, toUserJson, type UserJson, type UserRecord } from '#functions/domain/users/model.js';
import {
  type CompanionWrites,
  MAX_ACTIONS_PER_WRITE,
  type PrimaryFreeCheck,
  type UserStore,
  type UserWrite,
  type UserWritePlan,
  type WriteEntity,
  type WriteResult,
} from '#functions/domain/users/ports.js';
import { TransientWriteError } from '#functions/domain/users/write.js';
import { checkTimeLeft } from '#functions/shared/call-budget.js';
import { READ_AGAIN, type RereadPolicy, reread } from '#functions/shared/rereads.js';
import type { ImportLoginMethod, ImportUser } from './types.js';

/** The parts of the app's effective configuration an import depends on. */
export interface ImportConfig {
  readonly passwordHashingAlg: 'BCRYPT' | 'ARGON2';
  readonly bcryptLogRounds: number;
  readonly argon2: { readonly iterations: number; readonly memoryKb: number; readonly parallelism: number };
  readonly accountLinkingEnabled: boolean;
  readonly mfaEnabled: boolean;
}

export interface ImportDeps {
  readonly store: UserStore;
  /** Defaults to the passwords module; tests may inject a cheaper one. */
  readonly hashPassword?: (plain: string, config: ImportConfig) => Promise<string>;
}

export interface ImportRequest {
  readonly appId: string;
  readonly user: ImportUser;
  readonly config: ImportConfig;
  /**
   * Writes of other stores that must commit atomically with the user, e.g. the import worker's
   * "delete my staged row". A staged row that fails is reported by its index in
   * `importedStagedRows`.
   */
  readonly companions?: CompanionWrites;
  /**
   * Hashes already computed for this user's plain-text passwords, by login method (superTokensUserId),
   * e.g. by {@link importUserGroup} before it handed the user back: never hash twice.
   */
  readonly hashes?: ReadonlyMap<string, string>;
}

export type ImportOutcome =
  | { readonly kind: 'imported'; readonly user: UserJson }
  /**
   * The user with this staged id already exists: an earlier delivery (or an earlier attempt whose
   * answer was lost) imported it. Nothing was written now.
   */
  | { readonly kind: 'already-imported'; readonly userId: string }
  /** A domain failure (the reference's messages, one per failing entity); nothing was written. */
  | { readonly kind: 'failed'; readonly errors: readonly string[]; readonly extraWriteIndexes: readonly number[] }
  /** Only companion writes failed their conditions (by index); nothing was written. */
  | { readonly kind: 'extra-write-failed'; readonly extraWriteIndexes: readonly number[] };

const IMPORT_MESSAGES = {
  accountLinkingDisabled:
    'E019: Account linking feature is not enabled for this app. Please contact support to enable it.',
  mfaDisabled: 'E037: MFA must be enabled to import totp devices.',
  conflictingAccountInfo: 'E027: there is a conflicting account info',
  externalIdIsUserId: 'E030: Cannot create a userId mapping where the externalId is also a SuperTokens userID',
  roleMissing: 'E034: Role does not exist! You need to pre-create the role before assigning it to the user.',
  metadataBusy: 'the user metadata kept changing during the import; try again',
} as const;

export const tooLargeMessage = (actions: number) =>
  `This user needs ${actions} storage operations but at most ${MAX_ACTIONS_PER_WRITE} fit in one atomic import. ` +
  'Reduce the number of login methods × tenants, role × tenant assignments or TOTP devices.';

/** The messages of a failed write: one per failing entity that has one, in action order, without repeats. */
export const failureMessages = (failed: readonly WriteEntity[]): string[] => [
  ...new Set(failed.flatMap((e) => messageFor(e) ?? [])),
];

/** Maps a failed condition to the reference's message; undefined for non-domain entities. */
export function messageFor(entity: WriteEntity): string | undefined {
  switch (entity.kind) {
    case 'uniqueEmail':
      return entity.recipeId === 'emailpassword'
        ? `E003: A user with email ${entity.email} already exists in emailpassword loginMethod.`
        : `E006: A user with email ${entity.email} already exists in passwordless loginMethod.`;
    case 'uniqueThirdParty':
      return `E005: A user with thirdPartyId ${entity.thirdPartyId} and thirdPartyUserId ${entity.thirdPartyUserId} already exists in thirdparty loginMethod.`;
    case 'uniquePhone':
      return `E007: A user with phoneNumber ${entity.phoneNumber} already exists in passwordless loginMethod.`;
    case 'primaryAccountInfo':
      return IMPORT_MESSAGES.conflictingAccountInfo;
    case 'externalId':
      return `E031: A user with externalId ${entity.externalUserId} already exists`;
    case 'externalIdIsUserId':
      return IMPORT_MESSAGES.externalIdIsUserId;
    case 'role':
      return IMPORT_MESSAGES.roleMissing;
    case 'totpDevice':
      return `E036: A TOTP device named ${entity.deviceName} already exists for this user.`;
    default:
      return undefined;
  }
}

function loginMethodRecord(lm: ImportLoginMethod): LoginMethodRecord {
  const base = {
    recipeId: lm.recipeId,
    recipeUserId: lm.superTokensUserId,
    tenantIds: [...lm.tenantIds],
    timeJoined: lm.timeJoinedInMSSinceEpoch,
    verified: lm.isVerified,
  };
  switch (lm.recipeId) {
    case 'emailpassword':
      return {
        ...base,
        email: lm.email,
        ...(lm.passwordHash !== undefined ? { passwordHash: lm.passwordHash } : {}),
        ...(lm.passwordMigration !== undefined ? { passwordMigration: lm.passwordMigration } : {}),
      };
    case 'thirdparty':
      return { ...base, email: lm.email, thirdPartyId: lm.thirdPartyId, thirdPartyUserId: lm.thirdPartyUserId };
    case 'passwordless':
      return {
        ...base,
        ...(lm.email !== undefined ? { email: lm.email } : {}),
        ...(lm.phoneNumber !== undefined ? { phoneNumber: lm.phoneNumber } : {}),
      };
  }
}

/** The user records an import creates (login methods linked or not, time joined), without password hashes yet. */
export function importRecords(user: ImportUser): UserRecord[] {
  const linked = user.loginMethods.some((lm) => lm.isPrimary);
  const groups = linked ? [user.loginMethods] : user.loginMethods.map((lm) => [lm]);
  return groups.map((methods) => {
    const first = methods.find((lm) => lm.isPrimary) ?? (methods[0] as ImportLoginMethod);
    const userId = linked ? user.id : first.superTokensUserId;
    return {
      userId,
      isPrimaryUser: linked,
      // Time-joined normalisation: a linked group joins when its oldest login method did.
      timeJoined: Math.min(...methods.map((lm) => lm.timeJoinedInMSSinceEpoch)),
      loginMethods: methods.map(loginMethodRecord),
      externalIds:
        user.externalUserId !== undefined && userId === user.id
          ? { [userId]: { externalUserId: user.externalUserId } }
          : {},
      version: 1,
    };
  });
}

/** The whole atomic write of one import user (records must already carry their password hashes). */
export function importPlan(user: ImportUser, records: readonly UserRecord[]): UserWritePlan {
  const dataUserId = user.externalUserId ?? user.id;
  const primaryFreeChecks: PrimaryFreeCheck[] = records
    .filter((r) => !r.isPrimaryUser)
    .flatMap((r) =>
      r.loginMethods.flatMap((lm) =>
        lm.tenantIds.flatMap((tenantId) => {
          const checks: PrimaryFreeCheck[] = [];
          if (lm.email !== undefined) checks.push({ tenantId, email: lm.email });
          if (lm.phoneNumber !== undefined) checks.push({ tenantId, phoneNumber: lm.phoneNumber });
          return checks;
        }),
      ),
    );
  const assignments = user.userRoles.flatMap((r) => r.tenantIds.map((tenantId) => ({ role: r.role, tenantId })));
  return {
    changes: records.map((after) => ({ after })),
    primaryFreeChecks,
    ...(user.externalUserId !== undefined ? { externalIdsNotUserIds: [user.externalUserId] } : {}),
    ...(assignments.length > 0 ? { roles: { userId: dataUserId, assignments } } : {}),
    ...(user.userMetadata !== undefined ? { metadata: { userId: dataUserId, update: user.userMetadata } } : {}),
    ...(user.totpDevices.length > 0
      ? {
          totpDevices: {
            userId: dataUserId,
            devices: assignTotpDeviceNames(user.totpDevices).map((d) => ({
              deviceName: d.deviceName,
              secretKey: d.secretKey,
              period: d.period,
              skew: d.skew,
            })),
          },
        }
      : {}),
  };
}

const defaultHash = (plain: string, config: ImportConfig) =>
  hashPassword(plain, {
    algorithm: config.passwordHashingAlg,
    bcryptLogRounds: config.bcryptLogRounds,
    argon2: config.argon2,
  });

const failed = (errors: string[], extraWriteIndexes: number[] = []): ImportOutcome => ({
  kind: 'failed',
  errors,
  extraWriteIndexes,
});

/** Group writes tried per group: the first, then again without the users a conflict named. */
const GROUP_ROUNDS = 3;

/** Attempts when only the metadata guard failed (someone else changed that metadata meanwhile). */
const METADATA_REREADS: RereadPolicy = {
  attempts: 3,
  exhausted: IMPORT_MESSAGES.metadataBusy,
  // Nothing was written: the import worker returns the message, a later delivery tries again.
  error: TransientWriteError,
};

/** The feature checks of an import that need no storage (E019, E037); undefined when they pass. */
export function featureFailure(user: ImportUser, config: ImportConfig): ImportOutcome | undefined {
  if (user.loginMethods.some((lm) => lm.isPrimary) && !config.accountLinkingEnabled && !config.mfaEnabled) {
    return failed([IMPORT_MESSAGES.accountLinkingDisabled]);
  }
  if (user.totpDevices.length > 0 && !config.mfaEnabled) return failed([IMPORT_MESSAGES.mfaDisabled]);
  return undefined;
}

/**
 * Hashes the plain-text passwords of `user` not in `known` (CPU-bound: before any transaction,
 * never inside a retry loop); returns every hash by login method.
 */
async function hashesFor(
  deps: ImportDeps,
  user: ImportUser,
  config: ImportConfig,
  known: ReadonlyMap<string, string> = new Map(),
): Promise<Map<string, string>> {
  const hash = deps.hashPassword ?? defaultHash;
  const hashes = new Map<string, string>();
  let hashed = 0;
  for (const lm of user.loginMethods) {
    if (lm.recipeId !== 'emailpassword' || lm.passwordHash !== undefined || lm.plainTextPassword === undefined)
      continue;
    const given = known.get(lm.superTokensUserId);
    if (given === undefined) {
      // A user with many passwords takes seconds of CPU: each one after the first only in time.
      if (hashed++ > 0) checkTimeLeft('hashing the passwords of a user with several');
      hashes.set(lm.superTokensUserId, await hash(lm.plainTextPassword, config));
    } else hashes.set(lm.superTokensUserId, given);
  }
  return hashes;
}

const withHashes = (records: readonly UserRecord[], hashes: ReadonlyMap<string, string>): UserRecord[] =>
  records.map((r) => ({
    ...r,
    loginMethods: r.loginMethods.map((lm) =>
      hashes.has(lm.recipeUserId) ? { ...lm, passwordHash: hashes.get(lm.recipeUserId) as string } : lm,
    ),
  }));

/** A write of one plan with its companions; its action count is read from it. */
function singleWrite(deps: ImportDeps, appId: string, plan: UserWritePlan, companions?: CompanionWrites) {
  const write = deps.store.newWrite(appId);
  write.add(plan, companions);
  return write;
}

/**
 * The refusal of a user whose import from staging could never commit (its write, with the
 * deletion of its staged row, needs more actions than one transaction allows), or undefined: what
 * staging checks before it accepts the user.
 */
export function stagedImportProblem(deps: ImportDeps, appId: string, user: ImportUser): string | undefined {
  // Building the write costs more than validating the user; most users are far below the limit.
  if (importActionsAtMost(user) <= MAX_ACTIONS_PER_WRITE) return undefined;
  const write = singleWrite(deps, appId, importPlan(user, importRecords(user)), { importedStagedRows: [user.id] });
  return write.actionCount > MAX_ACTIONS_PER_WRITE ? tooLargeMessage(write.actionCount) : undefined;
}

/**
 * An upper bound of the actions of a user's import from staging (its write and its staged row's
 * deletion): at most 8 per login method × tenant (the user's items, uniqueness items, primary
 * checks, counters), for a linked user also 3 per login method × tenant of the user (the primary
 * user holds each account info in each of its tenants), 2 per role × tenant and per TOTP device,
 * and 12 besides (external id, metadata, the staged row, …). test/unit/import-size.test.ts checks
 * it against the write itself.
 */
export function importActionsAtMost(user: ImportUser): number {
  let bound = 12 + 2 * user.totpDevices.length;
  const tenants = new Set<string>();
  for (const lm of user.loginMethods) {
    bound += 8 * lm.tenantIds.length;
    for (const tenantId of lm.tenantIds) tenants.add(tenantId);
  }
  if (user.loginMethods.some((lm) => lm.isPrimary)) bound += 3 * user.loginMethods.length * tenants.size;
  for (const role of user.userRoles) bound += 2 * role.tenantIds.length;
  return bound;
}

/**
 * Imports one user atomically. Returns the outcome; throws (nothing written, safe to retry later)
 * when storage kept failing transiently or the user's metadata kept changing under the write.
 */
export async function importUser(deps: ImportDeps, request: ImportRequest): Promise<ImportOutcome> {
  const { user, config, appId, companions } = request;
  const refused = featureFailure(user, config);
  if (refused) return refused;

  // The size check comes before hashing (seconds of CPU for nothing otherwise); hashes do not
  // change the number of actions. Without plain-text passwords this write is the one committed.
  const unhashed = importRecords(user);
  let write = singleWrite(deps, appId, importPlan(user, unhashed), companions);
  if (write.actionCount > MAX_ACTIONS_PER_WRITE) return failed([tooLargeMessage(write.actionCount)]);
  const hashes = await hashesFor(deps, user, config, request.hashes);
  const records = hashes.size > 0 ? withHashes(unhashed, hashes) : unhashed;
  if (hashes.size > 0) write = singleWrite(deps, appId, importPlan(user, records), companions);

  const stagedRows = companions?.importedStagedRows ?? [];
  const ownIds = new Set(records.map((r) => r.userId));
  return reread(METADATA_REREADS, async () => {
    const result = await deps.store.commit(write);
    if (result.ok) {
      const primary = records.find((r) => r.userId === user.id) ?? (records[0] as UserRecord);
      return { kind: 'imported', user: toUserJson(primary) };
    }
    if (result.failed.some((e) => e.kind === 'user' && ownIds.has(e.userId))) {
      return { kind: 'already-imported', userId: user.id };
    }
    const extraWriteIndexes = result.failed.flatMap((e) => (e.kind === 'stagedRow' ? [stagedRows.indexOf(e.id)] : []));
    const errors = failureMessages(result.failed);
    if (errors.length > 0) return failed(errors, extraWriteIndexes);
    if (extraWriteIndexes.length > 0) return { kind: 'extra-write-failed', extraWriteIndexes };
    if (!result.failed.every((e) => e.kind === 'metadata')) {
      throw new Error(`import write failed on ${result.failed.map((e) => e.kind).join(', ')}`);
    }
    // Only the metadata guard failed: the commit re-reads the metadata and merges again.
    return READ_AGAIN;
  });
}

export interface GroupImportRequest {
  readonly appId: string;
  readonly config: ImportConfig;
  readonly users: readonly ImportUser[];
  /**
   * The users come from staged rows (the import worker): each user's PROCESSING row (id = the user's id)
   * is deleted in the same transaction as the user.
   */
  readonly deleteStagedRows: boolean;
}

export interface GroupImportResult {
  /** Users imported now (their staged rows deleted with them). */
  readonly imported: ReadonlySet<string>;
  /** Hashes computed for the plain-text passwords of the others, by login method: pass them to {@link importUser}. */
  readonly hashes: ReadonlyMap<string, string>;
  /**
   * The error a group's write threw, if one did (nothing of that group was written). The caller
   * may hold the group's users back instead of importing them one by one, e.g. when the table is
   * throttling.
   */
  readonly interruptedBy?: unknown;
}

/**
 * The import worker's fast path: imports users TOGETHER, in as few transactions as the action limit
 * allows, each user's items written exactly as {@link importUser} writes them, with one update per
 * counter item per transaction instead of one per user (write units are what an import costs).
 *
 * All or nothing per transaction: when a group cannot commit as a whole (a conflict, two users of
 * the group needing the same key, a row that changed), nothing of it is written; the users the
 * cancellation names leave the group and the rest is tried again (a few rounds). Users not in
 * `imported` are for the caller to import one by one with {@link importUser}, where each gets
 * exactly the outcome it would have had alone. So this function never decides a failure; it only
 * saves writes. A group whose write throws is simply not imported here. While the app has never
 * had a primary user, the users who are not primary check that with one condition per write (the
 * app's primary-users guard) instead of one per account info.
 */
export async function importUserGroup(deps: ImportDeps, request: GroupImportRequest): Promise<GroupImportResult> {
  const { appId, config } = request;
  const imported = new Set<string>();
  const hashes = new Map<string, string>();
  const prepared: { user: ImportUser; plan: UserWritePlan }[] = [];
  for (const user of request.users) {
    if (featureFailure(user, config)) continue;
    const own = await hashesFor(deps, user, config);
    for (const [id, hash] of own) hashes.set(id, hash);
    prepared.push({ user, plan: importPlan(user, withHashes(importRecords(user), own)) });
  }

  // Users who are not primary need "no primary user holds my account infos": while the app has
  // never had a primary user, one check of its primary-users guard per write says it for them all
  // (storage/users/guard.ts) instead of one check per account info. Users who are primary create
  // reservations and set the guard: they are written in writes of their own, checked as always.
  const createsPrimary = (user: ImportUser) => user.loginMethods.some((lm) => lm.isPrimary);
  const needsChecks = prepared.some((p) => !createsPrimary(p.user) && (p.plan.primaryFreeChecks ?? []).length > 0);
  const guarded = needsChecks && (await deps.store.primaryCheckMode(appId)) === 'guard';
  type Mode = 'each' | 'guard';
  const modeOf = (user: ImportUser): Mode => (guarded && !createsPrimary(user) ? 'guard' : 'each');
  const writeOf = (mode: Mode) => deps.store.newWrite(appId, mode === 'guard' ? { primaryChecks: 'guard' } : undefined);

  // Greedy packing under the action limit: each write is built once, plan by plan, and a plan
  // that would not fit starts the next one (a user too large even alone is left to importUser,
  // which reports it).
  const companionsOf = (user: ImportUser): CompanionWrites | undefined =>
    request.deleteStagedRows ? { importedStagedRows: [user.id] } : undefined;
  type Group = { entries: typeof prepared; write: UserWrite; mode: Mode };
  const groups: Group[] = [];
  const current = new Map<Mode, Group | undefined>();
  for (const entry of prepared) {
    const mode = modeOf(entry.user);
    const open = current.get(mode);
    if (open?.write.add(entry.plan, companionsOf(entry.user), MAX_ACTIONS_PER_WRITE)) {
      open.entries.push(entry);
      continue;
    }
    const write = writeOf(mode);
    const next = write.add(entry.plan, companionsOf(entry.user), MAX_ACTIONS_PER_WRITE)
      ? { entries: [entry], write, mode }
      : undefined;
    current.set(mode, next);
    if (next) groups.push(next);
  }

  let interruptedBy: unknown;
  for (const initial of groups) {
    let group = initial.entries;
    const { mode } = initial;
    let write: UserWrite | undefined = initial.write;
    // A conflict names the users it came from: they leave the group (importUser will word their
    // failure) and the rest is tried again, a few rounds at most.
    for (let round = 0; round < GROUP_ROUNDS && group.length >= 2; round++) {
      if (!write) {
        write = writeOf(mode);
        for (const entry of group) write.add(entry.plan, companionsOf(entry.user));
      }
      const ids = group.map((p) => p.user.id);
      let result: WriteResult;
      try {
        result = await deps.store.commit(write);
      } catch (error) {
        // Nothing of this group was written (a transaction is atomic): its users take the
        // one-by-one path, which meets the same error again if it was not transient.
        interruptedBy ??= error;
        break;
      }
      write = undefined;
      if (result.ok) {
        for (const id of ids) imported.add(id);
        break;
      }
      const culprits = new Set<number>();
      result.failed.forEach((entity, i) => {
        const plan = result.plans?.[i];
        if (plan !== undefined) culprits.add(plan);
        else if (entity.kind === 'stagedRow' && ids.includes(entity.id)) culprits.add(ids.indexOf(entity.id));
      });
      // A primary user appeared since the guard was read: these users are left to importUser,
      // which checks each of their account infos (and words a conflict with that primary user).
      if (result.failed.some((entity) => entity.kind === 'primaryGuard')) break;
      if (culprits.size === 0) break;
      group = group.filter((_, i) => !culprits.has(i));
    }
  }
  return { imported, hashes, ...(interruptedBy !== undefined ? { interruptedBy } : {}) };
}
