/** Validation of coreConfig overrides (docs/reference-behaviour.md "Core configuration overrides") and of the base config. */

import { isLoopbackHost } from '#functions/contract/loopback-host.js';
import { compareVersions, SUPPORTED_CDI_VERSIONS } from '#functions/shared/cdi.js';
import { ENV } from '#functions/shared/env.js';
import { BadRequestError } from '#functions/shared/errors.js';
import { HASH_LIMITS } from '#functions/shared/hash-limits.js';
import { forbiddenHost, isLocalRuntime, parseUrl } from '#functions/shared/outbound-address.js';
import { isStorableNumber, jsonBytes, STORABLE_NUMBER_RULE } from '#functions/shared/storable.js';
import {
  apiKeyDigestsHex,
  comparableConfigValue,
  isApiKeyDigest,
  parseSealedConfigValue,
} from './credential-values.js';
import { CANONICAL_KEYS, type ConfigValues, layeredConfig, layerValues, type TypedConfig } from './layers.js';
import { configKeyDefinition } from './registry.js';
import { hasConfigType, typeErrorMessage } from './values.js';

export const INVALID_CORE_CONFIG_PREFIX = 'Invalid core config: ';

/**
 * Largest coreConfig of one app or tenant (its overrides as JSON, UTF-8 bytes). The tenant's
 * DynamoDB item (400 KB) also holds its third-party providers, and API keys are stored as digests
 * of up to 3.4 times their length; hundreds of API keys still fit.
 */
const MAX_CORE_CONFIG_BYTES = 32_768;

export interface ValidateCoreConfigInput {
  /** The merged overrides about to be stored. */
  readonly merged: ConfigValues;
  /** 'app' = the app's public tenant (app-wide keys allowed); 'tenant' = any other tenant. */
  readonly level: 'app' | 'tenant';
  /** For level 'tenant': the app's own (public tenant) overrides, to refuse differing app-wide keys. */
  readonly appOverrides?: ConfigValues | undefined;
  /** For level 'app': the overrides of the app's other tenants, to refuse differing app-wide keys. */
  readonly otherTenantOverrides?: readonly ConfigValues[] | undefined;
  /**
   * The base config (`await getBaseConfig()`). Values a layer does not set are inherited from it
   * for the range and same-app checks; without it the registry defaults stand in.
   */
  readonly base?: ConfigValues | undefined;
}

function numberOf(config: TypedConfig, key: string): number | undefined {
  const value = config.get(key);
  return typeof value === 'number' ? value : undefined;
}

function stringOf(config: TypedConfig, key: string): string | undefined {
  const value = config.get(key);
  return typeof value === 'string' ? value : undefined;
}

const API_KEY_CHARACTERS = /^[A-Za-z0-9=-]*$/;

/** The largest `totp_max_attempts` (this core's bound; see its rule below). */
export const TOTP_MAX_ATTEMPTS_LIMIT = 1000;

/**
 * The reference's rules on every key a request gives. A stored digest (`sha256:<64 hex>`, see
 * credential-values.ts) was checked as a key before it was digested, and a request cannot send one (refused
 * before validation), so digests are skipped.
 */
function apiKeysProblem(apiKeys: string | undefined): string | undefined {
  if (apiKeys === undefined) return undefined;
  for (const part of apiKeys.split(',')) {
    const key = part.trim();
    if (isApiKeyDigest(key)) continue;
    if (key.length < 20) return 'One of the API keys is too short. Please use at least 20 characters';
    if (!API_KEY_CHARACTERS.test(key)) {
      return "Invalid characters in API key. Please only use '=', '-' and alpha-numeric (including capitals)";
    }
  }
  return undefined;
}

function cdiVersionProblem(config: TypedConfig): string | undefined {
  const supported = SUPPORTED_CDI_VERSIONS as readonly string[];
  for (const key of ['supertokens_max_cdi_version', 'supertokens_min_cdi_version']) {
    const version = stringOf(config, key);
    if (version !== undefined && !supported.includes(version)) return `${key} is not a supported version`;
  }
  const max = stringOf(config, 'supertokens_max_cdi_version');
  const min = stringOf(config, 'supertokens_min_cdi_version');
  if (max !== undefined && min !== undefined && compareVersions(min, max) > 0) {
    return 'supertokens_min_cdi_version must not be greater than supertokens_max_cdi_version';
  }
  return undefined;
}

