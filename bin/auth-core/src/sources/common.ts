/**
 * Field helpers shared by the converters: emails as the core normalises them, phone numbers in
 * E.164, timestamps from the shapes providers write, third-party provider names.
 */
import {
  e164PhoneNumber,
  type HashingAlgorithm,
  isJsonObject,
  type JsonObject,
  normaliseEmail,
  PUBLIC_TENANT_ID,
  type WireImportUser,
  type WireLoginMethod,
} from '../contract.js';

/** A non-blank string, trimmed; anything else (null, '', numbers, objects) is undefined. */
export function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** A string id; numeric ids (some providers write them as JSON numbers) become their decimal text. */
export function idText(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return text(value);
}

/** A field's email as the core stores it (the contract's normaliseEmail); undefined when blank or not text. */
export function emailOf(value: unknown): string | undefined {
  const raw = text(value);
  return raw === undefined ? undefined : normaliseEmail(raw);
}

/**
 * A field's phone number as the core stores it — E.164, the contract's rule (functions/contract/
 * phone-numbers.ts) — when it parses as an international number; undefined otherwise (the
 * converters refuse such a record: the core would keep the text as given, a login no SMS reaches).
 * `assumePlus`: the source stores numbers without the leading `+` (Supabase).
 */
export function phoneNumberOf(value: unknown, assumePlus = false): string | undefined {
  const raw = idText(value);
  if (raw === undefined) return undefined;
  return e164PhoneNumber(assumePlus && !raw.startsWith('+') ? `+${raw}` : raw);
}

/** True for JSON `true` and the spellings CSV writers use (`t`, `true`, `1`, `yes`). */
export function truthy(value: unknown): boolean {
  if (value === true) return true;
  if (typeof value === 'number') return value === 1;
  if (typeof value !== 'string') return false;
  return ['t', 'true', '1', 'yes', 'y'].includes(value.trim().toLowerCase());
}

// PostgreSQL's text form of timestamptz: `2024-06-29 20:25:06.126079+00` (offset may be +05:30 or +0530).
const POSTGRES_TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * Milliseconds since the epoch from: a number or numeric string (ms), an ISO-8601 string, PostgreSQL's
 * timestamptz text, or MongoDB extended JSON `{"$date": …}`. Undefined when absent or unreadable.
 */
