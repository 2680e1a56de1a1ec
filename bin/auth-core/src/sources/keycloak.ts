/**
 * Keycloak: the users of a realm export (`kc.sh export --realm <realm>`): `<realm>-users-<n>.json`
 * (`{"realm": …, "users": [...]}`) or the realm file itself when it holds the users
 * (`--users realm_file`). A password credential's `secretData` and `credentialData` are JSON written
 * as strings (`{"value","salt"}`, `{"hashIterations","algorithm","additionalParameters"}`); exports of
 * Keycloak before 7 put `hashedSaltedValue`, `salt`, `hashIterations` and `algorithm` on the
 * credential itself. Both are read.
 *
 * Second factors: an `otp` credential (`credentialData` `{"subType","digits","counter","period",
 * "algorithm","secretEncoding"}`, `secretData` `{"value"}`; before Keycloak 7 a `totp` / `hotp`
 * credential with `value`, `digits`, `period`, `algorithm` on it) becomes a TOTP device when it is
 * time-based, HmacSHA1 and 6 digits. Keycloak keys the HMAC with the UTF-8 bytes of `value`, or with
 * `value` decoded as base32 when `secretEncoding` is `BASE32`; either way the device gets those bytes
 * as base32. Other OTP credentials and other second factors (WebAuthn, recovery codes) are reported.
 */
import type { WireImportUser, WireLoginMethod, WireUserRole } from '../contract.js';
import { isJsonObject, type JsonObject } from '../contract.js';
import {
  type ConvertOptions,
  emailOf,
  finishLoginMethods,
  idText,
  inPayloadOrder,
  jsonObject,
  methodAt,
  PASSWORD_HOOK_HINT,
  passwordMethod,
  pendingPasswordMethod,
  text,
  textFields,
  thirdPartyIdFor,
  timeMs,
  withMetadata,
} from './common.js';
import { type Conversion, converted, rejected } from './conversion.js';
import {
  base64Bytes,
  decimal,
  type HashConversion,
  kratosPbkdf2,
  noHash,
  type Pbkdf2Digest,
  phcArgon2,
} from './hashes.js';
import { hasKey, type SourceDefinition } from './source.js';
import { base32Secret, canonicalBase32, DeviceNames, quotedLabel, type SecondFactors, totpDevice } from './totp.js';

/** Keycloak's PBKDF2 provider ids → the HMAC digest (`pbkdf2` is Keycloak's original PBKDF2WithHmacSHA1). */
const PBKDF2_ALGORITHMS: Readonly<Record<string, Pbkdf2Digest>> = {
  pbkdf2: 'sha1',
  'pbkdf2-sha256': 'sha256',
  'pbkdf2-sha512': 'sha512',
};

/** Keycloak's Argon2 `type` parameter → the PHC variant. */
const ARGON2_TYPES: Readonly<Record<string, 'argon2id' | 'argon2i' | 'argon2d'>> = {
  id: 'argon2id',
  i: 'argon2i',
  d: 'argon2d',
};

/**
 * Realm roles every Keycloak user holds by default, which mean nothing outside Keycloak:
 * `default-roles-<realm>` (Keycloak ≥ 13), `offline_access`, `uma_authorization`.
 */
function isKeycloakBuiltInRole(role: string): boolean {
  return role.startsWith('default-roles-') || role === 'offline_access' || role === 'uma_authorization';
}

/**
 * Keycloak's default identity-provider aliases → SuperTokens thirdPartyIds where they differ; other
 * aliases (an alias is the admin's choice) are kept. Keycloak's LinkedIn provider is
 * `linkedin-openid-connect`, and it keeps LinkedIn's OpenID Connect `sub` as the user id, which is
 * what supertokens-node's `linkedin` provider reports.
 */
const KEYCLOAK_PROVIDERS: Readonly<Record<string, string>> = {
  'linkedin-openid-connect': 'linkedin',
};

export interface KeycloakOptions extends ConvertOptions {
  /** `--with-roles`: realm roles become the user's roles (in the target tenant). */
  readonly withRoles: boolean;
}

