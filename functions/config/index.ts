/**
 * Configuration: registry defaults → base (file + environment) → app overrides → tenant overrides.
 * This is the only module that reads configuration; everything else asks `resolveEffectiveConfig`.
 *
 * - `registry.ts`: the key table (type, level, default, description).
 * - `base.ts`: loading the base config (`getBaseConfig`).
 * - `validate.ts`: coreConfig validation with the reference core's messages (`validateCoreConfig`).
 * - `reference-doc.ts`: the configuration reference in docs/configuration.md.
 */
import { availableParallelism } from 'node:os';
import { apiKeyDigestsHex, HOOK_SECRET_KEY } from './credential-values.js';
import { type ConfigValues, layeredConfig } from './layers.js';
import type { ConfigScalar } from './registry.js';

export { getBaseConfig } from './base.js';
export {
  API_KEYS_KEY,
  formatSealedConfigValue,
  HOOK_SECRET_KEY,
  parseSealedConfigValue,
  presentCoreConfig,
  resolveSecretUpdate,
  SEALED_CONFIG_KEYS,
  SIGNER_KEY_KEY,
  sha256Hex,
  storedApiKeys,
} from './credential-values.js';
export type { ConfigValues } from './layers.js';
export {
  hasSealedProviderSecrets,
  mapProviderSecretsAsync,
  type ProviderSecretSlot,
  presentProviderSecrets,
  resolveProviderSecretUpdate,
} from './provider-secrets.js';
export { renderConfigReferenceMarkdown } from './reference-doc.js';

export { hookHostMessage, INVALID_CORE_CONFIG_PREFIX, validateCoreConfig } from './validate.js';

/**
 * A credential of a configuration as it is stored: sealed (an app's config, credential-values.ts) or in
 * clear (the base config, or an app config written before credentials were sealed). Opening a
 * sealed one needs the credentials key and the app it is bound to (functions/wiring/credentials.ts).
 */
export interface ConfigSecret {
  readonly stored: string;
  /** The app whose configuration this is; undefined for the base configuration. */
  readonly appId: string | undefined;
}

export interface EffectiveConfig {
  /**
   * Every registry key (canonical names) with its resolved, typed value (tenant → app → base →
   * default); null = unset. Credentials appear in their stored forms (credential-values.ts).
   */
  readonly values: Readonly<Record<string, ConfigScalar | null>>;
  /** SHA-256 digests of the API keys (`api_keys`, stored or in clear); empty = no key required. */
  readonly apiKeyDigests: readonly Buffer[];
  readonly passwordHashingAlg: 'BCRYPT' | 'ARGON2';
  readonly bcryptLogRounds: number;
  readonly argon2: { readonly iterations: number; readonly memoryKb: number; readonly parallelism: number };
  /** Concurrent Argon2 hash computations per process. */
  readonly argon2HashingPoolSize: number;
  /** The Firebase signer key as stored; `firebaseSignerKeySet` says whether one is configured. */
  readonly firebaseSignerKey: ConfigSecret | undefined;
  readonly firebaseSignerKeySet: boolean;
  /**
   * The app's password-migration hook (docs/password-migration-hook.md), when its URL is set; the
   * secret as stored (sealed), opened only to sign a request.
   */
  readonly passwordMigrationHook: PasswordMigrationHookSettings | undefined;
  readonly accountLinkingEnabled: boolean;
  readonly mfaEnabled: boolean;
  /** The app's `oauth_provider_enabled` switch (OAuth2 client management, docs/oauth2-clients.md). */
  readonly oauthProviderEnabled: boolean;
  /**
   * The app's own table (`dynamodb_table_name`) for everything it owns; undefined = the base table.
   * Resolved with the rest of the config, so finding an app's table costs no read.
   */
  readonly appTableName: string | undefined;
  readonly maxCdiVersion: string | undefined;
  readonly minCdiVersion: string | undefined;
  /** Sessions and signing keys (docs/sessions.md). */
  readonly sessions: SessionSettings;
  readonly bulkMigration: {
    readonly parallelism: number;
    readonly batchSize: number;
    /** undefined = no pause between rounds. */
    readonly sleepBetweenRoundsMs: number | undefined;
  };
}

/** `password_migration_hook_url`, `…_secret` (as stored) and `…_timeout_ms`. */
interface PasswordMigrationHookSettings {
  readonly url: string;
  readonly secret: ConfigSecret | undefined;
  readonly timeoutMs: number;
}

