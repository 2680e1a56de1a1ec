/**
 * User use cases behind the endpoints the SDK calls (docs/api.md): sign-in/up, user by id,
 * listing, counts, lookup by account info, removal and user-id mappings. Pure: storage, hashing
 * and the clock arrive through `UsersDeps`.
 */
import { normaliseEmail } from '#functions/contract/emails.js';
import { normalisePhoneNumber } from '#functions/contract/phone-numbers.js';
import { BadRequestError, invalidFieldMessage } from '#functions/shared/errors.js';
import { ID_LIMITS } from '#functions/shared/id-limits.js';
import { has, optionalBoolean, requiredString } from '#functions/shared/input.js';
import { READ_AGAIN, type RereadPolicy, reread } from '#functions/shared/rereads.js';
import {
  externalIdOf,
  FILTER_RECIPE_IDS,
  type LoginMethodRecord,
  recipeBit,
  toUserJson,
  type UserJson,
  type UserRecord,
} from './model.js';
import type { UserIdMapping, UserPosition, UserStore, WriteEntity } from './ports.js';
import { writePlan } from './write.js';

export interface PasswordPorts {
  hash(plain: string): Promise<string>;
  /**
   * 'match' | 'mismatch' | 'unverifiable' (e.g. a Firebase hash without the app's signer key) |
   * 'over-limit' (the stored hash asks for more work than the cost bounds allow; not computed).
   */
  verify(plain: string, storedHash: string): Promise<'match' | 'mismatch' | 'unverifiable' | 'over-limit'>;
  /**
   * The verify of a sign-in that has no stored hash to check: costs what a verify against a hash
   * of the app's algorithm at its configured cost costs, so the answer's timing does not tell
   * whether the email exists.
   */
  dummyVerify(plain: string): Promise<void>;
  /**
   * Whether a stored hash is to be replaced with `hash(password)` after a successful sign-in (a
   * legacy family, or bcrypt/Argon2 below the app's cost, and the app has not turned the upgrade
   * off). Absent: never.
   */
  needsUpgrade?(storedHash: string): boolean;
  /** The clock and floor that hold every failed sign-in to the dummy verify's duration. */
  readonly timing: FailureTiming;
}

/**
 * What holds a failed sign-in to the duration of the dummy verify, whatever the stored hash: a
 * digest checked in microseconds, a bcrypt hash below the app's cost, a hash never computed
 * (beyond the bounds, or unverifiable) or a password refused before any work all answer no sooner
 * than an unknown email does.
 */
export interface FailureTiming {
  /** A monotonic clock, in milliseconds. */
  now(): number;
  sleep(ms: number): Promise<void>;
  /**
   * How long the dummy verify takes here, as measured recently (ms); undefined before it has been
   * measured — a failure then runs the dummy verify itself.
   */
  floorMs(): number | undefined;
}

export interface UsersDeps {
  readonly store: UserStore;
  readonly now: () => number;
  readonly newId: () => string;
  readonly warn?: (message: string, fields: Record<string, unknown>) => void;
}

// ------------------------------------------------------------------------------------------------
// Id resolution

/**
 * The user a SuperTokens id (user or recipe user) or, failing that, an external id names.
 * Returns the user and the SuperTokens id the input stood for.
 */
export async function resolveUser(
  deps: UsersDeps,
  appId: string,
  userId: string,
): Promise<{ user: UserRecord; superTokensId: string } | undefined> {
  const direct = await deps.store.getUserBySuperTokensId(appId, userId);
  if (direct) return { user: direct, superTokensId: userId };
  const mapping = await deps.store.getMappingByExternalId(appId, userId);
  if (!mapping) return undefined;
  const user = await deps.store.getUserBySuperTokensId(appId, mapping.superTokensUserId);
  return user ? { user, superTokensId: mapping.superTokensUserId } : undefined;
}