function between(config: TypedConfig, key: string, min: number, max: number): string | undefined {
  const value = numberOf(config, key);
  return value !== undefined && (value < min || value > max)
    ? `'${key}' must be between ${min} and ${max} inclusive.`
    : undefined;
}

function atLeast(config: TypedConfig, key: string, floor: number, message: string): string | undefined {
  const value = numberOf(config, key);
  return value !== undefined && value < floor ? message : undefined;
}

/**
 * Value rules over a complete (layered) config, in this fixed order; the first failing rule wins.
 * The first eight are the reference core's rules and messages (its lifetime rules refuse 0 with
 * the text `must be >= 0`); the rest are this core's own
 * (they keep hashing and CDI handling from failing at request time).
 */
const VALUE_RULES: readonly ((config: TypedConfig) => string | undefined)[] = [
  (c) => {
    const v = numberOf(c, 'access_token_validity');
    return v !== undefined && (v < 1 || v > 86_400_000)
      ? "'access_token_validity' must be between 1 and 86400000 seconds inclusive."
      : undefined;
  },
  (c) => {
    const refresh = numberOf(c, 'refresh_token_validity');
    const access = numberOf(c, 'access_token_validity');
    return refresh !== undefined && access !== undefined && refresh * 60 <= access
      ? "'refresh_token_validity' must be strictly greater than 'access_token_validity'."
      : undefined;
  },
  (c) => {
    const interval = numberOf(c, 'access_token_dynamic_signing_key_update_interval');
    return interval !== undefined && !(interval > 0)
      ? "'access_token_dynamic_signing_key_update_interval' must be greater than 0 hours."
      : undefined;
  },
  (c) => atLeast(c, 'passwordless_code_lifetime', 1, "'passwordless_code_lifetime' must be > 0"),
  (c) => atLeast(c, 'passwordless_max_code_input_attempts', 1, "'passwordless_max_code_input_attempts' must be > 0"),
  (c) => atLeast(c, 'totp_max_attempts', 1, "'totp_max_attempts' must be > 0"),
  (c) => atLeast(c, 'totp_rate_limit_cooldown_sec', 1, "'totp_rate_limit_cooldown_sec' must be > 0"),
  (c) => atLeast(c, 'bulk_migration_parallelism', 1, 'Provided bulk_migration_parallelism must be >= 1'),
  (c) => atLeast(c, 'bulk_migration_batch_size', 1, 'Provided bulk_migration_batch_size must be >= 1'),
  (c) =>
    atLeast(
      c,
      'webauthn_recover_account_token_lifetime',
      1,
      'Provided webauthn_recover_account_token_lifetime must be > 0',
    ),
  (c) => {
    const alg = stringOf(c, 'password_hashing_alg');
    return alg !== undefined && !['ARGON2', 'BCRYPT'].includes(alg.toUpperCase())
      ? "'password_hashing_alg' must be one of 'ARGON2' or 'BCRYPT'"
      : undefined;
  },
  (c) => apiKeysProblem(stringOf(c, 'api_keys')),
  (c) => atLeast(c, 'password_reset_token_lifetime', 1, "'password_reset_token_lifetime' must be >= 0"),
  (c) => atLeast(c, 'email_verification_token_lifetime', 1, "'email_verification_token_lifetime' must be >= 0"),
  // ── this core's own rules ──
  (c) =>
    atLeast(
      c,
      'bulk_migration_sleep_between_rounds_in_batch_ms',
      0,
      'Provided bulk_migration_sleep_between_rounds_in_batch_ms must be >= 0',
    ),
  cdiVersionProblem,
  // Each failure of a run is kept with the user's attempt record (docs/totp-and-mfa.md): bounded so
  // that record stays a small item.
  (c) => between(c, 'totp_max_attempts', 1, TOTP_MAX_ATTEMPTS_LIMIT),
  // The app's own hashing stays inside the hash cost bounds (HASH_LIMITS), so sign-up and
  // plain-text imports never fail on the configuration and never write a hash sign-in would refuse.
  (c) => between(c, 'bcrypt_log_rounds', HASH_LIMITS.bcrypt.minCost, HASH_LIMITS.bcrypt.maxCost),
  (c) => between(c, 'argon2_iterations', 1, HASH_LIMITS.argon2.maxIterations),
  (c) => between(c, 'argon2_parallelism', 1, HASH_LIMITS.argon2.maxParallelism),
  (c) => {
    const memory = numberOf(c, 'argon2_memory_kb');
    const lanes = numberOf(c, 'argon2_parallelism') ?? 1;
    return memory !== undefined && memory < 8 * lanes
      ? "'argon2_memory_kb' must be at least 8 times 'argon2_parallelism'"
      : undefined;
  },
  (c) => {
    const memory = numberOf(c, 'argon2_memory_kb');
    const passes = numberOf(c, 'argon2_iterations') ?? 1;
    const limit = HASH_LIMITS.argon2.maxMemoryTimesIterationsKiB;
    return memory !== undefined && memory * passes > limit
      ? `'argon2_memory_kb' × 'argon2_iterations' must be at most ${limit} (KiB × passes)`
      : undefined;
  },
  (c) => atLeast(c, 'argon2_hashing_pool_size', 1, "'argon2_hashing_pool_size' must be >= 1"),
  (c) => atLeast(c, 'firebase_password_hashing_pool_size', 1, "'firebase_password_hashing_pool_size' must be >= 1"),
  (c) => {
    const prefix = stringOf(c, 'dynamodb_table_name_prefix');
    return prefix !== undefined && !TABLE_NAME_PREFIX.test(prefix)
      ? "'dynamodb_table_name_prefix' must be 1 to 254 characters, each a letter, a digit, '_', '-' or '.'"
      : undefined;
  },
  hookProblem,
];

