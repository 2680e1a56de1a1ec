import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseApiKeys } from '#functions/config/credential-values.js';
import { mergeCoreConfig, renderConfigReferenceMarkdown, resolveEffectiveConfig } from '#functions/config/index.js';
import {
  CONFIG_KEYS,
  configKeyDefinition,
  protectedConfigKeys,
  REFERENCE_PROTECTED_DATABASE_KEYS,
} from '#functions/config/registry.js';

const sha256 = (key: string) => createHash('sha256').update(key, 'utf8').digest();

describe('mergeCoreConfig', () => {
  it('adds and overwrites keys, and removes a key whose update value is null', () => {
    const stored = { access_token_validity: 100, api_keys: 'a'.repeat(20), mfa_enabled: true };
    const merged = mergeCoreConfig(stored, {
      access_token_validity: 200,
      api_keys: null,
      password_hashing_alg: 'ARGON2',
    });
    expect(merged).toEqual({ access_token_validity: 200, mfa_enabled: true, password_hashing_alg: 'ARGON2' });
    expect(stored).toEqual({ access_token_validity: 100, api_keys: 'a'.repeat(20), mfa_enabled: true });
  });

  it('treats undefined stored config as empty and ignores nulls for absent keys', () => {
    expect(mergeCoreConfig(undefined, { x: null, mfa_enabled: false })).toEqual({ mfa_enabled: false });
  });

  it('keeps a `__proto__` key as an ordinary own key', () => {
    const update = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    const merged = mergeCoreConfig({}, update);
    expect(Object.keys(merged)).toEqual(['__proto__']);
    expect((merged as { polluted?: unknown }).polluted).toBeUndefined();
  });
});