/** First value of a Keycloak multivalued parameter (`{"memory": ["7168"]}`). */
function parameter(parameters: JsonObject | undefined, name: string): string | undefined {
  const value = parameters?.[name];
  return text(Array.isArray(value) ? value[0] : value);
}

/** A password credential → the core's hash form. */
export function keycloakPasswordHash(credential: JsonObject): HashConversion {
  const secret = jsonObject(credential.secretData);
  const data = jsonObject(credential.credentialData);
  // Keycloak before 7 (no secretData/credentialData): the same values on the credential.
  const value = text(secret?.value ?? credential.hashedSaltedValue);
  const saltText = text(secret?.salt ?? credential.salt);
  const algorithm = text(data?.algorithm ?? credential.algorithm);
  const iterations = decimal(String(data?.hashIterations ?? credential.hashIterations ?? ''));
  if (value === undefined || algorithm === undefined)
    return noHash('the password credential has no value or algorithm');
  const key = base64Bytes(value);
  const salt = saltText === undefined ? undefined : base64Bytes(saltText);
  if (!key || key.length === 0 || !salt || iterations === undefined)
    return noHash(`the ${algorithm.slice(0, 30)} password credential is malformed`);
  const digest = Object.hasOwn(PBKDF2_ALGORITHMS, algorithm) ? PBKDF2_ALGORITHMS[algorithm] : undefined;
  if (digest) return kratosPbkdf2(digest, iterations, salt, key);
  if (algorithm === 'argon2') {
    const parameters = jsonObject(data?.additionalParameters);
    const type = parameter(parameters, 'type') ?? 'id';
    const version = parameter(parameters, 'version') ?? '1.3';
    const variant = Object.hasOwn(ARGON2_TYPES, type) ? ARGON2_TYPES[type] : undefined;
    const memoryKiB = decimal(parameter(parameters, 'memory'));
    const parallelism = decimal(parameter(parameters, 'parallelism'));
    const hashLength = decimal(parameter(parameters, 'hashLength'));
    if (version !== '1.3') return noHash(`Argon2 version ${version.slice(0, 10)} is not supported (only 1.3)`);
    if (
      !variant ||
      memoryKiB === undefined ||
      parallelism === undefined ||
      (hashLength !== undefined && hashLength !== key.length)
    )
      return noHash('the argon2 password credential is malformed');
    return phcArgon2(variant, { memoryKiB, iterations, parallelism }, salt, key);
  }
  return noHash(
    `password algorithm ${algorithm.slice(0, 30)} is not one the core reads (pbkdf2, pbkdf2-sha256, pbkdf2-sha512, argon2)`,
  );
}

/** Keycloak's OTP algorithm names; the core's TOTP is HmacSHA1. */
const KEYCLOAK_TOTP_ALGORITHM = 'HmacSHA1';
const KEYCLOAK_TOTP_DIGITS = 6;
/** Keycloak's default look-ahead window (realm setting `otpPolicyLookAheadWindow`, not in the users file). */
const KEYCLOAK_SKEW = 1;

/** Credential types that are neither a password nor a second factor (nothing is lost without them). */
const NOT_A_FACTOR = new Set(['password', 'password-history']);

/** A number from a credential field (JSON number or decimal text); undefined when absent. */
function credentialNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  const raw = text(value);
  return raw === undefined || !/^-?\d+$/.test(raw) ? undefined : Number(raw);
}

