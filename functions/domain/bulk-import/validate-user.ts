/**
 * Validation and normalisation of one import user (docs/reference-behaviour.md "Staged user ids", "Validating an import user"). Pure: everything the rules
 * need from the app (roles, tenants, feature switches, clock, id generator) comes in through the context.
 *
 * Errors are collected, never fail-fast, in the reference's evaluation order; message texts are the
 * reference's. Where the reference crashes on bad input (blank role, non-object user, Firebase hash without
 * a signer key) a message in the same style is reported instead.
 */
import { normaliseEmail } from '#functions/contract/emails.js';
import { IMPORT_RECIPE_IDS, type ImportRecipeId } from '#functions/contract/import-payload.js';
import { isJsonObject, type JsonObject } from '#functions/contract/json.js';
import { normalisePhoneNumber } from '#functions/contract/phone-numbers.js';
import { PUBLIC_TENANT_ID } from '#functions/contract/tenants.js';
import type {
  EmailPasswordImportLoginMethod,
  ImportLoginMethod,
  ImportTotpDevice,
  ImportUser,
  ImportUserRole,
  PasswordlessImportLoginMethod,
  ThirdPartyImportLoginMethod,
} from '../import/types.js';
import { metadataProblem, metadataProblemMessage } from '../metadata/limits.js';
// The import checks only: the index would also load the KDFs, which validation never runs.
import { normaliseHashingAlgorithm } from '../passwords/algorithm.js';
import { checkHashFormat, checkUndeclaredHash, normaliseImportedHash } from '../passwords/format.js';
import {
  INT_RANGE,
  readArrayOfObject,
  readArrayOfString,
  readBoolean,
  readInteger,
  readObject,
  readString,
} from './json-fields.js';
import { getPrimaryLoginMethod } from './primary.js';
import { SECRET_MARKER } from './scrub-credentials.js';

export interface ImportValidationContext {
  /** Current time in ms since epoch: default for, and upper bound of, `timeJoinedInMSSinceEpoch`. */
  now: number;
  /** Generates a login method's `superTokensUserId` (UUID v4 in production). */
  newId: () => string;
  /** Whether the (already trimmed) role exists in the app. */
  roleExists: (role: string) => boolean;
  /** Whether the (already trimmed and lower-cased) tenant exists in the app. */
  tenantExists: (tenantId: string) => boolean;
  features: {
    accountLinking: boolean;
    mfa: boolean;
    /** Always on in this core; only `false` makes the "Multitenancy must be enabled…" rule fire. */
    multitenancy?: boolean;
  };
  /** Whether the app has `firebase_password_hashing_signer_key`; needed for FIREBASE_SCRYPT hashes. */
  firebaseSignerKeyConfigured: boolean;
  /**
   * Whether the app has a password-migration hook (`password_migration_hook_url`); needed for login
   * methods with `passwordMigration: "hook"`. Absent: none.
   */
  passwordMigrationHookConfigured?: boolean;
  /**
   * Why a valid user could still never be imported from staging — its one atomic write (with the
   * deletion of its staged row) would need more actions than a DynamoDB transaction allows — or
   * undefined. Checked only for users being staged ({@link ValidateImportUserOptions.staging}).
   */
  stagedImportProblem?: (user: ImportUser) => string | undefined;
}

export interface ValidateImportUserOptions {
  /**
   * External user ids (raw, untrimmed) already seen in the same request. When given, a repeated id is an
   * error and every newly seen id is added (also for users that turn out invalid).
   */
  seenExternalUserIds?: Set<string>;
  /**
   * `generate` (default): fresh `superTokensUserId`s from `ctx.newId`, client-supplied ones ignored.
   * `readStored`: re-validation of a staged record; each login method must carry its `superTokensUserId`.
   */
  idMode?: 'generate' | 'readStored';
  /** The user is about to be staged: a user whose import could never commit is refused now. */
  staging?: boolean;
}

export type ValidateImportUserResult = { ok: true; user: ImportUser } | { ok: false; errors: string[] };

// ------------------------------------------------------------------------------------------------
// Messages