/** `GET /user/id`: `{status:"OK", user}` or `UNKNOWN_USER_ID_ERROR`. */
export async function getUser(deps: UsersDeps, appId: string, userId: string) {
  const found = await resolveUser(deps, appId, userId);
  return found ? { status: 'OK', user: toUserJson(found.user) } : { status: 'UNKNOWN_USER_ID_ERROR' };
}

// ------------------------------------------------------------------------------------------------
// Email/password

/** `POST /<t>/recipe/signin`. */
export async function signIn(
  deps: UsersDeps,
  passwords: PasswordPorts,
  target: { appId: string; tenantId: string },
  input: { email: string; password: string },
): Promise<{ status: 'OK'; user: UserJson; recipeUserId: string } | { status: 'WRONG_CREDENTIALS_ERROR' }> {
  const email = normaliseEmail(input.email);
  // An email too long to be stored belongs to no user (and cannot be part of a key).
  const found = canBeStoredEmail(email)
    ? await deps.store.getEmailPasswordUser(target.appId, target.tenantId, email)
    : undefined;
  const method = found?.user.loginMethods.find((lm) => lm.recipeUserId === found.recipeUserId);
  // Every failure from here on takes at least as long as the dummy verify (failAfterFloor).
  const verifyStarted = passwords.timing.now();
  if (!found || !method?.passwordHash) {
    await passwords.dummyVerify(input.password);
    return failAfterFloor(passwords, verifyStarted, input.password, true);
  }
  const outcome = await passwords.verify(input.password, method.passwordHash);
  const who = { appId: target.appId, tenantId: target.tenantId, recipeUserId: method.recipeUserId };
  if (outcome === 'unverifiable') {
    deps.warn?.('sign-in refused: the stored password hash cannot be checked with this app configuration', who);
  } else if (outcome === 'over-limit') {
    deps.warn?.('sign-in refused: the stored password hash asks for more work than the hash cost bounds allow', who);
  }
  if (outcome !== 'match') return failAfterFloor(passwords, verifyStarted, input.password, false);
  if (passwords.needsUpgrade?.(method.passwordHash)) {
    await upgradePasswordHash(deps, passwords, target, found.user, method.recipeUserId, input.password);
  }
  return {
    status: 'OK',
    user: toUserJson(found.user),
    recipeUserId: externalIdOf(found.user, method.recipeUserId),
  };
}

/**
 * A failure whose verify took less than this share of the dummy verify's duration did next to no
 * work (a digest, a hash never computed, a password refused before any work): it runs the dummy
 * verify for real, which costs what the unknown email's costs under whatever load the function is
 * under, rather than sleeping (a sleep does not slow down with the CPU). Costs up to 110 % of the
 * dummy's that way; above the share, the rest is slept.
 */
const RUN_DUMMY_BELOW_SHARE = 0.1;

/**
 * The answer of a failed sign-in, no sooner than the dummy verify would have given it: a failure
 * that did next to no work runs the dummy verify ({@link RUN_DUMMY_BELOW_SHARE}), and the time
 * spent since `startedAt` (the password step, after the lookup) is then padded up to the dummy's
 * measured duration. Before that duration is known (a fresh execution environment), a failure that
 * has not run the dummy verify runs it, which measures it. A stored hash that costs more than the
 * dummy takes its own time (nothing is added).
 */
async function failAfterFloor(
  passwords: PasswordPorts,
  startedAt: number,
  password: string,
  ranDummy: boolean,
): Promise<{ status: 'WRONG_CREDENTIALS_ERROR' }> {
  const { timing } = passwords;
  const floor = timing.floorMs();
  if (!ranDummy && (floor === undefined || timing.now() - startedAt < floor * RUN_DUMMY_BELOW_SHARE)) {
    await passwords.dummyVerify(password);
  }
  const target = timing.floorMs();
  if (target !== undefined) {
    const left = target - (timing.now() - startedAt);
    if (left > 0) await timing.sleep(left);
  }
  return { status: 'WRONG_CREDENTIALS_ERROR' };
}