/** The user's OTP credentials as TOTP devices, and a message per credential that cannot be carried. */
function keycloakSecondFactors(credentials: readonly JsonObject[]): SecondFactors {
  const devices: SecondFactors['devices'] = [];
  const leftBehind: string[] = [];
  const names = new DeviceNames('keycloak');
  for (const credential of credentials) {
    const type = text(credential.type)?.toLowerCase() ?? '';
    if (NOT_A_FACTOR.has(type)) continue;
    const label = text(credential.userLabel) ?? text(credential.device);
    const what = `the ${type.slice(0, 40) || 'untyped'} credential${quotedLabel(label)}`;
    if (type !== 'otp' && type !== 'totp' && type !== 'hotp') {
      leftBehind.push(`${what} cannot be carried: the core imports TOTP devices only; the user sets it up again`);
      continue;
    }
    const data = jsonObject(credential.credentialData);
    const secret = jsonObject(credential.secretData);
    const subType = type === 'otp' ? (text(data?.subType)?.toLowerCase() ?? 'totp') : type;
    if (subType !== 'totp') {
      leftBehind.push(
        `${what} is counter-based (HOTP): the core's TOTP devices are time-based, so it cannot be carried; the user sets up a second factor again`,
      );
      continue;
    }
    const algorithm = text(data?.algorithm ?? credential.algorithm) ?? KEYCLOAK_TOTP_ALGORITHM;
    const digits = credentialNumber(data?.digits ?? credential.digits) ?? KEYCLOAK_TOTP_DIGITS;
    const period = credentialNumber(data?.period ?? credential.period) ?? 30;
    if (algorithm !== KEYCLOAK_TOTP_ALGORITHM) {
      leftBehind.push(
        `${what} uses ${algorithm.slice(0, 20)}: the core's TOTP verifies ${KEYCLOAK_TOTP_ALGORITHM} only, so it cannot be carried; the user sets up a second factor again`,
      );
      continue;
    }
    if (digits !== KEYCLOAK_TOTP_DIGITS) {
      leftBehind.push(
        `${what} has ${digits} digits: the core's TOTP checks ${KEYCLOAK_TOTP_DIGITS}, so it cannot be carried; the user sets up a second factor again`,
      );
      continue;
    }
    if (!Number.isSafeInteger(period) || period < 1) {
      leftBehind.push(`${what} has no valid period: it cannot be carried`);
      continue;
    }
    const value =
      typeof (secret?.value ?? credential.value) === 'string' ? String(secret?.value ?? credential.value) : '';
    const encoding = text(data?.secretEncoding)?.toUpperCase();
    const secretKey =
      encoding === undefined
        ? base32Secret(Buffer.from(value, 'utf8'))
        : encoding === 'BASE32'
          ? canonicalBase32(value)
          : undefined;
    if (secretKey === undefined) {
      leftBehind.push(
        encoding !== undefined && encoding !== 'BASE32'
          ? `${what} has a secret in an encoding the command does not read (${encoding.slice(0, 20)}): it cannot be carried`
          : `${what} has no usable secret (empty, not ${encoding === 'BASE32' ? 'base32' : 'text'}, or longer than the core takes): it cannot be carried`,
      );
      continue;
    }
    devices.push(totpDevice(secretKey, period, KEYCLOAK_SKEW, names.next(label)));
  }
  return { devices, leftBehind };
}

export const keycloak: SourceDefinition = {
  name: 'keycloak',
  pendsWithoutHash: true,
  flags: [{ flags: '--with-roles', description: 'realm roles become user roles (they must exist in the app)' }],
  // `{"realm": …, "users": [...]}` (the users file or the realm file), or a JSON array of users.
  layout: (detected) => (detected === 'json-array' ? 'json-array' : 'json-users'),
  checkFirst: (value) =>
    hasKey(value, 'username') ? undefined : 'no "username": not a user of a Keycloak realm export',
  async open(_exportPath, _layout, settings) {
    const withRoles = settings.withRoles === true;
    return {
      convert: (value) => convertKeycloak(value, { ...settings, withRoles }),
      inputDigests: withRoles ? ['with-roles'] : [],
      notes: withRoles ? ['realm roles become user roles (--with-roles); they must exist in the app'] : [],
    };
  },
};