const SUFFIX_USER = '.';
const SUFFIX_ROLE = ' for a user role.';
const SUFFIX_TOTP = ' for a totp device.';
const SUFFIX_LOGIN_METHOD = ' for a loginMethod.';
/** The reference omits the trailing dot for `timeJoinedInMSSinceEpoch` (and stored `superTokensUserId`). */
const SUFFIX_LOGIN_METHOD_NO_DOT = ' for a loginMethod';
const SUFFIX_EMAILPASSWORD = ' for an emailpassword recipe.';
const SUFFIX_THIRDPARTY = ' for a thirdparty recipe.';
const SUFFIX_PASSWORDLESS = ' for a passwordless recipe.';

const IMPORT_USER_MESSAGES = {
  userNotObject: 'user should be of type object.',
  mfaRequiredForTotp: 'MFA must be enabled to import totp devices.',
  atLeastOneLoginMethod: 'At least one loginMethod is required.',
  accountLinkingRequired: 'Account linking must be enabled to import multiple loginMethods.',
  twoPrimaries: 'No two loginMethods can have isPrimary as true.',
  invalidRecipeId: 'Invalid recipeId for loginMethod. Pass one of emailpassword, thirdparty or, passwordless!',
  multitenancyRequired: 'Multitenancy must be enabled before importing users to a different tenant.',
  timeJoinedInFuture: 'timeJoined cannot be in future for a loginMethod.',
  timeJoinedNegative: 'timeJoined cannot be < 0 for a loginMethod.',
  periodNotPositive: 'period should be > 0 for a totp device.',
  skewNegative: 'skew should be >= 0 for a totp device.',
  passwordRequired:
    'Either (passwordHash, hashingAlgorithm) or plainTextPassword is required for an emailpassword recipe.',
  // The reference's sentence, naming every algorithm this core accepts (a deliberate difference).
  invalidHashingAlgorithm:
    'Invalid hashingAlgorithm for emailpassword recipe. Pass one of bcrypt, argon2, firebase_scrypt, pbkdf2, scrypt, phpass, md5, sha1, sha256, sha512 or, ldap!',
  passwordHashTooLong: 'passwordHash is too long. Max length is 256.',
  firebaseSignerKeyMissing:
    'firebase_password_hashing_signer_key must be set for this app to import FIREBASE_SCRYPT password hashes for an emailpassword recipe.',
  emailOrPhoneRequired: 'Either email or phoneNumber is required for a passwordless recipe.',
  // This core's extension (docs/password-migration-hook.md).
  passwordMigrationInvalid: 'passwordMigration must be "hook" for an emailpassword recipe.',
  passwordMigrationWithPassword:
    'passwordMigration cannot be given together with passwordHash or plainTextPassword for an emailpassword recipe.',
  passwordMigrationHookMissing:
    'password_migration_hook_url must be set for this app to import users with passwordMigration "hook" for an emailpassword recipe.',
} as const;

const M = IMPORT_USER_MESSAGES;

const RECIPE_ID_SET: ReadonlySet<string> = new Set(IMPORT_RECIPE_IDS);
const RECIPE_TENANT_SUFFIX: ReadonlyMap<string, string> = new Map(
  [...IMPORT_RECIPE_IDS, 'null'].map((recipeId) => [recipeId, ` for ${recipeId} recipe.`]),
);

// ------------------------------------------------------------------------------------------------
// Performance note: objects are built with explicit literals and property assignments, never with object
// spread (`{ ...a, b }`), which is an order of magnitude slower in V8 for the 30k login methods of a
// 10000-user request.

// ------------------------------------------------------------------------------------------------
// Field normalisers

/** Normalised, no syntax check (reference: email "too long" above 255 characters, message says 256). */
function validateAndNormaliseEmail(email: string | undefined, errors: string[]): string | undefined {
  if (email === undefined) return undefined;
  if (email.length > 255) errors.push(`email ${email} is too long. Max length is 256.`);
  return normaliseEmail(email);
}

/**
 * Validates and normalises a tenant id list. Missing → `["public"]`. A value that is exactly `public` is
 * taken as is; others need multitenancy, are trimmed + lower-cased and must exist, else
 * `Invalid tenantId: <raw><suffix>` and the value is dropped. Duplicates (after normalisation) are dropped
 * when `dedupe` is set.
 */