/**
 * The step after a successful sign-in against a legacy hash: the password, hashed with the app's
 * algorithm at its configured cost, replaces the legacy hash, in a write that applies only if the
 * stored hash is still the one just verified (a password changed meanwhile is never overwritten;
 * the next sign-in verifies whatever is stored then). It never fails the sign-in: a failure is
 * logged without the hash or the password, and the legacy hash stays until a later sign-in.
 */
async function upgradePasswordHash(
  deps: UsersDeps,
  passwords: PasswordPorts,
  target: { appId: string; tenantId: string },
  user: UserRecord,
  recipeUserId: string,
  password: string,
): Promise<void> {
  try {
    const replacement = await passwords.hash(password);
    await deps.store.replacePasswordHash(target.appId, user, recipeUserId, replacement);
  } catch (error) {
    deps.warn?.('sign-in succeeded but its legacy password hash could not be upgraded; it is kept as it was', {
      appId: target.appId,
      tenantId: target.tenantId,
      recipeUserId,
      reason: error instanceof Error ? error.name : 'unknown',
    });
  }
}

/** Normalising can at most double an email's length (`İ` lower-cases to two characters). */
const canBeStoredEmail = (email: string) => email.length <= 2 * ID_LIMITS.email;

/** `POST /<t>/recipe/signup`: a new, non-primary emailpassword user in the path's tenant. */
export async function signUp(
  deps: UsersDeps,
  passwords: PasswordPorts,
  target: { appId: string; tenantId: string },
  input: { email: string; password: string },
): Promise<{ status: 'OK'; user: UserJson; recipeUserId: string } | { status: 'EMAIL_ALREADY_EXISTS_ERROR' }> {
  const email = normaliseEmail(input.email);
  // Cheap early answer; the conditional write below is what actually guarantees uniqueness.
  if (await deps.store.getEmailPasswordUser(target.appId, target.tenantId, email)) {
    return { status: 'EMAIL_ALREADY_EXISTS_ERROR' };
  }
  const passwordHash = await passwords.hash(input.password);
  const userId = deps.newId();
  const now = deps.now();
  const method: LoginMethodRecord = {
    recipeId: 'emailpassword',
    recipeUserId: userId,
    tenantIds: [target.tenantId],
    timeJoined: now,
    verified: false,
    email,
    passwordHash,
  };
  const user: UserRecord = {
    userId,
    isPrimaryUser: false,
    timeJoined: now,
    loginMethods: [method],
    externalIds: {},
    version: 1,
  };
  const result = await writePlan(deps.store, target.appId, { changes: [{ after: user }] });
  if (!result.ok) {
    if (result.failed.some((e) => e.kind === 'uniqueEmail')) return { status: 'EMAIL_ALREADY_EXISTS_ERROR' };
    throw new Error(`sign-up write failed: ${describeEntities(result.failed)}`);
  }
  return { status: 'OK', user: toUserJson(user), recipeUserId: userId };
}

function describeEntities(entities: readonly WriteEntity[]): string {
  return entities.map((e) => e.kind).join(', ');
}

// ------------------------------------------------------------------------------------------------
// Listing and counting

const RECIPE_SET = new Set<string>(FILTER_RECIPE_IDS);

/** `includeRecipeIds` (comma-separated) → recipe-combination masks to include; undefined = all. */
export function masksFor(includeRecipeIds: string | undefined): number[] | undefined {
  if (includeRecipeIds === undefined) return undefined;
  const ids = includeRecipeIds
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (ids.length === 0) return undefined;
  let wanted = 0;
  for (const id of ids) {
    if (!RECIPE_SET.has(id)) throw new BadRequestError(`Unknown recipe ID: ${id}`);
    wanted |= recipeBit(id);
  }
  return ALL_MASKS.filter((mask) => (mask & wanted) !== 0);
}

const ALL_MASKS = [1, 2, 3, 4, 5, 6, 7];

export const USERS_PAGE_MAX = 500;
export const USERS_PAGE_DEFAULT = 100;