/** The shortest `password_migration_hook_secret` (characters). */
const HOOK_SECRET_MIN_LENGTH = 32;
/** The bounds of `password_migration_hook_timeout_ms`. */
const HOOK_TIMEOUT_BOUNDS = { min: 100, max: 5000 } as const;

/**
 * `password_migration_hook_url`: an absolute `https:` URL to a public host, or `http:` to a
 * loopback host in the local runtime (the password travels in the request body). No credentials
 * in the URL (they would be logged with it). The host as written is judged here (an address in a
 * range the core never calls, a special-use name: docs/security.md "Outbound requests"); a name's
 * addresses are checked when the configuration is stored and again at every connection.
 */
export function hookUrlProblem(url: string | undefined, local: boolean = isLocalRuntime()): string | undefined {
  if (url === undefined) return undefined;
  const form =
    "'password_migration_hook_url' must be an https:// URL without a user name or password (http:// only to a loopback host — 127.0.0.1, [::1], localhost — and only in the local runtime)";
  const parsed = parseUrl(url);
  if (!parsed) return form;
  if (parsed.username !== '' || parsed.password !== '') return form;
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return form;
  if (parsed.protocol === 'http:' && !(local && isLoopbackHost(parsed.hostname))) return form;
  const host = forbiddenHost(parsed.hostname, { allowLoopback: local });
  return host === undefined ? undefined : hookHostMessage(`${parsed.hostname} is ${host}`);
}

/** The refusal of a hook host, as written (`<host> is …`) or by what it resolves to (`<host> resolves to …`). */
export function hookHostMessage(what: string): string {
  return `'password_migration_hook_url' must name a public host: ${what}, which the core never calls`;
}

/** The hook's three keys together (docs/password-migration-hook.md "Configuration"). */
function hookProblem(c: TypedConfig): string | undefined {
  const url = stringOf(c, 'password_migration_hook_url');
  const urlProblem = hookUrlProblem(url);
  if (urlProblem !== undefined) return urlProblem;
  const secret = stringOf(c, 'password_migration_hook_secret');
  // A stored (sealed) value was checked before it was sealed.
  if (secret !== undefined && !parseSealedConfigValue(secret) && secret.length < HOOK_SECRET_MIN_LENGTH) {
    return `'password_migration_hook_secret' must be at least ${HOOK_SECRET_MIN_LENGTH} characters long`;
  }
  const timeoutProblem = between(
    c,
    'password_migration_hook_timeout_ms',
    HOOK_TIMEOUT_BOUNDS.min,
    HOOK_TIMEOUT_BOUNDS.max,
  );
  if (timeoutProblem !== undefined) return timeoutProblem;
  if (url !== undefined && url.trim() !== '' && secret === undefined) {
    return "'password_migration_hook_secret' must be set when 'password_migration_hook_url' is set";
  }
  return undefined;
}