function validateAndNormaliseTenantIds(
  raw: string[] | undefined,
  ctx: ImportValidationContext,
  errors: string[],
  suffix: string,
  dedupe: boolean,
): string[] {
  if (raw === undefined) return [PUBLIC_TENANT_ID];
  // Fast path for the common `["public"]` (a fresh array: outputs never alias the parsed input).
  if (raw.length === 1 && raw[0] === PUBLIC_TENANT_ID) return [PUBLIC_TENANT_ID];
  const out: string[] = [];
  for (const tenantId of raw) {
    let normalised: string;
    if (tenantId === PUBLIC_TENANT_ID) {
      normalised = tenantId;
    } else if (ctx.features.multitenancy === false) {
      errors.push(M.multitenancyRequired);
      continue;
    } else {
      normalised = tenantId.trim().toLowerCase();
      if (!ctx.tenantExists(normalised)) {
        errors.push(`Invalid tenantId: ${tenantId}${suffix}`);
        continue;
      }
    }
    if (!dedupe || !out.includes(normalised)) out.push(normalised);
  }
  return out;
}

// ------------------------------------------------------------------------------------------------
// Sections of the user object (docs/reference-behaviour.md "Validating an import user", items 3–5)

/** Roles as validated (tenant ids not yet de-duplicated: the post check counts duplicates like the reference). */
function parseUserRoles(user: JsonObject, ctx: ImportValidationContext, errors: string[]): ImportUserRole[] {
  const elements = readArrayOfObject(user, 'userRoles', false, errors, SUFFIX_USER);
  if (elements === undefined) return [];
  const roles: ImportUserRole[] = [];
  for (const element of elements) {
    const rawRole = readString(element, 'role', true, errors, SUFFIX_ROLE);
    const rawTenantIds = readArrayOfString(element, 'tenantIds', true, errors, SUFFIX_ROLE);
    let role: string | undefined;
    if (rawRole !== undefined) {
      if (rawRole.length > 255) errors.push(`role ${rawRole} is too long. Max length is 255.`);
      role = rawRole.trim();
      if (!ctx.roleExists(role)) errors.push(`Role ${role} does not exist.`);
    }
    const tenantIds = validateAndNormaliseTenantIds(rawTenantIds, ctx, errors, SUFFIX_ROLE, false);
    if (role !== undefined) roles.push({ role, tenantIds });
  }
  return roles;
}

function parseTotpDevices(user: JsonObject, ctx: ImportValidationContext, errors: string[]): ImportTotpDevice[] {
  const elements = readArrayOfObject(user, 'totpDevices', false, errors, SUFFIX_USER);
  if (elements === undefined) return [];
  if (!ctx.features.mfa) {
    errors.push(M.mfaRequiredForTotp);
    return [];
  }
  const devices: ImportTotpDevice[] = [];
  for (const element of elements) {
    const secretKey = readString(element, 'secretKey', true, errors, SUFFIX_TOTP);
    const rawPeriod = readInteger(element, 'period', false, errors, SUFFIX_TOTP, INT_RANGE);
    const rawSkew = readInteger(element, 'skew', false, errors, SUFFIX_TOTP, INT_RANGE);
    const rawDeviceName = readString(element, 'deviceName', false, errors, SUFFIX_TOTP);

    if (secretKey !== undefined && secretKey.length > 256) {
      errors.push(`TOTP secretKey ${SECRET_MARKER} is too long. Max length is 256.`);
    }
    let period: number | undefined = rawPeriod ?? 30;
    if (period < 1) {
      errors.push(M.periodNotPositive);
      period = undefined;
    }
    let skew: number | undefined = rawSkew ?? 1;
    if (skew < 0) {
      errors.push(M.skewNegative);
      skew = undefined;
    }
    let deviceName: string | undefined;
    if (rawDeviceName !== undefined) {
      if (rawDeviceName.length > 256) errors.push(`TOTP deviceName ${rawDeviceName} is too long. Max length is 256.`);
      deviceName = rawDeviceName.trim();
    }
    if (secretKey !== undefined && period !== undefined && skew !== undefined) {
      devices.push(deviceName === undefined ? { secretKey, period, skew } : { secretKey, period, skew, deviceName });
    }
  }
  // Two devices of one name could never both be imported (the reference fails the second, E036).
  const names = new Set<string>();
  for (const { deviceName } of devices) {
    if (deviceName === undefined) continue;
    if (names.has(deviceName)) errors.push(`E036: A TOTP device named ${deviceName} already exists for this user.`);
    names.add(deviceName);
  }
  return devices;
}