/** Pagination tokens: Base64 of `<userId>;<timeJoined>` of the last user of the previous page. */
export function encodeToken(position: UserPosition): string {
  return Buffer.from(`${position.userId};${position.timeJoined}`, 'utf8').toString('base64');
}

export function decodeToken(token: string): UserPosition {
  const invalid = new BadRequestError('invalid pagination token');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(token)) throw invalid;
  const text = Buffer.from(token, 'base64').toString('utf8');
  const separator = text.lastIndexOf(';');
  if (separator <= 0) throw invalid;
  const userId = text.slice(0, separator);
  const time = text.slice(separator + 1);
  if (!/^\d{1,15}$/.test(time) || userId.includes('#') || userId.length > ID_LIMITS.userId) throw invalid;
  return { userId, timeJoined: Number(time) };
}

export interface ListUsersInput {
  readonly timeJoinedOrder?: string;
  readonly limit?: number;
  readonly paginationToken?: string;
  readonly includeRecipeIds?: string;
}

/** `GET /<t>/users` (CDI ≥ 4.0 shape: plain user objects). */
export async function listUsers(deps: UsersDeps, target: { appId: string; tenantId: string }, input: ListUsersInput) {
  const masks = masksFor(input.includeRecipeIds);
  const order = input.timeJoinedOrder ?? 'ASC';
  if (order !== 'ASC' && order !== 'DESC') throw new BadRequestError('timeJoinedOrder can be either ASC OR DESC');
  const limit = input.limit ?? USERS_PAGE_DEFAULT;
  if (limit > USERS_PAGE_MAX) throw new BadRequestError(`max limit allowed is ${USERS_PAGE_MAX}`);
  if (limit < 1) throw new BadRequestError('limit must a positive integer with min value 1');
  const after = input.paginationToken === undefined ? undefined : decodeToken(input.paginationToken);
  const page = await deps.store.listUsers(target.appId, target.tenantId, {
    order,
    limit,
    ...(after ? { after } : {}),
    ...(masks ? { masks } : {}),
  });
  return {
    status: 'OK',
    users: page.users.map(toUserJson),
    ...(page.next ? { nextPaginationToken: encodeToken(page.next) } : {}),
  };
}

/**
 * `GET /<t>/users/count`. With `includeAllTenants`, every user of the app once (the app-wide
 * counter counts a user once however many tenants it belongs to).
 */
export async function countUsers(
  deps: UsersDeps,
  target: { appId: string; tenantId: string },
  input: { includeRecipeIds?: string; includeAllTenants: boolean },
) {
  const masks = masksFor(input.includeRecipeIds) ?? ALL_MASKS;
  const count = await deps.store.countUsers(target.appId, input.includeAllTenants ? undefined : target.tenantId, masks);
  return { status: 'OK', count };
}

// ------------------------------------------------------------------------------------------------
// By account info

export interface AccountInfoInput {
  readonly email?: string;
  readonly phoneNumber?: string;
  readonly thirdPartyId?: string;
  readonly thirdPartyUserId?: string;
  readonly doUnionOfAccountInfo: boolean;
}

/** `GET /<t>/users/by-accountinfo`: users matching all (or, with union, any) of the given infos. */
export async function usersByAccountInfo(
  deps: UsersDeps,
  target: { appId: string; tenantId: string },
  input: AccountInfoInput,
) {
  if ((input.thirdPartyId === undefined) !== (input.thirdPartyUserId === undefined)) {
    throw new BadRequestError(
      "If 'thirdPartyId' is provided, 'thirdPartyUserId' must also be provided, and vice versa",
    );
  }
  const query = {
    ...(input.email !== undefined ? { email: normaliseEmail(input.email) } : {}),
    ...(input.phoneNumber !== undefined ? { phoneNumber: normalisePhoneNumber(input.phoneNumber) } : {}),
    ...(input.thirdPartyId !== undefined && input.thirdPartyUserId !== undefined
      ? { thirdParty: { id: input.thirdPartyId, userId: input.thirdPartyUserId } }
      : {}),
  };
  const lists = await deps.store.usersByAccountInfo(target.appId, target.tenantId, query);
  const byId = new Map<string, UserRecord>();
  for (const list of lists) for (const user of list) byId.set(user.userId, user);
  let ids = [...byId.keys()];
  if (!input.doUnionOfAccountInfo) {
    ids = ids.filter((id) => lists.every((list) => list.some((u) => u.userId === id)));
  }
  const users = ids
    .map((id) => byId.get(id) as UserRecord)
    .sort((a, b) => a.timeJoined - b.timeJoined || a.userId.localeCompare(b.userId));
  return { status: 'OK', users: users.map(toUserJson) };
}