/** The first value-rule failure of a complete config, or undefined. */
function valueRuleProblem(config: TypedConfig): string | undefined {
  for (const rule of VALUE_RULES) {
    const problem = rule(config);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** Where a layer of overrides is set: the base config, an app (its public tenant) or another tenant. */
type LayerScope = 'base' | 'app' | 'tenant';

/** Per-key checks of one layer, in the layer's own key order: unknown key, level, JSON type. */
function keyProblem(values: ConfigValues, scope: LayerScope): string | undefined {
  for (const [key, value] of Object.entries(values)) {
    if (value === null || value === undefined) continue;
    const definition = configKeyDefinition(key);
    if (!definition) return `Invalid config key: ${key}`;
    if (definition.level === 'base' && scope !== 'base') {
      return `${key} can only be set via the core's base config setting`;
    }
    if (definition.level === 'app-only' && scope === 'tenant')
      return `${key} can only be set for the app, not for a tenant`;
    if (definition.level === 'app-only' && scope === 'base') {
      return `${key} can only be set in an app's coreConfig (the base table is ${ENV.tableName})`;
    }
    if (!hasConfigType(definition.type, value)) return typeErrorMessage(definition);
    // A stored override is a DynamoDB number (the base config is never stored).
    if (scope !== 'base' && typeof value === 'number' && !isStorableNumber(value)) {
      return `'${key}' must be a ${definition.type} ${STORABLE_NUMBER_RULE}`;
    }
  }
  return undefined;
}

/** DynamoDB's rule for table names: 3 to 255 of these characters. */
const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;
const TABLE_NAME_PREFIX = /^[A-Za-z0-9_.-]{1,254}$/;

/** `dynamodb_table_name` of an app: DynamoDB's syntax, and the deployment's prefix when it has one. */
function tableNameProblem(merged: ConfigValues, base: TypedConfig): string | undefined {
  const name = layerValues(merged).get('dynamodb_table_name');
  if (typeof name !== 'string') return undefined;
  if (!TABLE_NAME.test(name)) {
    return "'dynamodb_table_name' must be 3 to 255 characters, each a letter, a digit, '_', '-' or '.'";
  }
  const prefix = stringOf(base, 'dynamodb_table_name_prefix');
  if (prefix !== undefined && !name.startsWith(prefix)) {
    return `'dynamodb_table_name' must start with '${prefix}' (the tables this deployment may use)`;
  }
  return undefined;
}

/** The refusal of an app's or tenant's `api_keys` that holds a key of the base configuration. */
export const BASE_API_KEY_PINNED =
  'api_keys contains a key of the base configuration (API_KEYS, or the API-keys secret on AWS): an app or tenant needs keys of its own, so that rotating the base keys revokes the old ones everywhere';

/**
 * An app or tenant may not store a base key as its own: the base keys are rotated in one place
 * (docs/security.md "API key rotation"), and a copy pinned in an app's `api_keys` would keep the old key
 * working there after the rotation. Compared by digest, whatever form each side is in.
 */
function basePinProblem(merged: ConfigValues, base: ConfigValues | undefined): string | undefined {
  const own = layerValues(merged).get('api_keys');
  const baseKeys = layerValues(base).get('api_keys');
  if (typeof own !== 'string' || typeof baseKeys !== 'string') return undefined;
  const baseDigests = new Set(apiKeyDigestsHex(baseKeys));
  return apiKeyDigestsHex(own).some((digest) => baseDigests.has(digest)) ? BASE_API_KEY_PINNED : undefined;
}

const SAME_APP_KEYS = CANONICAL_KEYS.filter((d) => d.level === 'app').map((d) => d.key);

function conflictMessage(key: string): string {
  return `You cannot set different values for ${key} for the same appId`;
}

/** Credentials compare by digest: a stored digest or sealed value equals the key it stands for. */
const differ = (key: string, a: unknown, b: unknown) => comparableConfigValue(key, a) !== comparableConfigValue(key, b);

function sameAppProblem(input: ValidateCoreConfigInput): string | undefined {
  if (input.level === 'tenant') {
    const own = layerValues(input.merged);
    const app = layeredConfig([input.base, input.appOverrides]);
    for (const key of SAME_APP_KEYS) {
      if (own.has(key) && differ(key, own.get(key), app.get(key))) return conflictMessage(key);
    }
    return undefined;
  }
  const app = layeredConfig([input.base, input.merged]);
  const others = (input.otherTenantOverrides ?? []).map(layerValues);
  for (const key of SAME_APP_KEYS) {
    for (const other of others) {
      if (other.has(key) && differ(key, other.get(key), app.get(key))) return conflictMessage(key);
    }
  }
  return undefined;
}

/**
 * The problem with a coreConfig about to be stored for an app (its public tenant) or a tenant,
 * without the `Invalid core config: ` prefix; undefined when it is valid.
 *
 * Evaluation order (the first problem found is the one reported):
 * 1. each key of `merged`, in its own (request) order: unknown key → `Invalid config key: <key>`;
 *    base-only key → `<key> can only be set via the core's base config setting`; app-only key on a
 *    tenant → `<key> can only be set for the app, not for a tenant`; wrong JSON type →
 *    `'<key>' must be of type <type>`. Keys whose value is `null` are skipped (null = unset).
 *    A number that DynamoDB cannot store (a double beyond ±(2^53 − 1), or non-zero below 1e-130 in
 *    magnitude) → `'<key>' must be a double between -9007199254740991 and 9007199254740991, and 0
 *    or at least 1e-130 in magnitude`. Then the whole: more than {@link MAX_CORE_CONFIG_BYTES}
 *    bytes of JSON → `coreConfig is too large. Max size is 32768 bytes.`
 * 2. value rules, in the fixed order of `VALUE_RULES`, over the layered config
 *    (defaults → base → app overrides → `merged`), so a rule relating two keys (refresh vs access
 *    token validity) sees inherited values too; then, for an app, its `dynamodb_table_name`
 *    (DynamoDB's name syntax, then the base's `dynamodb_table_name_prefix`). Whether the table
 *    exists, and whether the app may move to it, is the app use case's to check (it needs storage).
 *    Then `api_keys` holding a key of the base configuration → {@link BASE_API_KEY_PINNED}.
 * 3. app-wide keys, in registry order: `You cannot set different values for <key> for the same appId`
 *    when a tenant's own value differs from the app's effective value (level 'tenant'), or when the
 *    app's new effective value differs from a value one of its other tenants sets (level 'app').
 */
export function coreConfigProblem(input: ValidateCoreConfigInput): string | undefined {
  const keys = keyProblem(input.merged, input.level);
  if (keys !== undefined) return keys;
  if (jsonBytes(input.merged) > MAX_CORE_CONFIG_BYTES) {
    return `coreConfig is too large. Max size is ${MAX_CORE_CONFIG_BYTES} bytes.`;
  }
  const layers = input.level === 'tenant' ? [input.base, input.appOverrides, input.merged] : [input.base, input.merged];
  const values = valueRuleProblem(layeredConfig(layers));
  if (values !== undefined) return values;
  if (input.level === 'app') {
    const table = tableNameProblem(input.merged, layeredConfig([input.base]));
    if (table !== undefined) return table;
  }
  const pinned = basePinProblem(input.merged, input.base);
  if (pinned !== undefined) return pinned;
  return sameAppProblem(input);
}

/**
 * Throws `BadRequestError` (400) `Invalid core config: <problem>` when the merged overrides may not
 * be stored; see `coreConfigProblem` for the rules and their order.
 */
export function validateCoreConfig(input: ValidateCoreConfigInput): void {
  const problem = coreConfigProblem(input);
  if (problem !== undefined) throw new BadRequestError(`${INVALID_CORE_CONFIG_PREFIX}${problem}`);
}

/**
 * The problem with a base config (file + environment), or undefined: unknown keys and wrong
 * types (base-only keys are of course allowed), then the value rules over defaults → base.
 */
export function baseConfigProblem(base: ConfigValues): string | undefined {
  return keyProblem(base, 'base') ?? valueRuleProblem(layeredConfig([base]));
}