/** The session and signing-key keys of an app, in milliseconds. */
export interface SessionSettings {
  readonly accessTokenValidityMs: number;
  readonly refreshTokenValidityMs: number;
  readonly accessTokenBlacklisting: boolean;
  readonly signingKeyDynamic: boolean;
  readonly dynamicKeyUpdateIntervalMs: number;
}

/**
 * The effective config of a tenant: its own overrides, then its app's (public tenant's)
 * overrides, then the base config, then registry defaults (first layer that sets a key wins).
 * Pass `undefined` for the tenant when resolving an app's own config. Stored values were validated
 * when written; a value of the wrong type is ignored rather than trusted. `appId` names the app
 * whose overrides these are (a sealed credential is bound to it).
 */
export function resolveEffectiveConfig(
  base: ConfigValues,
  appOverrides: ConfigValues | undefined,
  tenantOverrides: ConfigValues | undefined,
  appId?: string,
): EffectiveConfig {
  const layered = layeredConfig([base, appOverrides, tenantOverrides]);
  const num = (key: string, fallback: number): number => {
    const v = layered.get(key);
    return typeof v === 'number' ? v : fallback;
  };
  const str = (key: string): string | undefined => {
    const v = layered.get(key);
    return typeof v === 'string' ? v : undefined;
  };
  const sleep = layered.get('bulk_migration_sleep_between_rounds_in_batch_ms');
  const signerKey = str('firebase_password_hashing_signer_key');
  const hookUrl = str('password_migration_hook_url');
  const hookSecret = str(HOOK_SECRET_KEY);
  return {
    values: Object.freeze(Object.fromEntries(layered)),
    apiKeyDigests: apiKeyDigestsHex(str('api_keys')).map((hex) => Buffer.from(hex, 'hex')),
    passwordHashingAlg: str('password_hashing_alg')?.toUpperCase() === 'ARGON2' ? 'ARGON2' : 'BCRYPT',
    bcryptLogRounds: num('bcrypt_log_rounds', 11),
    argon2: {
      iterations: num('argon2_iterations', 1),
      memoryKb: num('argon2_memory_kb', 87795),
      parallelism: num('argon2_parallelism', 2),
    },
    argon2HashingPoolSize: num('argon2_hashing_pool_size', 1),
    firebaseSignerKey: signerKey === undefined ? undefined : { stored: signerKey, appId },
    firebaseSignerKeySet: signerKey !== undefined && signerKey.trim() !== '',
    passwordMigrationHook:
      hookUrl === undefined || hookUrl.trim() === ''
        ? undefined
        : {
            url: hookUrl,
            secret: hookSecret === undefined ? undefined : { stored: hookSecret, appId },
            timeoutMs: num('password_migration_hook_timeout_ms', 3000),
          },
    accountLinkingEnabled: layered.get('account_linking_enabled') === true,
    mfaEnabled: layered.get('mfa_enabled') === true,
    oauthProviderEnabled: layered.get('oauth_provider_enabled') === true,
    appTableName: str('dynamodb_table_name'),
    maxCdiVersion: str('supertokens_max_cdi_version'),
    minCdiVersion: str('supertokens_min_cdi_version'),
    sessions: {
      accessTokenValidityMs: num('access_token_validity', 3600) * 1000,
      refreshTokenValidityMs: Math.floor(num('refresh_token_validity', 144000) * 60_000),
      accessTokenBlacklisting: layered.get('access_token_blacklisting') === true,
      signingKeyDynamic: layered.get('access_token_signing_key_dynamic') !== false,
      dynamicKeyUpdateIntervalMs: Math.floor(num('access_token_dynamic_signing_key_update_interval', 168) * 3_600_000),
    },
    bulkMigration: {
      parallelism: num('bulk_migration_parallelism', availableParallelism()),
      batchSize: num('bulk_migration_batch_size', 8000),
      sleepBetweenRoundsMs: typeof sleep === 'number' ? sleep : undefined,
    },
  };
}

/**
 * Merges a coreConfig update into stored overrides (docs/reference-behaviour.md "Core configuration overrides"): stored ∪ update, update values
 * overwrite, a key whose update value is `null` is removed. Neither input is modified.
 */
export function mergeCoreConfig(
  stored: ConfigValues | undefined,
  update: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...(stored ?? {}) };
  for (const [k, v] of Object.entries(update)) {
    if (v === null) delete merged[k];
    // defineProperty: a key named `__proto__` stays an ordinary (and, for validation, unknown) key.
    else Object.defineProperty(merged, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return merged;
}
