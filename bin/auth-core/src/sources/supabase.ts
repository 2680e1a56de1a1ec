/**
 * Supabase: rows of `auth.users` (CSV with a header as `\copy … csv header` writes it, a JSON array or
 * NDJSON), optionally with rows of `auth.identities` (`--identities`) for third-party logins.
 * PostgreSQL's CSV writes NULL as an empty field and booleans as `t` / `f`; Supabase stores phone
 * numbers without the leading `+`.
 *
 * Second factors: rows of `auth.mfa_factors` (`--factors`: `id`, `user_id`, `friendly_name`,
 * `factor_type` `totp` | `phone` | `webauthn`, `status` `verified` | `unverified`, `secret`, …).
 * A verified TOTP factor becomes a TOTP device (Supabase's TOTP: base32 secret, SHA-1, 6 digits,
 * 30 s, one step of skew); a secret Supabase encrypted at rest (JSON `{"key_id","alg":"aes-gcm-hkdf",…}`,
 * when its database encryption is on) cannot be read without Supabase's key, and phone and WebAuthn
 * factors cannot be carried: each is reported. Unverified factors were never usable and are skipped.
 */
import type { WireImportUser, WireLoginMethod } from '../contract.js';
import { isJsonObject } from '../contract.js';
import { usageError } from '../errors.js';
import { detectLayout, fileDigest, recordsOf } from '../input.js';
import { maskPhone } from '../personal.js';
import {
  type ConvertOptions,
  emailOf,
  finishLoginMethods,
  idText,
  inPayloadOrder,
  isBcrypt,
  jsonObject,
  methodAt,
  phoneNumberOf,
  text,
  thirdPartyIdFor,
  timeMs,
  truthy,
  withMetadata,
} from './common.js';
import { type Conversion, converted, rejected } from './conversion.js';
import { fileSetting, hasKey, type SourceDefinition } from './source.js';
import { canonicalBase32, DeviceNames, quotedLabel, type SecondFactors, totpDevice } from './totp.js';

export const supabase: SourceDefinition = {
  name: 'supabase',
  flags: [
    { flags: '--identities <file>', description: 'rows of auth.identities (CSV, JSON array or NDJSON)' },
    {
      flags: '--factors <file>',
      description: 'rows of auth.mfa_factors (CSV, JSON array or NDJSON): TOTP factors are carried',
    },
  ],
  layout: (detected) => detected,
  checkFirst: (value) => (hasKey(value, 'id') ? undefined : 'no "id" column or field: not rows of auth.users'),
  async open(_exportPath, _layout, settings) {
    const identitiesPath = fileSetting(settings, 'identities');
    const factorsPath = fileSetting(settings, 'factors');
    const identities = identitiesPath
      ? await rowsByUser(identitiesPath, 'the identities file', (row) => {
          const found = supabaseIdentity(row);
          return found && { userId: found.userId, item: found.identity };
        })
      : new Map<string, SupabaseIdentity[]>();
    const factors = factorsPath
      ? await rowsByUser(factorsPath, 'the factors file', (row) => {
          const found = supabaseFactor(row);
          return found && { userId: found.userId, item: found.factor };
        })
      : new Map<string, SupabaseFactor[]>();
    let totpUsers = 0;
    for (const list of factors.values()) if (list.some((f) => f.type === 'totp')) totpUsers += 1;
    const notes: string[] = [];
    if (identitiesPath) notes.push(`third-party identities of ${identities.size} users in ${identitiesPath}`);
    notes.push(
      factorsPath
        ? `verified second factors of ${factors.size} users in ${factorsPath} (${totpUsers} with TOTP)`
        : 'no --factors given: second factors (auth.mfa_factors) are not read, and users who had them go in without them',
    );
    return {
      convert: (value) =>
        convertSupabase(value, {
          ...settings,
          identitiesOf: (id) => identities.get(id) ?? [],
          factorsOf: (id) => factors.get(id) ?? [],
        }),
      inputDigests: [
        ...(identitiesPath ? [await fileDigest(identitiesPath)] : []),
        ...(factorsPath ? [`factors:${await fileDigest(factorsPath)}`] : []),
      ],
      notes,
      totpUsersKnown: totpUsers,
    };
  },
};