/** One user of a Keycloak realm export → the import payload, or the reasons it cannot be imported. */
export function convertKeycloak(record: unknown, options: KeycloakOptions): Conversion {
  if (!isJsonObject(record)) return rejected(undefined, 'the user is not a JSON object');
  const id = idText(record.id);
  if (id === undefined) return rejected(undefined, 'id is missing');
  const client = text(record.serviceAccountClientId);
  if (client !== undefined) return rejected(id, `the user is the service account of client ${client.slice(0, 60)}`);
  const email = emailOf(record.email);
  const time = timeMs(record.createdTimestamp);
  const methods: WireLoginMethod[] = [];
  const problems: string[] = [];

  const credentials = Array.isArray(record.credentials) ? record.credentials.filter(isJsonObject) : [];
  const password = credentials.find((c) => text(c.type) === 'password');
  if (password) {
    const hash = keycloakPasswordHash(password);
    if (!hash.ok) problems.push(hash.reason);
    else if (email === undefined) problems.push('the user has a password but no email address');
    else {
      methods.push(passwordMethod(time, email, hash, record.emailVerified === true));
    }
  }

  const identities = Array.isArray(record.federatedIdentities) ? record.federatedIdentities.filter(isJsonObject) : [];
  for (const identity of identities) {
    const provider = text(identity.identityProvider);
    const providerUserId = idText(identity.userId);
    if (provider === undefined || providerUserId === undefined) {
      problems.push('a federated identity has no identityProvider or userId');
      continue;
    }
    if (email === undefined) {
      problems.push(`the ${provider} identity has no email (the core needs one for a third-party login)`);
      continue;
    }
    methods.push({
      ...methodAt(time),
      recipeId: 'thirdparty',
      email,
      isVerified: record.emailVerified === true,
      thirdPartyId: thirdPartyIdFor(provider, KEYCLOAK_PROVIDERS, options),
      thirdPartyUserId: providerUserId,
    });
  }

  // No password credential: the password is kept elsewhere (a user federation provider) or nowhere
  // the export reaches. With --password-hook such a user goes in pending the hook; a user who signs
  // in only through identity providers is left as it is.
  const federated = record.federationLink !== undefined && record.federationLink !== null;
  const withoutPassword = !password && email !== undefined && (federated || identities.length === 0);
  if (withoutPassword && options.passwordHook)
    methods.unshift(pendingPasswordMethod(time, email, record.emailVerified === true));

  if (problems.length > 0) return rejected(id, ...problems);
  if (methods.length === 0) {
    const hint = email === undefined ? '' : `; ${PASSWORD_HOOK_HINT}`;
    return rejected(
      id,
      federated
        ? `the user's password is kept by a user federation provider (LDAP, Kerberos), not in the export${hint}`
        : `the user has no password and no identity provider link${hint}`,
    );
  }

  const user: WireImportUser = { externalUserId: id, loginMethods: finishLoginMethods(methods, options) };
  const metadata: Record<string, unknown> = {};
  const username = text(record.username);
  if (username !== undefined && username !== email) metadata.username = username;
  Object.assign(metadata, textFields(record, ['firstName', 'lastName']));
  if (isJsonObject(record.attributes) && Object.keys(record.attributes).length > 0)
    metadata.attributes = record.attributes;
  const groups = Array.isArray(record.groups) ? record.groups.filter((g) => typeof g === 'string') : [];
  if (groups.length > 0) metadata.groups = groups;
  if (record.enabled === false) metadata.disabled = true;
  withMetadata(user, metadata);
  if (options.withRoles) {
    const realmRoles = Array.isArray(record.realmRoles) ? record.realmRoles : [];
    const roles = [...new Set(realmRoles.flatMap((r) => (text(r) === undefined ? [] : [text(r) as string])))].filter(
      (role) => !isKeycloakBuiltInRole(role),
    );
    if (roles.length > 0) user.userRoles = roles.map((role): WireUserRole => ({ role, tenantIds: [options.tenantId] }));
  }
  const factors = keycloakSecondFactors(credentials);
  if (factors.devices.length > 0) user.totpDevices = factors.devices;
  return converted(inPayloadOrder(user), id, factors.leftBehind);
}