interface CommonLoginMethodFields {
  tenantIds: string[];
  isVerified: boolean;
  isPrimary: boolean;
  timeJoinedInMSSinceEpoch: number;
}

interface ParsedLoginMethods {
  loginMethods: ImportLoginMethod[];
  /** Login methods given an explicit empty `tenantIds` list. */
  withoutTenants: ImportLoginMethod[];
}

function parseLoginMethods(
  user: JsonObject,
  ctx: ImportValidationContext,
  errors: string[],
  idMode: 'generate' | 'readStored',
): ParsedLoginMethods {
  const parsed: ParsedLoginMethods = { loginMethods: [], withoutTenants: [] };
  const elements = readArrayOfObject(user, 'loginMethods', true, errors, SUFFIX_USER);
  if (elements === undefined) return parsed;
  if (elements.length === 0) {
    errors.push(M.atLeastOneLoginMethod);
    return parsed;
  }
  if (elements.length > 1 && !ctx.features.accountLinking && !ctx.features.mfa) {
    errors.push(M.accountLinkingRequired);
  }
  let seenPrimary = false;
  for (const element of elements) {
    if (element.isPrimary === true) {
      if (seenPrimary) errors.push(M.twoPrimaries);
      seenPrimary = true;
    }
  }

  for (const element of elements) {
    const recipeId = readString(element, 'recipeId', true, errors, SUFFIX_LOGIN_METHOD);
    const rawTenantIds = readArrayOfString(element, 'tenantIds', false, errors, SUFFIX_LOGIN_METHOD);
    const isVerified = readBoolean(element, 'isVerified', false, errors, SUFFIX_LOGIN_METHOD) ?? false;
    const isPrimary = readBoolean(element, 'isPrimary', false, errors, SUFFIX_LOGIN_METHOD) ?? false;
    const rawTimeJoined = readInteger(element, 'timeJoinedInMSSinceEpoch', false, errors, SUFFIX_LOGIN_METHOD_NO_DOT);

    if (recipeId !== undefined && !RECIPE_ID_SET.has(recipeId)) errors.push(M.invalidRecipeId);
    // The reference renders a missing recipeId as "null" in this suffix.
    const tenantSuffix = RECIPE_TENANT_SUFFIX.get(recipeId ?? 'null') ?? ` for ${recipeId} recipe.`;
    const tenantIds = validateAndNormaliseTenantIds(rawTenantIds, ctx, errors, tenantSuffix, true);
    const timeJoinedInMSSinceEpoch = rawTimeJoined ?? ctx.now;
    if (rawTimeJoined !== undefined) {
      if (rawTimeJoined > ctx.now) errors.push(M.timeJoinedInFuture);
      if (rawTimeJoined < 0) errors.push(M.timeJoinedNegative);
    }

    let superTokensUserId: string | undefined;
    if (idMode === 'readStored') {
      superTokensUserId = readString(element, 'superTokensUserId', true, errors, SUFFIX_LOGIN_METHOD_NO_DOT);
    }
    if (recipeId === undefined || !RECIPE_ID_SET.has(recipeId)) continue;
    superTokensUserId ??= idMode === 'generate' ? ctx.newId() : '';

    const common: CommonLoginMethodFields = { tenantIds, isVerified, isPrimary, timeJoinedInMSSinceEpoch };
    let lm: ImportLoginMethod;
    switch (recipeId as ImportRecipeId) {
      case 'emailpassword':
        lm = parseEmailPassword(element, common, superTokensUserId, ctx, errors);
        break;
      case 'thirdparty':
        lm = parseThirdParty(element, common, superTokensUserId, errors);
        break;
      case 'passwordless':
        lm = parsePasswordless(element, common, superTokensUserId, errors);
        break;
    }
    parsed.loginMethods.push(lm);
    if (rawTenantIds?.length === 0) parsed.withoutTenants.push(lm);
  }
  return parsed;
}