// ------------------------------------------------------------------------------------------------
// Removal

const USER_REMOVAL_REREADS: RereadPolicy = {
  attempts: 5,
  exhausted: 'user removal kept conflicting with concurrent changes',
};

/**
 * `POST /user/remove`. The whole user (all linked login methods) when `removeAllLinkedAccounts`
 * or when it has a single login method; else only the named recipe user's login method. Deletes
 * the user's items, account infos, mappings and counters in one transaction, then the roles,
 * metadata and TOTP devices of the removed ids. Unknown ids are not an error.
 */
export async function removeUser(
  deps: UsersDeps,
  appId: string,
  input: { userId: string; removeAllLinkedAccounts: boolean },
): Promise<{ status: 'OK' }> {
  return reread(USER_REMOVAL_REREADS, async () => {
    const found = await resolveUser(deps, appId, input.userId);
    if (!found) return { status: 'OK' };
    const { user, superTokensId } = found;
    const removeAll = input.removeAllLinkedAccounts || user.loginMethods.length === 1;
    const removedIds = removeAll ? [user.userId, ...user.loginMethods.map((lm) => lm.recipeUserId)] : [superTokensId];
    const after: UserRecord | undefined = removeAll
      ? undefined
      : {
          ...user,
          loginMethods: user.loginMethods.filter((lm) => lm.recipeUserId !== superTokensId),
          externalIds: Object.fromEntries(Object.entries(user.externalIds).filter(([id]) => id !== superTokensId)),
          version: user.version + 1,
        };
    const dataIds = [...new Set(removedIds)].flatMap((id) => [
      id,
      ...(user.externalIds[id] ? [externalIdOf(user, id)] : []),
    ]);
    // User data first: an interrupted removal leaves the user, and removing again finishes it.
    await deps.store.purgeUserIdData(appId, dataIds);
    const result = await writePlan(deps.store, appId, { changes: [{ before: user, ...(after ? { after } : {}) }] });
    // The user changed since it was read (version guard): read again and retry.
    return result.ok ? { status: 'OK' } : READ_AGAIN;
  });
}

// ------------------------------------------------------------------------------------------------
// User id mapping

export type UserIdType = 'SUPERTOKENS' | 'EXTERNAL' | 'ANY';

export function parseUserIdType(raw: string | undefined): UserIdType {
  if (raw === undefined) return 'ANY';
  const value = raw.trim();
  if (value === 'SUPERTOKENS' || value === 'EXTERNAL' || value === 'ANY') return value;
  throw new BadRequestError("Field name 'userIdType' should be one of 'SUPERTOKENS', 'EXTERNAL' or 'ANY'");
}

function mappingJson(mapping: UserIdMapping) {
  return {
    status: 'OK',
    superTokensUserId: mapping.superTokensUserId,
    externalUserId: mapping.externalUserId,
    ...(mapping.externalUserIdInfo !== undefined ? { externalUserIdInfo: mapping.externalUserIdInfo } : {}),
  };
}

