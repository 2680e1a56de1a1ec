/**
 * The credentials a coreConfig can hold — `api_keys`, `firebase_password_hashing_signer_key` and
 * `password_migration_hook_secret` — and how they are stored, compared and shown (docs/security.md "Credentials at rest"):
 *
 * - `api_keys` is stored as the SHA-256 digest of each key, `sha256:<64 hex>`, comma-separated in
 *   the keys' order (the API-key check compares digests anyway);
 * - the signer key and the hook secret are stored sealed (AES-256-GCM under the credentials key, see
 *   functions/storage/tenant-credentials.ts) with its digest beside it:
 *   `sealed:v1:<64 hex SHA-256 of the value>:<Base64 of the sealed bytes>`;
 * - list and get responses show fingerprints instead: `sha256:<first 16 hex of the SHA-256 of the
 *   value (UTF-8)>`, one per API key (comma-separated, in order), one for the signer key;
 * - values stored in clear before this (and base config values, from the environment) are read
 *   the same way, and stored in the forms above on the next write of that config.
 *
 * None of these forms is a valid value a client may send: API keys cannot contain `:`, and a
 * fingerprint sent back is taken as "unchanged" only when it is the stored value's own
 * (see {@link resolveSecretUpdate}).
 */
import { createHash } from 'node:crypto';
import { fingerprintOfDigest } from '#functions/contract/credential-fingerprints.js';
import { BadRequestError } from '#functions/shared/errors.js';
import type { ConfigValues } from './layers.js';

export const API_KEYS_KEY = 'api_keys';
export const SIGNER_KEY_KEY = 'firebase_password_hashing_signer_key';
/** The password-migration hook's signing secret (docs/password-migration-hook.md): sealed like the signer key. */
export const HOOK_SECRET_KEY = 'password_migration_hook_secret';
/** The coreConfig keys whose values are credentials. */
const SECRET_CONFIG_KEYS: readonly string[] = [API_KEYS_KEY, SIGNER_KEY_KEY, HOOK_SECRET_KEY];
/** The secret keys stored sealed (every credential but the API keys, which are stored as digests). */
export const SEALED_CONFIG_KEYS: readonly string[] = [SIGNER_KEY_KEY, HOOK_SECRET_KEY];

const DIGEST = /^sha256:([0-9a-f]{64})$/;
const SEALED = /^sealed:v1:([0-9a-f]{64}):([A-Za-z0-9+/]+={0,2})$/;
const STORED_OR_SHOWN = /sha256:|sealed:v1:/;

export const sha256Hex = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

/** Splits an `api_keys` value into keys: whitespace removed, split on commas, empty entries dropped. */
export function parseApiKeys(value: string | null | undefined): string[] {
  if (!value) return [];
  return value
    .replace(/\s/g, '')
    .split(',')
    .filter((k) => k !== '');
}

/** Whether one entry of an `api_keys` value is a stored digest (`sha256:<64 hex>`) rather than a key. */
export const isApiKeyDigest = (part: string) => DIGEST.test(part);

/** The SHA-256 (hex) of each API key, in order, whether the value holds the keys or their digests. */
export function apiKeyDigestsHex(value: string | undefined): string[] {
  return parseApiKeys(value).map((part) => DIGEST.exec(part)?.[1] ?? sha256Hex(part));
}

/** `api_keys` as stored: every key replaced by its digest. */
export function storedApiKeys(value: string): string {
  return apiKeyDigestsHex(value)
    .map((hex) => `sha256:${hex}`)
    .join(',');
}

export interface SealedConfigValue {
  /** SHA-256 (hex) of the value in clear. */
  readonly digestHex: string;
  readonly sealed: Buffer;
}

/** A stored sealed value, or undefined when `value` is not one (a value in clear). */
export function parseSealedConfigValue(value: string): SealedConfigValue | undefined {
  const match = SEALED.exec(value);
  return match ? { digestHex: match[1] as string, sealed: Buffer.from(match[2] as string, 'base64') } : undefined;
}

export function formatSealedConfigValue(digestHex: string, sealed: Uint8Array): string {
  return `sealed:v1:${digestHex}:${Buffer.from(sealed).toString('base64')}`;
}

/** SHA-256 (hex) of a secret value, stored sealed or in clear. */
export function secretDigestHex(value: string): string {
  return parseSealedConfigValue(value)?.digestHex ?? sha256Hex(value);
}

/**
 * A secret key's value in a form that compares equal exactly when the values do (digests), so
 * "an app-wide key differs between tenants" works across stored, clear and request forms.
 */
export function comparableConfigValue(key: string, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (key === API_KEYS_KEY) return apiKeyDigestsHex(value).join(',');
  if (SEALED_CONFIG_KEYS.includes(key)) return secretDigestHex(value);
  return value;
}

/** What responses show for a secret key's stored value. */
function shown(key: string, value: string): string {
  if (key === API_KEYS_KEY) return apiKeyDigestsHex(value).map(fingerprintOfDigest).join(',');
  return fingerprintOfDigest(secretDigestHex(value));
}

/** A coreConfig as list and get responses show it: fingerprints instead of credentials. */
export function presentCoreConfig(coreConfig: ConfigValues): Record<string, unknown> {
  const out: Record<string, unknown> = { ...coreConfig };
  for (const key of SECRET_CONFIG_KEYS) {
    const value = coreConfig[key];
    if (typeof value === 'string') out[key] = shown(key, value);
  }
  return out;
}

/**
 * The secret keys of a coreConfig update, checked before validation: a value that is a fingerprint
 * (or any stored form) is not a credential. When it is exactly what responses show for the value
 * stored in this same config (a client sending back what it read), the key is left unchanged (it
 * is dropped from the update); otherwise 400. Other values pass as they are.
 */
export function resolveSecretUpdate(
  stored: ConfigValues | undefined,
  update: Readonly<Record<string, unknown>>,
  prefix: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...update };
  for (const key of SECRET_CONFIG_KEYS) {
    const value = update[key];
    if (typeof value !== 'string' || !STORED_OR_SHOWN.test(value)) continue;
    const current = stored?.[key];
    const normalise = (v: string) => (key === API_KEYS_KEY ? v.replace(/\s/g, '') : v);
    if (typeof current === 'string' && normalise(shown(key, current)) === normalise(value)) {
      delete out[key];
      continue;
    }
    throw new BadRequestError(
      `${prefix}${key} is a fingerprint (sha256:…) that does not match the stored value; send the key itself`,
    );
  }
  return out;
}