function parseEmailPassword(
  element: JsonObject,
  common: CommonLoginMethodFields,
  superTokensUserId: string,
  ctx: ImportValidationContext,
  errors: string[],
): EmailPasswordImportLoginMethod {
  const rawEmail = readString(element, 'email', true, errors, SUFFIX_EMAILPASSWORD);
  const rawHash = readString(element, 'passwordHash', false, errors, SUFFIX_EMAILPASSWORD);
  const rawAlgorithm = readString(element, 'hashingAlgorithm', false, errors, SUFFIX_EMAILPASSWORD);
  const plainTextPassword = readString(element, 'plainTextPassword', false, errors, SUFFIX_EMAILPASSWORD);
  const passwordMigration = readPasswordMigration(element, rawHash, plainTextPassword, ctx, errors);

  if (
    passwordMigration === undefined &&
    (rawHash === undefined || rawAlgorithm === undefined) &&
    plainTextPassword === undefined
  ) {
    errors.push(M.passwordRequired);
  }
  const email = validateAndNormaliseEmail(rawEmail, errors);

  let hashingAlgorithm: EmailPasswordImportLoginMethod['hashingAlgorithm'];
  if (rawAlgorithm !== undefined) {
    hashingAlgorithm = normaliseHashingAlgorithm(rawAlgorithm.trim().toUpperCase());
    if (hashingAlgorithm === undefined) errors.push(M.invalidHashingAlgorithm);
  }

  let passwordHash = rawHash;
  if (hashingAlgorithm !== undefined && passwordHash !== undefined) {
    if (passwordHash.length > 256) errors.push(M.passwordHashTooLong);
    passwordHash = passwordHash.trim();
    if (hashingAlgorithm === 'FIREBASE_SCRYPT' && !ctx.firebaseSignerKeyConfigured) {
      errors.push(M.firebaseSignerKeyMissing);
    }
    // A hash in any accepted form of its family is stored in the family's one canonical form
    // (sign-in infers the scheme from it). Otherwise the reference's own shape test decides, with
    // the cost bounds wherever the parameters can be read.
    const imported = normaliseImportedHash(hashingAlgorithm, passwordHash);
    if (imported.ok) passwordHash = imported.storedHash;
    else {
      const formatError = checkHashFormat(hashingAlgorithm, passwordHash);
      if (formatError !== undefined) errors.push(formatError);
    }
  } else if (hashingAlgorithm === undefined && rawAlgorithm === undefined && passwordHash !== undefined) {
    // A hash without an algorithm is stored as given (the reference's quirk), and sign-in infers
    // its scheme from it: the cost bounds apply to it as to any other.
    const boundsError = checkUndeclaredHash(passwordHash);
    if (boundsError !== undefined) errors.push(boundsError);
  }

  // Built in the reference's key order (optional fields before superTokensUserId).
  const lm = {
    tenantIds: common.tenantIds,
    isVerified: common.isVerified,
    isPrimary: common.isPrimary,
    timeJoinedInMSSinceEpoch: common.timeJoinedInMSSinceEpoch,
    recipeId: 'emailpassword',
    email: email ?? '',
  } as EmailPasswordImportLoginMethod;
  if (passwordHash !== undefined) lm.passwordHash = passwordHash;
  if (hashingAlgorithm !== undefined) lm.hashingAlgorithm = hashingAlgorithm;
  if (plainTextPassword !== undefined) lm.plainTextPassword = plainTextPassword;
  if (passwordMigration !== undefined) lm.passwordMigration = passwordMigration;
  lm.superTokensUserId = superTokensUserId;
  return lm;
}

/**
 * `passwordMigration` (docs/password-migration-hook.md): absent, or `"hook"` alone — never with a
 * hash or a password, and only when the app has a hook to ask.
 */