/** Rows of a side file (CSV with a header, a JSON array or NDJSON) grouped by the user they belong to. */
async function rowsByUser<T>(
  path: string,
  what: string,
  read: (row: unknown) => { userId: string; item: T } | undefined,
): Promise<Map<string, T[]>> {
  const byUser = new Map<string, T[]>();
  const layout = await detectLayout(path).catch(() => {
    throw usageError(`cannot read ${what} ${path}`);
  });
  for await (const record of recordsOf(path, layout)) {
    if (!('value' in record)) continue;
    const found = read(record.value);
    if (!found) continue;
    const list = byUser.get(found.userId) ?? [];
    list.push(found.item);
    byUser.set(found.userId, list);
  }
  return byUser;
}

/** Supabase provider names → SuperTokens thirdPartyIds where they differ; others keep Supabase's name. */
const SUPABASE_PROVIDERS: Readonly<Record<string, string>> = {
  linkedin_oidc: 'linkedin',
};

/** Identity providers that are not third-party logins (the user row itself carries them). */
const OWN_PROVIDERS = new Set(['email', 'phone']);

/** A third-party identity of a user, from `auth.identities`. */
export interface SupabaseIdentity {
  readonly provider: string;
  readonly providerId: string;
  readonly email: string | undefined;
}

/**
 * One row of `auth.identities` → the user it belongs to and the third-party identity, or undefined for
 * rows that are not third-party logins (provider `email` / `phone`) or lack the ids.
 */
export function supabaseIdentity(row: unknown): { userId: string; identity: SupabaseIdentity } | undefined {
  if (!isJsonObject(row)) return undefined;
  const userId = idText(row.user_id);
  const provider = text(row.provider);
  if (userId === undefined || provider === undefined || OWN_PROVIDERS.has(provider)) return undefined;
  const data = jsonObject(row.identity_data);
  // Older rows have no provider_id column: the provider's id is `sub` (or `id`) in identity_data.
  const providerId = idText(row.provider_id) ?? idText(data?.sub) ?? idText(data?.provider_id) ?? idText(row.id);
  if (providerId === undefined) return undefined;
  return {
    userId,
    identity: { provider, providerId, email: emailOf(data?.email) ?? emailOf(row.email) },
  };
}

/** A verified second factor of a user, from `auth.mfa_factors`. */
export interface SupabaseFactor {
  readonly type: string;
  readonly friendlyName: string | undefined;
  /** The `secret` column as written (TOTP only; never quoted). */
  readonly secret: string | undefined;
}

/** Supabase's TOTP parameters (GoTrue: pquerna/otp defaults). */
const SUPABASE_TOTP_PERIOD = 30;
const SUPABASE_TOTP_SKEW = 1;

/**
 * One row of `auth.mfa_factors` → the user it belongs to and the factor, or undefined for rows that
 * lack a user id or type, and for unverified factors (never usable, so nothing is lost).
 */
export function supabaseFactor(row: unknown): { userId: string; factor: SupabaseFactor } | undefined {
  if (!isJsonObject(row)) return undefined;
  const userId = idText(row.user_id);
  const type = text(row.factor_type)?.toLowerCase();
  if (userId === undefined || type === undefined) return undefined;
  if (text(row.status)?.toLowerCase() !== 'verified') return undefined;
  return {
    userId,
    factor: {
      type,
      friendlyName: text(row.friendly_name),
      secret: type === 'totp' ? text(row.secret) : undefined,
    },
  };
}

/** Whether a `secret` is GoTrue's encrypted-string JSON. */
function encryptedAtRest(secret: string): boolean {
  const parsed = jsonObject(secret);
  return parsed !== undefined && (text(parsed.alg) !== undefined || text(parsed.key_id) !== undefined);
}

/** A user's verified factors → TOTP devices, and a message per factor that cannot be carried. */
function supabaseSecondFactors(factors: readonly SupabaseFactor[]): SecondFactors {
  const devices: SecondFactors['devices'] = [];
  const leftBehind: string[] = [];
  const names = new DeviceNames('supabase');
  for (const factor of factors) {
    const what = `the ${factor.type.slice(0, 20)} factor${quotedLabel(factor.friendlyName)}`;
    if (factor.type !== 'totp') {
      leftBehind.push(
        `${what} cannot be carried (${factor.type === 'phone' ? 'the core has no SMS second factor' : 'the core imports TOTP devices only'}); the user enrols a second factor again`,
      );
      continue;
    }
    if (factor.secret !== undefined && encryptedAtRest(factor.secret)) {
      leftBehind.push(
        `${what} has a secret Supabase encrypted at rest (its database encryption key is not in the export): it cannot be carried`,
      );
      continue;
    }
    const secretKey = factor.secret === undefined ? undefined : canonicalBase32(factor.secret);
    if (secretKey === undefined) {
      leftBehind.push(`${what} has no base32 secret (or one longer than the core takes): it cannot be carried`);
      continue;
    }
    devices.push(totpDevice(secretKey, SUPABASE_TOTP_PERIOD, SUPABASE_TOTP_SKEW, names.next(factor.friendlyName)));
  }
  return { devices, leftBehind };
}