describe('resolveEffectiveConfig', () => {
  it('uses registry defaults when nothing is set', () => {
    const config = resolveEffectiveConfig({}, undefined, undefined);
    expect(config.apiKeyDigests).toEqual([]);
    expect(config.passwordHashingAlg).toBe('BCRYPT');
    expect(config.bcryptLogRounds).toBe(11);
    expect(config.argon2).toEqual({ iterations: 1, memoryKb: 87795, parallelism: 2 });
    expect(config.argon2HashingPoolSize).toBe(1);
    expect(config.firebaseSignerKey).toBeUndefined();
    expect(config.accountLinkingEnabled).toBe(false);
    expect(config.mfaEnabled).toBe(false);
    expect(config.maxCdiVersion).toBeUndefined();
    expect(config.minCdiVersion).toBeUndefined();
    expect(config.bulkMigration.batchSize).toBe(8000);
    expect(config.bulkMigration.parallelism).toBeGreaterThanOrEqual(1);
    expect(config.bulkMigration.sleepBetweenRoundsMs).toBe(1000);
    expect(config.values.access_token_validity).toBe(3600);
    expect(config.values.refresh_token_validity).toBe(144000);
    expect(config.values.api_keys).toBeNull();
  });

  it('applies tenant → app → base precedence', () => {
    const base = { access_token_validity: 1, password_reset_token_lifetime: 10, api_keys: 'b'.repeat(20) };
    const app = { access_token_validity: 2, password_reset_token_lifetime: 20 };
    const tenant = { password_reset_token_lifetime: 30 };
    const config = resolveEffectiveConfig(base, app, tenant);
    expect(config.values.password_reset_token_lifetime).toBe(30);
    expect(config.values.access_token_validity).toBe(2);
    expect(config.apiKeyDigests).toEqual([sha256('b'.repeat(20))]);
    expect(resolveEffectiveConfig(base, app, undefined).values.password_reset_token_lifetime).toBe(20);
    expect(resolveEffectiveConfig(base, undefined, undefined).values.access_token_validity).toBe(1);
  });

  it('derives typed fields', () => {
    const config = resolveEffectiveConfig(
      { bcrypt_log_rounds: 12, argon2_iterations: 3, argon2_memory_kb: 1024, argon2_parallelism: 4 },
      {
        password_hashing_alg: 'argon2',
        firebase_password_hashing_signer_key: 'c2lnbmVy',
        account_linking_enabled: 'true',
        mfa_enabled: true,
        supertokens_max_cdi_version: '5.4',
        supertokens_min_cdi_version: '3.0',
        bulk_migration_parallelism: 3,
        bulk_migration_batch_size: 50,
      },
      undefined,
    );
    expect(config.passwordHashingAlg).toBe('ARGON2');
    expect(config.bcryptLogRounds).toBe(12);
    expect(config.argon2).toEqual({ iterations: 3, memoryKb: 1024, parallelism: 4 });
    expect(config.firebaseSignerKey).toEqual({ stored: 'c2lnbmVy', appId: undefined });
    expect(config.firebaseSignerKeySet).toBe(true);
    expect(config.accountLinkingEnabled).toBe(true);
    expect(config.mfaEnabled).toBe(true);
    expect(config.maxCdiVersion).toBe('5.4');
    expect(config.minCdiVersion).toBe('3.0');
    expect(config.bulkMigration).toEqual({ parallelism: 3, batchSize: 50, sleepBetweenRoundsMs: 1000 });
    expect(config.values.account_linking_enabled).toBe(true);
  });

  it('a boolean given as "false" at a lower layer is overridden by a higher one', () => {
    expect(resolveEffectiveConfig({ mfa_enabled: 'true' }, { mfa_enabled: 'false' }, undefined).mfaEnabled).toBe(false);
  });

  it('reads numbers and booleans stored as text as the values they stand for', () => {
    const config = resolveEffectiveConfig(
      {},
      {
        access_token_dynamic_signing_key_update_interval: '0.001',
        access_token_validity: '+120',
        refresh_token_validity: ' 5 ',
        mfa_enabled: 'TRUE',
      },
      undefined,
    );
    expect(config.sessions.dynamicKeyUpdateIntervalMs).toBe(3600);
    expect(config.sessions.accessTokenValidityMs).toBe(120_000);
    expect(config.sessions.refreshTokenValidityMs).toBe(300_000);
    expect(config.mfaEnabled).toBe(true);
    expect(config.values.access_token_dynamic_signing_key_update_interval).toBe(0.001);
  });

  it('ignores nulls and wrongly typed stored values instead of trusting them', () => {
    const config = resolveEffectiveConfig(
      { api_keys: null, bcrypt_log_rounds: 'x' },
      { mfa_enabled: 'yes' },
      undefined,
    );
    expect(config.apiKeyDigests).toEqual([]);
    expect(config.bcryptLogRounds).toBe(11);
    expect(config.mfaEnabled).toBe(false);
  });

  it('folds the access_token_signing_key_update_interval alias into its key; the key itself wins', () => {
    const alias = resolveEffectiveConfig({}, { access_token_signing_key_update_interval: 24 }, undefined);
    expect(alias.values.access_token_dynamic_signing_key_update_interval).toBe(24);
    expect(alias.values).not.toHaveProperty('access_token_signing_key_update_interval');
    const both = resolveEffectiveConfig(
      {},
      { access_token_signing_key_update_interval: 24, access_token_dynamic_signing_key_update_interval: 48 },
      undefined,
    );
    expect(both.values.access_token_dynamic_signing_key_update_interval).toBe(48);
  });

  it('lets an app replace the base API keys', () => {
    const base = { api_keys: 'b'.repeat(20) };
    expect(resolveEffectiveConfig(base, { api_keys: 'a'.repeat(25) }, undefined).apiKeyDigests).toEqual([
      sha256('a'.repeat(25)),
    ]);
  });
});

describe('parseApiKeys', () => {
  it('splits on commas and removes all whitespace and empty entries', () => {
    expect(parseApiKeys(' key-one-aaaaaaaaaaaaaaa , key two=bbbbbbbbbbbbbbbb,,\n')).toEqual([
      'key-one-aaaaaaaaaaaaaaa',
      'keytwo=bbbbbbbbbbbbbbbb',
    ]);
    expect(parseApiKeys(undefined)).toEqual([]);
    expect(parseApiKeys(null)).toEqual([]);
    expect(parseApiKeys('')).toEqual([]);
  });
});