function readPasswordMigration(
  element: JsonObject,
  rawHash: string | undefined,
  plainTextPassword: string | undefined,
  ctx: ImportValidationContext,
  errors: string[],
): 'hook' | undefined {
  if (!('passwordMigration' in element) || element.passwordMigration === null) return undefined;
  if (element.passwordMigration !== 'hook') {
    errors.push(M.passwordMigrationInvalid);
    return undefined;
  }
  if (rawHash !== undefined || plainTextPassword !== undefined) errors.push(M.passwordMigrationWithPassword);
  if (ctx.passwordMigrationHookConfigured !== true) errors.push(M.passwordMigrationHookMissing);
  return 'hook';
}

function parseThirdParty(
  element: JsonObject,
  common: CommonLoginMethodFields,
  superTokensUserId: string,
  errors: string[],
): ThirdPartyImportLoginMethod {
  const rawEmail = readString(element, 'email', true, errors, SUFFIX_THIRDPARTY);
  const thirdPartyId = readString(element, 'thirdPartyId', true, errors, SUFFIX_THIRDPARTY);
  const thirdPartyUserId = readString(element, 'thirdPartyUserId', true, errors, SUFFIX_THIRDPARTY);

  const email = validateAndNormaliseEmail(rawEmail, errors);
  if (thirdPartyId !== undefined && thirdPartyId.length > 28) {
    errors.push(`thirdPartyId ${thirdPartyId} is too long. Max length is 28.`);
  }
  if (thirdPartyUserId !== undefined && thirdPartyUserId.length > 256) {
    errors.push(`thirdPartyUserId ${thirdPartyUserId} is too long. Max length is 256.`);
  }
  return {
    tenantIds: common.tenantIds,
    isVerified: common.isVerified,
    isPrimary: common.isPrimary,
    timeJoinedInMSSinceEpoch: common.timeJoinedInMSSinceEpoch,
    recipeId: 'thirdparty',
    email: email ?? '',
    thirdPartyId: thirdPartyId ?? '',
    thirdPartyUserId: thirdPartyUserId ?? '',
    superTokensUserId,
  };
}

function parsePasswordless(
  element: JsonObject,
  common: CommonLoginMethodFields,
  superTokensUserId: string,
  errors: string[],
): PasswordlessImportLoginMethod {
  const rawEmail = readString(element, 'email', false, errors, SUFFIX_PASSWORDLESS);
  const rawPhone = readString(element, 'phoneNumber', false, errors, SUFFIX_PASSWORDLESS);

  const email = validateAndNormaliseEmail(rawEmail, errors);
  let phoneNumber: string | undefined;
  if (rawPhone !== undefined) {
    if (rawPhone.length > 256) errors.push(`phoneNumber ${rawPhone} is too long. Max length is 256.`);
    phoneNumber = normalisePhoneNumber(rawPhone);
  }
  if (email === undefined && phoneNumber === undefined) errors.push(M.emailOrPhoneRequired);

  const lm = {
    tenantIds: common.tenantIds,
    isVerified: common.isVerified,
    isPrimary: common.isPrimary,
    timeJoinedInMSSinceEpoch: common.timeJoinedInMSSinceEpoch,
    recipeId: 'passwordless',
  } as PasswordlessImportLoginMethod;
  if (email !== undefined) lm.email = email;
  if (phoneNumber !== undefined) lm.phoneNumber = phoneNumber;
  lm.superTokensUserId = superTokensUserId;
  return lm;
}

// ------------------------------------------------------------------------------------------------
// Public API

function dedupe(values: string[]): string[] {
  if (values.length < 2) return values;
  const out: string[] = [];
  for (const value of values) if (!out.includes(value)) out.push(value);
  return out;
}

/**
 * One entry per role, its tenants de-duplicated: giving a role twice assigns it once (two
 * assignments of one role in one tenant would be two writes of one item in the user's
 * transaction, which DynamoDB refuses).
 */