export interface SupabaseOptions extends ConvertOptions {
  /** The user's third-party identities (from `--identities`); empty when none. */
  readonly identitiesOf: (userId: string) => readonly SupabaseIdentity[];
  /** The user's verified second factors (from `--factors`); empty when none. */
  readonly factorsOf?: (userId: string) => readonly SupabaseFactor[];
}

/** One row of `auth.users` → the import payload, or the reasons it cannot be imported. */
export function convertSupabase(record: unknown, options: SupabaseOptions): Conversion {
  if (!isJsonObject(record)) return rejected(undefined, 'the row is not a JSON object');
  const id = idText(record.id);
  if (id === undefined) return rejected(undefined, 'id is missing');
  if (text(record.deleted_at) !== undefined) return rejected(id, 'the user is deleted (deleted_at is set)');
  const email = emailOf(record.email);
  const emailConfirmed = text(record.email_confirmed_at) !== undefined;
  const time = timeMs(record.created_at);
  const methods: WireLoginMethod[] = [];
  const problems: string[] = [];
  const base = () => methodAt(time);

  const password = text(record.encrypted_password);
  if (email !== undefined) {
    if (password !== undefined && isBcrypt(password)) {
      methods.push({
        ...base(),
        email,
        isVerified: emailConfirmed,
        passwordHash: password,
        hashingAlgorithm: 'BCRYPT',
      });
    } else if (password !== undefined) {
      problems.push('encrypted_password is not a bcrypt hash');
    } else {
      // No password: the user signs in with email links / one-time codes.
      methods.push({ ...base(), recipeId: 'passwordless', email });
    }
  } else if (password !== undefined) {
    problems.push('the user has a password but no email');
  }

  for (const identity of options.identitiesOf(id)) {
    const identityEmail = identity.email ?? email;
    if (identityEmail === undefined) {
      problems.push(`the ${identity.provider} identity has no email (the core needs one for a third-party login)`);
      continue;
    }
    const method: WireLoginMethod = {
      ...base(),
      recipeId: 'thirdparty',
      email: identityEmail,
      thirdPartyId: thirdPartyIdFor(identity.provider, SUPABASE_PROVIDERS, options),
      thirdPartyUserId: identity.providerId,
    };
    if (identityEmail === email) method.isVerified = emailConfirmed;
    methods.push(method);
  }

  const rawPhone = idText(record.phone);
  if (rawPhone !== undefined) {
    const phone = phoneNumberOf(rawPhone, true);
    if (phone === undefined) problems.push(`phone ${maskPhone(rawPhone)} is not a valid international number`);
    else methods.push({ ...base(), recipeId: 'passwordless', phoneNumber: phone });
  }

  if (problems.length > 0) return rejected(id, ...problems);
  if (methods.length === 0) {
    return rejected(
      id,
      truthy(record.is_anonymous)
        ? 'the user is anonymous (no email, phone or identity)'
        : 'the user has no email, phone number or third-party identity',
    );
  }

  const user: WireImportUser = { externalUserId: id, loginMethods: finishLoginMethods(methods, options) };
  const metadata: Record<string, unknown> = {};
  const userMeta = jsonObject(record.raw_user_meta_data);
  if (userMeta !== undefined && Object.keys(userMeta).length > 0) metadata.user_metadata = userMeta;
  const appMeta = jsonObject(record.raw_app_meta_data);
  if (appMeta !== undefined && Object.keys(appMeta).length > 0) metadata.app_metadata = appMeta;
  withMetadata(user, metadata);
  const factors = supabaseSecondFactors(options.factorsOf?.(id) ?? []);
  if (factors.devices.length > 0) user.totpDevices = factors.devices;
  return converted(inPayloadOrder(user), id, factors.leftBehind);
}