describe('key registry', () => {
  it('has unique keys and the levels, types and defaults the spec names', () => {
    const keys = CONFIG_KEYS.map((d) => d.key);
    expect(new Set(keys).size).toBe(keys.length);
    const expectations: [string, string, string, unknown][] = [
      ['api_keys', 'String', 'app', null],
      ['account_linking_enabled', 'boolean', 'app', false],
      ['mfa_enabled', 'boolean', 'app', false],
      ['password_hashing_alg', 'String', 'app', 'BCRYPT'],
      ['access_token_validity', 'long', 'app', 3600],
      ['refresh_token_validity', 'double', 'app', 144000],
      ['bulk_migration_batch_size', 'int', 'app', 8000],
      ['bcrypt_log_rounds', 'int', 'base', 11],
      ['argon2_iterations', 'int', 'base', 1],
      ['argon2_memory_kb', 'int', 'base', 87795],
      ['argon2_parallelism', 'int', 'base', 2],
      ['password_reset_token_lifetime', 'long', 'tenant', 3600000],
      ['ip_allow_regex', 'String', 'tenant', null],
    ];
    for (const [key, type, level, def] of expectations) {
      expect(configKeyDefinition(key), key).toMatchObject({ type, level, default: def });
    }
  });

  it('lists every key of docs/configuration.md at its level', () => {
    const baseOnly = [
      'recent_token_reuse_behaviour',
      'info_log_path',
      'error_log_path',
      'port',
      'host',
      'max_server_pool_size',
      'argon2_iterations',
      'argon2_memory_kb',
      'argon2_parallelism',
      'argon2_hashing_pool_size',
      'firebase_password_hashing_pool_size',
      'bcrypt_log_rounds',
      'webserver_https_enabled',
      'base_path',
      'log_level',
      'oauth_client_secret_encryption_key',
      'supertokens_saas_secret',
      'supertokens_saas_load_only_cud',
      'otel_collector_connection_uri',
      'deadlock_logger_enable',
    ];
    const app = [
      'access_token_validity',
      'access_token_blacklisting',
      'refresh_token_validity',
      'refresh_token_rotation_grace_period',
      'access_token_validity_jitter',
      'access_token_signing_key_dynamic',
      'access_token_dynamic_signing_key_update_interval',
      'api_keys',
      'disable_telemetry',
      'password_hashing_alg',
      'firebase_password_hashing_signer_key',
      'oauth_provider_public_service_url',
      'oauth_provider_admin_service_url',
      'oauth_provider_consent_login_base_url',
      'oauth_provider_url_configured_in_oauth_provider',
      'supertokens_max_cdi_version',
      'supertokens_min_cdi_version',
      'saml_legacy_acs_url',
      'bulk_migration_parallelism',
      'bulk_migration_batch_size',
      'bulk_migration_sleep_between_rounds_in_batch_ms',
      'webauthn_recover_account_token_lifetime',
      'account_linking_enabled',
      'mfa_enabled',
    ];
    const tenant = [
      'password_reset_token_lifetime',
      'email_verification_token_lifetime',
      'passwordless_max_code_input_attempts',
      'passwordless_code_lifetime',
      'totp_max_attempts',
      'totp_rate_limit_cooldown_sec',
      'ip_allow_regex',
      'ip_deny_regex',
      'saml_sp_entity_id',
      'saml_claims_validity',
      'saml_relay_state_validity',
    ];
    for (const key of baseOnly) expect(configKeyDefinition(key)?.level, key).toBe('base');
    for (const key of app) expect(configKeyDefinition(key)?.level, key).toBe('app');
    for (const key of tenant) expect(configKeyDefinition(key)?.level, key).toBe('tenant');
  });

  it('has no storage-plugin keys', () => {
    for (const key of REFERENCE_PROTECTED_DATABASE_KEYS) expect(configKeyDefinition(key)).toBeUndefined();
    expect(CONFIG_KEYS.some((d) => d.key.startsWith('postgresql_'))).toBe(false);
  });

  it('lists the protected keys the reference hides (docs/reference-behaviour.md "Listing apps")', () => {
    expect([...protectedConfigKeys()].sort()).toEqual(
      [
        'ip_allow_regex',
        'ip_deny_regex',
        'oauth_provider_public_service_url',
        'oauth_provider_admin_service_url',
        'oauth_provider_consent_login_base_url',
        'oauth_provider_url_configured_in_oauth_provider',
        'saml_legacy_acs_url',
      ].sort(),
    );
  });
});

describe('renderConfigReferenceMarkdown', () => {
  it('renders a row for every key with type, level and default', () => {
    const markdown = renderConfigReferenceMarkdown();
    const lines = markdown.trimEnd().split('\n');
    expect(lines[0]).toBe('| Key | Type | Level | Default | Description |');
    expect(lines).toHaveLength(CONFIG_KEYS.length + 2);
    for (const definition of CONFIG_KEYS) {
      expect(markdown, definition.key).toContain(`| \`${definition.key}\` | ${definition.type} |`);
    }
    expect(markdown).toContain('| `bcrypt_log_rounds` | int | base only | `11` |');
    expect(markdown).toContain('| `api_keys` | String | app | _unset_ |');
    expect(markdown).toContain('| `bulk_migration_parallelism` | int | app | number of CPU cores |');
  });

  it('keeps each row on one line with five cells', () => {
    for (const line of renderConfigReferenceMarkdown().trimEnd().split('\n')) {
      expect(line.replace(/\\\|/g, '').split('|').length, line).toBe(7);
    }
  });
});