/** `GET /recipe/userid/map`. */
export async function getUserIdMapping(
  deps: UsersDeps,
  appId: string,
  input: { userId: string; userIdType: UserIdType },
) {
  const userId = input.userId.trim();
  if (userId === '') throw new BadRequestError("Field name 'userId' cannot be an empty String");
  if (input.userIdType !== 'EXTERNAL') {
    const user = await deps.store.getUserBySuperTokensId(appId, userId);
    const mapped = user?.externalIds[userId];
    if (mapped) return mappingJson({ superTokensUserId: userId, ...mapped });
    if (input.userIdType === 'SUPERTOKENS') return { status: 'UNKNOWN_MAPPING_ERROR' };
  }
  const mapping = await deps.store.getMappingByExternalId(appId, userId);
  return mapping ? mappingJson(mapping) : { status: 'UNKNOWN_MAPPING_ERROR' };
}

export interface CreateMappingInput {
  readonly superTokensUserId: string;
  readonly externalUserId: string;
  readonly externalUserIdInfo?: string;
  readonly force: boolean;
}

/** A string or JSON null (→ undefined) field, as the reference's `parseStringOrJSONNullOrThrowError`. */
function optionalStringOrNull(body: Readonly<Record<string, unknown>>, name: string): string | undefined {
  if (!has(body, name) || body[name] === null) return undefined;
  const value = body[name];
  if (typeof value !== 'string') throw new BadRequestError(invalidFieldMessage(name));
  return value;
}

/** The body of `POST /recipe/userid/map`. */
export function parseCreateMapping(body: Readonly<Record<string, unknown>>): CreateMappingInput {
  const info = optionalStringOrNull(body, 'externalUserIdInfo');
  return {
    superTokensUserId: requiredString(body, 'superTokensUserId'),
    externalUserId: requiredString(body, 'externalUserId'),
    ...(info !== undefined ? { externalUserIdInfo: info } : {}),
    force: optionalBoolean(body, 'force') ?? false,
  };
}

const MAPPING_REREADS: RereadPolicy = {
  attempts: 5,
  exhausted: 'user id mapping kept conflicting with concurrent changes',
};

/** `POST /recipe/userid/map`. */
export async function createUserIdMapping(deps: UsersDeps, appId: string, input: CreateMappingInput) {
  const superTokensUserId = input.superTokensUserId.trim();
  if (superTokensUserId === '') {
    throw new BadRequestError("Field name 'superTokensUserId' cannot be an empty String");
  }
  const externalUserId = input.externalUserId.trim();
  if (externalUserId === '') throw new BadRequestError("Field name 'externalUserId' cannot be an empty String");
  const info = input.externalUserIdInfo?.trim();
  if (info === '') throw new BadRequestError("Field name 'externalUserIdInfo' cannot be an empty String");

  return reread(MAPPING_REREADS, async () => {
    const user = await deps.store.getUserBySuperTokensId(appId, superTokensUserId);
    if (!user) return { status: 'UNKNOWN_SUPERTOKENS_USER_ID_ERROR' };
    const existingForUser = user.externalIds[superTokensUserId];
    const existingExternal = await deps.store.getMappingByExternalId(appId, externalUserId);
    if (existingForUser || existingExternal) {
      return {
        status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR',
        doesSuperTokensUserIdExist: existingForUser !== undefined,
        doesExternalUserIdExist: existingExternal !== undefined,
      };
    }
    if (!input.force && (await deps.store.getUserBySuperTokensId(appId, externalUserId))) {
      throw new BadRequestError('Cannot create a userId mapping where the externalId is also a SuperTokens userID');
    }
    const after: UserRecord = {
      ...user,
      externalIds: {
        ...user.externalIds,
        [superTokensUserId]: { externalUserId, ...(info !== undefined ? { externalUserIdInfo: info } : {}) },
      },
      version: user.version + 1,
    };
    const result = await writePlan(deps.store, appId, {
      changes: [{ before: user, after }],
      ...(input.force ? {} : { externalIdsNotUserIds: [externalUserId] }),
    });
    if (result.ok) return { status: 'OK' };
    if (result.failed.some((e) => e.kind === 'externalIdIsUserId')) {
      throw new BadRequestError('Cannot create a userId mapping where the externalId is also a SuperTokens userID');
    }
    // externalId taken meanwhile, or the user changed: the next round reports or retries.
    return READ_AGAIN;
  });
}