export function timeMs(value: unknown): number | undefined {
  if (isJsonObject(value) && '$date' in value) return timeMs(value.$date);
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.trunc(value) : undefined;
  const raw = text(value);
  if (raw === undefined) return undefined;
  if (/^\d+$/.test(raw)) {
    const ms = Number(raw);
    return Number.isSafeInteger(ms) ? ms : undefined;
  }
  let iso = raw;
  const pg = POSTGRES_TIMESTAMP.exec(raw);
  if (pg) {
    const fraction = (pg[3] ?? '').slice(0, 4);
    let zone = pg[4] ?? 'Z';
    if (/^[+-]\d{2}$/.test(zone)) zone = `${zone}:00`;
    else if (/^[+-]\d{4}$/.test(zone)) zone = `${zone.slice(0, 3)}:${zone.slice(3)}`;
    iso = `${pg[1]}T${pg[2]}${fraction}${zone}`;
  }
  const ms = Date.parse(iso);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/** A JSON object given as an object or as JSON text (CSV columns); undefined otherwise. */
export function jsonObject(value: unknown): JsonObject | undefined {
  if (isJsonObject(value)) return value;
  const raw = text(value);
  if (raw === undefined || !raw.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    return isJsonObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** A list column: a JSON array, or text separated by `|`, `,` or `;` (CSV exports). */
export function listOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => (text(v) === undefined ? [] : [text(v) as string]));
  const raw = text(value);
  if (raw === undefined) return [];
  if (raw.startsWith('[')) {
    try {
      return listOf(JSON.parse(raw));
    } catch {
      // Not JSON: fall through to separators.
    }
  }
  return raw
    .split(/[|,;]/)
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** `--provider-map google-oauth2=google,oidc-x=acme` → map (later entries win). */
export function parseProviderMap(spec: string | undefined): Map<string, string> {
  const map = new Map<string, string>();
  if (spec === undefined) return map;
  for (const pair of spec.split(',')) {
    if (pair.trim() === '') continue;
    const eq = pair.indexOf('=');
    const from = eq < 0 ? '' : pair.slice(0, eq).trim();
    const to = eq < 0 ? '' : pair.slice(eq + 1).trim();
    if (from === '' || to === '')
      throw new Error(`--provider-map: "${pair.trim()}" is not of the form name=thirdPartyId`);
    map.set(from, to);
  }
  return map;
}

/** What every converter is given besides the record. */
export interface ConvertOptions {
  /** The tenant the users go to (`public` = the core's default, left out of the payload). */
  readonly tenantId: string;
  /** Provider name → thirdPartyId overrides (`--provider-map`). */
  readonly providerMap: ReadonlyMap<string, string>;
  /**
   * `--password-hook`: a user whose export carries no password hash goes in pending the app's
   * password-migration hook (docs/migration-command.md "Users without a hash: --password-hook") instead of being refused.
   */
  readonly passwordHook?: boolean;
}

/** What a refusal for a missing hash adds, so the report names the way out. */
export const PASSWORD_HOOK_HINT =
  'give --password-hook to import it pending the password-migration hook (the old system then checks its password at first sign-in)';

/** An email-and-password login method without a hash, pending the password-migration hook. */
export function pendingPasswordMethod(time: number | undefined, email: string, isVerified?: boolean): WireLoginMethod {
  return {
    ...methodAt(time),
    email,
    ...(isVerified !== undefined ? { isVerified } : {}),
    passwordMigration: 'hook',
  };
}

/** The source's provider name as a thirdPartyId: `--provider-map` first, then the source's defaults. */
export function thirdPartyIdFor(
  provider: string,
  defaults: Readonly<Record<string, string>>,
  options: ConvertOptions,
): string {
  return options.providerMap.get(provider) ?? defaults[provider] ?? provider;
}

/**
 * Adds the common fields to a user's login methods: the tenant (unless `public`), and `isPrimary` on the
 * first one when there are several (they are then linked under it; the app needs account linking).
 */
export function finishLoginMethods(methods: WireLoginMethod[], options: ConvertOptions): WireLoginMethod[] {
  return methods.map((method, index) => {
    const out: WireLoginMethod = { recipeId: method.recipeId };
    if (options.tenantId !== PUBLIC_TENANT_ID) out.tenantIds = [options.tenantId];
    if (method.isVerified !== undefined) out.isVerified = method.isVerified;
    if (methods.length > 1 && index === 0) out.isPrimary = true;
    if (method.timeJoinedInMSSinceEpoch !== undefined) out.timeJoinedInMSSinceEpoch = method.timeJoinedInMSSinceEpoch;
    if (method.email !== undefined) out.email = method.email;
    if (method.passwordHash !== undefined) out.passwordHash = method.passwordHash;
    if (method.hashingAlgorithm !== undefined) out.hashingAlgorithm = method.hashingAlgorithm;
    if (method.passwordMigration !== undefined) out.passwordMigration = method.passwordMigration;
    if (method.thirdPartyId !== undefined) out.thirdPartyId = method.thirdPartyId;
    if (method.thirdPartyUserId !== undefined) out.thirdPartyUserId = method.thirdPartyUserId;
    if (method.phoneNumber !== undefined) out.phoneNumber = method.phoneNumber;
    return out;
  });
}

/** A fresh login method carrying the record's time joined (the recipe is set by the caller). */
export function methodAt(time: number | undefined): WireLoginMethod {
  const method: WireLoginMethod = { recipeId: 'emailpassword' };
  if (time !== undefined) method.timeJoinedInMSSinceEpoch = time;
  return method;
}

/** An email-and-password login method from a converted hash (`isVerified` only when the source says). */
export function passwordMethod(
  time: number | undefined,
  email: string,
  hash: { readonly passwordHash: string; readonly hashingAlgorithm: HashingAlgorithm },
  isVerified?: boolean,
): WireLoginMethod {
  return {
    ...methodAt(time),
    email,
    ...(isVerified !== undefined ? { isVerified } : {}),
    passwordHash: hash.passwordHash,
    hashingAlgorithm: hash.hashingAlgorithm,
  };
}

/** The keys of `record` that hold non-blank text, trimmed (metadata copied as the source has it). */
export function textFields(record: JsonObject, keys: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const key of keys) {
    const value = text(record[key]);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** Sets the user's metadata unless it is empty (the payload carries no empty object); returns the user. */
export function withMetadata(user: WireImportUser, metadata: JsonObject): WireImportUser {
  if (Object.keys(metadata).length > 0) user.userMetadata = metadata;
  return user;
}

const BCRYPT = /^\$2[abxy]\$\d{2}\$[./A-Za-z0-9]{53}$/;
const ARGON2 = /^\$argon2(id|i|d)\$/;

export function isBcrypt(hash: string): boolean {
  return BCRYPT.test(hash);
}

export function isArgon2(hash: string): boolean {
  return ARGON2.test(hash);
}

/**
 * A user's keys in the order docs/migrating.md "The import payload" shows (externalUserId, userMetadata, userRoles,
 * totpDevices, loginMethods), so a chunk's JSON is the same from one run to the next.
 */
export function inPayloadOrder(user: WireImportUser): WireImportUser {
  const { externalUserId, userMetadata, userRoles, totpDevices, loginMethods } = user;
  return {
    ...(externalUserId !== undefined ? { externalUserId } : {}),
    ...(userMetadata !== undefined ? { userMetadata } : {}),
    ...(userRoles !== undefined ? { userRoles } : {}),
    ...(totpDevices !== undefined ? { totpDevices } : {}),
    loginMethods,
  };
}