function mergeRoles(roles: readonly ImportUserRole[]): ImportUserRole[] {
  const byRole = new Map<string, ImportUserRole>();
  for (const { role, tenantIds } of roles) {
    const merged = byRole.get(role);
    if (merged) merged.tenantIds = dedupe([...merged.tenantIds, ...tenantIds]);
    else byRole.set(role, { role, tenantIds: dedupe(tenantIds) });
  }
  return [...byRole.values()];
}

/**
 * `LoginMethod '<json>' has no tenantId` renders the normalised login method as JSON, its
 * credentials (`passwordHash`, `plainTextPassword`) replaced by the marker.
 */
function describeLoginMethod(lm: ImportLoginMethod): string {
  return JSON.stringify(lm, (key, value) =>
    (key === 'passwordHash' || key === 'plainTextPassword') && typeof value === 'string' ? SECRET_MARKER : value,
  );
}

/**
 * Validates and normalises one import user (docs/reference-behaviour.md "Validating an import user"). On success the user carries generated ids and all
 * defaults; on failure every error is reported, in the reference's order.
 */
export function validateImportUser(
  raw: unknown,
  ctx: ImportValidationContext,
  options: ValidateImportUserOptions = {},
): ValidateImportUserResult {
  if (!isJsonObject(raw)) return { ok: false, errors: [M.userNotObject] };
  const errors: string[] = [];
  const idMode = options.idMode ?? 'generate';

  // #1–#5
  const rawExternalUserId = readString(raw, 'externalUserId', false, errors, SUFFIX_USER);
  const userMetadata = readObject(raw, 'userMetadata', false, errors, SUFFIX_USER);
  const metadataIssue = userMetadata === undefined ? undefined : metadataProblem(userMetadata);
  if (metadataIssue) errors.push(metadataProblemMessage(metadataIssue, 'userMetadata'));
  const userRoles = parseUserRoles(raw, ctx, errors);
  const totpDevices = parseTotpDevices(raw, ctx, errors);
  const { loginMethods, withoutTenants } = parseLoginMethods(raw, ctx, errors, idMode);

  // #6 externalUserId length and uniqueness within the request (exact raw value)
  let externalUserId: string | undefined;
  if (rawExternalUserId !== undefined) {
    if (rawExternalUserId.length > 128) {
      errors.push(`externalUserId ${rawExternalUserId} is too long. Max length is 128.`);
    }
    const seen = options.seenExternalUserIds;
    if (seen !== undefined) {
      if (seen.has(rawExternalUserId)) {
        errors.push(`externalUserId ${rawExternalUserId} is not unique. It is already used by another user.`);
      } else {
        seen.add(rawExternalUserId);
      }
    }
    externalUserId = rawExternalUserId.trim();
  }

  // #7 role tenants must be tenants of some login method; every login method needs a tenant.
  // (All tenants of an app share one database here, so the reference's same-database rule cannot fire.)
  for (const { tenantIds } of userRoles) {
    for (const tenantId of tenantIds) {
      if (tenantId !== PUBLIC_TENANT_ID && !loginMethods.some((lm) => lm.tenantIds.includes(tenantId))) {
        errors.push(`TenantId ${tenantId} for a user role does not exist in loginMethods.`);
      }
    }
  }
  // Only an explicit `[]` counts: a list whose every entry was rejected already carries those errors (the
  // reference's tests expect `Invalid tenantId: …` / `Multitenancy must be enabled …` alone in that case).
  for (const lm of withoutTenants) errors.push(`LoginMethod '${describeLoginMethod(lm)}' has no tenantId`);

  if (errors.length > 0) return { ok: false, errors };

  // Built in the reference's key order; optional keys are omitted rather than set to undefined.
  const user = { id: getPrimaryLoginMethod(loginMethods).superTokensUserId } as ImportUser;
  if (externalUserId !== undefined) user.externalUserId = externalUserId;
  if (userMetadata !== undefined) user.userMetadata = userMetadata;
  user.userRoles = mergeRoles(userRoles);
  user.totpDevices = totpDevices;
  user.loginMethods = loginMethods;
  const unimportable = options.staging ? ctx.stagedImportProblem?.(user) : undefined;
  if (unimportable !== undefined) return { ok: false, errors: [unimportable] };
  return { ok: true, user };
}
