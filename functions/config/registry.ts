/**
 * The configuration key registry: one row per core config key this core accepts.
 *
 * Key names, JSON types, levels and defaults follow the reference core (docs/reference-behaviour.md "Core configuration overrides"; docs/configuration.md);
 * `account_linking_enabled` and `mfa_enabled` are this core's own switches that replace the
 * reference core's licence-gated features. Storage-plugin keys (`postgresql_*`) are deliberately
 * absent (unknown keys here): an app's database is a DynamoDB table, `dynamodb_table_name`, and
 * there is no per-tenant database.
 *
 * The table is data only; validation (`validate.ts`), environment parsing (`base.ts`), resolution
 * (`index.ts`) and the reference in docs/configuration.md (`reference-doc.ts`) all read it.
 */

/**
 * JSON type of a key, named as the reference core names it in
 * `'<key>' must be of type <type>`. `Integer` is a nullable int.
 */
export type ConfigType = 'long' | 'int' | 'Integer' | 'double' | 'boolean' | 'String';

/**
 * Where a key may be set:
 * - `base`: only in the base config (file + environment); refused in any app's or tenant's coreConfig.
 * - `app`: in the base config or an app's coreConfig; a tenant may repeat it only with the app's value.
 * - `app-only`: only in an app's coreConfig (its public tenant): refused in the base config and in
 *   every other tenant's (the app's table; the base has its own, `TABLE_NAME`).
 * - `tenant`: anywhere; tenants of one app may differ.
 */
export type ConfigLevel = 'base' | 'app' | 'app-only' | 'tenant';

export type ConfigScalar = string | number | boolean;

export interface ConfigKeyDefinition {
  readonly key: string;
  readonly type: ConfigType;
  readonly level: ConfigLevel;
  /** Default when no layer sets the key; `null` = unset. */
  readonly default: ConfigScalar | null;
  /** How docs/configuration.md shows the default, when the value alone would mislead (e.g. computed defaults). */
  readonly defaultText?: string;
  readonly description: string;
  /** Hidden from / not modifiable by ordinary callers in the reference core when a SaaS secret is set (docs/reference-behaviour.md "Listing apps"). */
  readonly protected?: boolean;
  /** Accepted for compatibility with the reference core's configs; has no effect in this core. */
  readonly inert?: boolean;
  /** This key is an alternative name of another key (the other key wins when a layer sets both). */
  readonly aliasOf?: string;
}

const INERT = 'Accepted for compatibility; no effect in this core.';

/** Every key, in the order used for validation and documentation. */
export const CONFIG_KEYS: readonly ConfigKeyDefinition[] = [
  // ── app-level keys ───────────────────────────────────────────────────────────────────────────
  {
    key: 'api_keys',
    type: 'String',
    level: 'app',
    default: null,
    description:
      'Comma-separated API keys (whitespace ignored; each ≥ 20 characters of `A-Z a-z 0-9 = -`). Unset = no API key required. An app may replace the base keys. Stored as SHA-256 digests; responses show fingerprints (see Credentials at rest).',
  },
  {
    key: 'account_linking_enabled',
    type: 'boolean',
    level: 'app',
    default: false,
    description:
      "This core's switch for account linking (a licence feature in the reference core): imports with several login methods or a primary user need it, and so do creating a primary user and linking (`/recipe/accountlinking/user/primary`, `…/link`: 402 when off, as the reference without the feature). `mfa_enabled` implies it. `npm start -- --in-memory` makes it `true` for every app, as the reference on its in-memory database (`ACCOUNT_LINKING_ENABLED=false` or an app's coreConfig turns it off).",
  },
  {
    key: 'mfa_enabled',
    type: 'boolean',
    level: 'app',
    default: false,
    description:
      "This core's switch for multi-factor authentication (a licence feature in the reference core): importing TOTP devices needs it, and so do creating a TOTP device and verifying a TOTP code (`POST /recipe/totp/device`, `/<t>/recipe/totp/verify`: 402 when off, as the reference without the feature). `npm start -- --in-memory` makes it `true` for every app, as the reference on its in-memory database (`MFA_ENABLED=false` or an app's coreConfig turns it off). See docs/totp-and-mfa.md.",
  },
  {
    key: 'oauth_provider_enabled',
    type: 'boolean',
    level: 'app',
    default: false,
    description:
      "This core's switch for the OAuth2 provider recipe (a licence feature in the reference core): its client management routes (`/recipe/oauth/clients…`) answer 402 when off, as the reference without the feature. `npm start -- --in-memory` makes it `true` for every app, as the reference on its in-memory database (`OAUTH_PROVIDER_ENABLED=false` or an app's coreConfig turns it off). See docs/oauth2-clients.md.",
  },
  {
    key: 'password_hashing_alg',
    type: 'String',
    level: 'app',
    default: 'BCRYPT',
    description: 'Algorithm used to hash plain-text passwords: `BCRYPT` or `ARGON2` (case-insensitive).',
  },
  {
    key: 'legacy_password_hash_upgrade_enabled',
    type: 'boolean',
    level: 'app',
    default: true,
    description:
      "This core's switch: after a successful sign-in against an imported hash of a legacy family (PBKDF2, scrypt, phpass, MD5/SHA digests, LDAP), or a bcrypt or Argon2 hash below the app's configured cost (`bcrypt_log_rounds`; `argon2_memory_kb` × `argon2_iterations`), store the password hashed with `password_hashing_alg` at the configured cost in its place. Firebase scrypt hashes, and bcrypt and Argon2 hashes at or above that cost, are kept, as the reference keeps them.",
  },
  {
    key: 'firebase_password_hashing_signer_key',
    type: 'String',
    level: 'app',
    default: null,
    description:
      "Base64 signer key of the app's Firebase project; needed to import and verify Firebase scrypt hashes. Stored encrypted; responses show a fingerprint (see Credentials at rest).",
  },
  {
    key: 'password_migration_hook_url',
    type: 'String',
    level: 'app',
    default: null,
    description:
      'This core\'s password-migration hook: the legacy system\'s endpoint that checks the password of a user imported with `"passwordMigration": "hook"` at that user\'s first sign-in. `https` only, to a public host (never a loopback, private, link-local or other special-purpose address, however written or resolved: see Outbound requests in docs/security.md); `http` only to a loopback host (`127.0.0.0/8`, `[::1]`, `localhost`) in the local runtime, for testing. Imports of pending users need it. See docs/password-migration-hook.md.',
  },
  {
    key: 'password_migration_hook_secret',
    type: 'String',
    level: 'app',
    default: null,
    description:
      'Shared secret (≥ 32 characters) the core signs each hook request with (`X-Auth-Core-Signature`, HMAC-SHA-256). Stored encrypted; responses show a fingerprint (see Credentials at rest). See docs/password-migration-hook.md.',
  },
  {
    key: 'password_migration_hook_timeout_ms',
    type: 'int',
    level: 'app',
    default: 3000,
    description:
      'Budget of one hook check in milliseconds (100 … 5000), a retry of a refused connection included; past it the sign-in answers 503 with `Retry-After`. See docs/password-migration-hook.md.',
  },
  {
    key: 'bulk_migration_parallelism',
    type: 'int',
    level: 'app',
    default: null,
    defaultText: 'number of CPU cores',
    description: 'Users of one app imported concurrently (≥ 1).',
  },
  {
    key: 'bulk_migration_batch_size',
    type: 'int',
    level: 'app',
    default: 8000,
    description: 'Staged users claimed per import round (≥ 1).',
  },
  {
    key: 'bulk_migration_sleep_between_rounds_in_batch_ms',
    type: 'Integer',
    level: 'app',
    default: 1000,
    description: 'Pause between import rounds in milliseconds; `null` disables the pause.',
  },
  {
    key: 'supertokens_max_cdi_version',
    type: 'String',
    level: 'app',
    default: null,
    description: 'Newest CDI version the app accepts (and assumes when the `cdi-version` header is absent).',
  },
  {
    key: 'supertokens_min_cdi_version',
    type: 'String',
    level: 'app',
    default: null,
    description: 'Oldest CDI version the app accepts.',
  },
  {
    key: 'access_token_validity',
    type: 'long',
    level: 'app',
    default: 3600,
    description:
      'Access token lifetime in seconds (1 … 86400000): the `exp` of every access token the core signs (see docs/sessions.md).',
  },
  {
    key: 'access_token_blacklisting',
    type: 'boolean',
    level: 'app',
    default: false,
    description:
      'Whether `POST /recipe/session/verify` reads the session (a revoked session is refused at once) when a CDI < 2.21 caller does not say `checkDatabase`; CDI ≥ 2.21 callers (the SDK) choose per call.',
  },
  {
    key: 'refresh_token_validity',
    type: 'double',
    level: 'app',
    default: 144000,
    description:
      'Refresh token lifetime in minutes; must exceed the access token lifetime. A session expires (and its item is removed by DynamoDB TTL) this long after its last refresh.',
  },
  {
    key: 'refresh_token_rotation_grace_period',
    type: 'long',
    level: 'app',
    default: null,
    description: `Grace period for reusing a rotated refresh token. ${INERT}`,
    inert: true,
  },
  {
    key: 'access_token_validity_jitter',
    type: 'long',
    level: 'app',
    default: null,
    description: `Random jitter added to access token lifetimes. ${INERT}`,
    inert: true,
  },
  {
    key: 'access_token_signing_key_dynamic',
    type: 'boolean',
    level: 'app',
    default: true,
    description:
      'Sign access tokens with the rotating (`d-…`) keys rather than the static (`s-…`) key when a CDI < 2.21 caller does not say `useDynamicSigningKey`; the SDK chooses per call.',
  },
  {
    key: 'access_token_dynamic_signing_key_update_interval',
    type: 'double',
    level: 'app',
    default: 168,
    description:
      'Rotation interval of dynamic signing keys in hours (> 0): a new `d-…` key signs after this long; old public keys stay in the JWKS until the tokens they signed have expired.',
  },
  {
    key: 'access_token_signing_key_update_interval',
    type: 'double',
    level: 'app',
    default: null,
    aliasOf: 'access_token_dynamic_signing_key_update_interval',
    description: 'Old name of `access_token_dynamic_signing_key_update_interval`.',
  },
  {
    key: 'disable_telemetry',
    type: 'boolean',
    level: 'app',
    default: false,
    description: `Disable telemetry. ${INERT}`,
    inert: true,
  },
  {
    key: 'oauth_provider_public_service_url',
    type: 'String',
    level: 'app',
    default: null,
    protected: true,
    description: `OAuth provider public URL. ${INERT}`,
    inert: true,
  },
  {
    key: 'oauth_provider_admin_service_url',
    type: 'String',
    level: 'app',
    default: null,
    protected: true,
    description: `OAuth provider admin URL. ${INERT}`,
    inert: true,
  },
  {
    key: 'oauth_provider_consent_login_base_url',
    type: 'String',
    level: 'app',
    default: null,
    protected: true,
    description: `OAuth consent/login base URL. ${INERT}`,
    inert: true,
  },
  {
    key: 'oauth_provider_url_configured_in_oauth_provider',
    type: 'String',
    level: 'app',
    default: null,
    protected: true,
    description: `OAuth provider URL as configured in the provider. ${INERT}`,
    inert: true,
  },
  {
    key: 'saml_legacy_acs_url',
    type: 'String',
    level: 'app',
    default: null,
    protected: true,
    description: `Legacy SAML ACS URL. ${INERT}`,
    inert: true,
  },
  {
    key: 'webauthn_recover_account_token_lifetime',
    type: 'long',
    level: 'app',
    default: 3600000,
    description:
      'WebAuthn account-recovery token lifetime in milliseconds (> 0), read for the tenant that creates the token (see docs/passkeys.md).',
  },
  // ── app-only keys ───────────────────────────────────────────────────────────────────────────
  {
    key: 'dynamodb_table_name',
    type: 'String',
    level: 'app-only',
    default: null,
    defaultText: 'the base table (`TABLE_NAME`)',
    description:
      "DynamoDB table that holds everything the app owns (users, roles, metadata, TOTP devices, staged users); this core's counterpart of the reference's `postgresql_*` keys. Apps may share a table. It must exist with this core's key schema and indexes (`npm start` creates it), start with `dynamodb_table_name_prefix` when that is set, and can only change while the app holds no data.",
  },
  // ── tenant-level keys ────────────────────────────────────────────────────────────────────────
  {
    key: 'password_reset_token_lifetime',
    type: 'long',
    level: 'tenant',
    default: 3600000,
    description:
      'Password reset token lifetime in milliseconds (> 0), of the tenant that creates the token (see docs/password-reset-and-verification.md).',
  },
  {
    key: 'email_verification_token_lifetime',
    type: 'long',
    level: 'tenant',
    default: 86400000,
    description:
      'Email verification token lifetime in milliseconds (> 0), of the tenant that creates the token (see docs/password-reset-and-verification.md).',
  },
  {
    key: 'passwordless_max_code_input_attempts',
    type: 'int',
    level: 'tenant',
    default: 5,
    description:
      'Wrong or expired passwordless user input codes one sign-in may take (> 0): the attempt that reaches it removes the device, and the flow restarts (`RESTART_FLOW_ERROR`). See docs/passwordless.md.',
  },
  {
    key: 'passwordless_code_lifetime',
    type: 'long',
    level: 'tenant',
    default: 900000,
    description:
      'How long a passwordless code (user input code and magic link) is valid, in milliseconds (> 0), counted from its creation with the value in force when it is used; DynamoDB drops codes and devices past the lifetime they were created with. See docs/passwordless.md.',
  },
  {
    key: 'totp_max_attempts',
    type: 'int',
    level: 'tenant',
    default: 5,
    description:
      "Wrong TOTP codes in a row (across a user's devices, within `totp_rate_limit_cooldown_sec` of the last one) after which the tenant's TOTP verification of that user answers `LIMIT_REACHED_ERROR` until the cooldown has passed (1 … 1000; an accepted code ends the run). See docs/totp-and-mfa.md.",
  },
  {
    key: 'totp_rate_limit_cooldown_sec',
    type: 'int',
    level: 'tenant',
    default: 900,
    description:
      'How long a user who reached `totp_max_attempts` stays refused, in seconds after the last wrong code (> 0); the `retryAfterMs` of `LIMIT_REACHED_ERROR` counts it down. See docs/totp-and-mfa.md.',
  },
  {
    key: 'ip_allow_regex',
    type: 'String',
    level: 'tenant',
    default: null,
    protected: true,
    description: `Regular expression client IPs must match. ${INERT}`,
    inert: true,
  },
  {
    key: 'ip_deny_regex',
    type: 'String',
    level: 'tenant',
    default: null,
    protected: true,
    description: `Regular expression of refused client IPs. ${INERT}`,
    inert: true,
  },
  {
    key: 'saml_sp_entity_id',
    type: 'String',
    level: 'tenant',
    default: null,
    description: `SAML service provider entity id. ${INERT}`,
    inert: true,
  },
  {
    key: 'saml_claims_validity',
    type: 'long',
    level: 'tenant',
    default: 300000,
    description: `SAML claims validity in milliseconds. ${INERT}`,
    inert: true,
  },
  {
    key: 'saml_relay_state_validity',
    type: 'long',
    level: 'tenant',
    default: 300000,
    description: `SAML relay state validity in milliseconds. ${INERT}`,
    inert: true,
  },
  // ── base-only keys (config.yaml-only in the reference core) ──────────────────────────────────
  {
    key: 'dynamodb_table_name_prefix',
    type: 'String',
    level: 'base',
    default: null,
    description:
      "Every app's `dynamodb_table_name` must start with this. The deployed stack sets it to the table-name prefix its IAM grants cover; unset = any name.",
  },
  {
    key: 'bcrypt_log_rounds',
    type: 'int',
    level: 'base',
    default: 11,
    description: 'BCrypt cost factor for plain-text passwords (4 … 14, the hash cost bound).',
  },
  {
    key: 'argon2_iterations',
    type: 'int',
    level: 'base',
    default: 1,
    description: 'Argon2id iterations (1 … 10; `argon2_memory_kb` × iterations ≤ 262144, the hash cost bound).',
  },
  {
    key: 'argon2_memory_kb',
    type: 'int',
    level: 'base',
    default: 87795,
    description: 'Argon2id memory in KiB (≥ 8 × `argon2_parallelism`; × `argon2_iterations` ≤ 262144).',
  },
  {
    key: 'argon2_parallelism',
    type: 'int',
    level: 'base',
    default: 2,
    description: 'Argon2id lanes (1 … 16).',
  },
  {
    key: 'argon2_hashing_pool_size',
    type: 'int',
    level: 'base',
    default: 1,
    description: 'Concurrent Argon2 hash computations per process (≥ 1).',
  },
  {
    key: 'firebase_password_hashing_pool_size',
    type: 'int',
    level: 'base',
    default: 1,
    description: 'Concurrent Firebase scrypt verifications per process (≥ 1).',
  },
  {
    key: 'recent_token_reuse_behaviour',
    type: 'String',
    level: 'base',
    default: null,
    description: `Reaction to reuse of a recently rotated token. ${INERT}`,
    inert: true,
  },
  {
    key: 'info_log_path',
    type: 'String',
    level: 'base',
    default: null,
    description: `Info log file. ${INERT} Logs go to stdout.`,
    inert: true,
  },
  {
    key: 'error_log_path',
    type: 'String',
    level: 'base',
    default: null,
    description: `Error log file. ${INERT} Logs go to stdout.`,
    inert: true,
  },
  {
    key: 'log_level',
    type: 'String',
    level: 'base',
    default: 'INFO',
    description:
      'Log threshold. The logger reads the `LOG_LEVEL` environment variable itself (`debug`, `info`, `warn`, `error`).',
  },
  {
    key: 'port',
    type: 'int',
    level: 'base',
    default: 3567,
    description: `Listening port of the reference core. ${INERT} The local runtime serves on 3567.`,
    inert: true,
  },
  {
    key: 'host',
    type: 'String',
    level: 'base',
    default: 'localhost',
    description: `Listening host of the reference core. ${INERT}`,
    inert: true,
  },
  {
    key: 'max_server_pool_size',
    type: 'int',
    level: 'base',
    default: 10,
    description: `Web server thread pool size. ${INERT}`,
    inert: true,
  },
  {
    key: 'webserver_https_enabled',
    type: 'boolean',
    level: 'base',
    default: false,
    description: `Serve HTTPS directly. ${INERT} TLS ends at API Gateway.`,
    inert: true,
  },
  {
    key: 'base_path',
    type: 'String',
    level: 'base',
    default: '',
    description: `Path prefix of every API. ${INERT}`,
    inert: true,
  },
  {
    key: 'oauth_client_secret_encryption_key',
    type: 'String',
    level: 'base',
    default: null,
    description: `Key encrypting OAuth client secrets. ${INERT}`,
    inert: true,
  },
  {
    key: 'supertokens_saas_secret',
    type: 'String',
    level: 'base',
    default: null,
    description: `SaaS operator secret. ${INERT}`,
    inert: true,
  },
  {
    key: 'supertokens_saas_load_only_cud',
    type: 'String',
    level: 'base',
    default: null,
    description: `Serve a single connection-URI domain. ${INERT}`,
    inert: true,
  },
  {
    key: 'otel_collector_connection_uri',
    type: 'String',
    level: 'base',
    default: null,
    description: `OpenTelemetry collector URI. ${INERT}`,
    inert: true,
  },
  {
    key: 'deadlock_logger_enable',
    type: 'boolean',
    level: 'base',
    default: false,
    description: `Log thread deadlocks. ${INERT}`,
    inert: true,
  },
];

const BY_KEY: ReadonlyMap<string, ConfigKeyDefinition> = new Map(CONFIG_KEYS.map((d) => [d.key, d]));

/** The registry row of a key, or undefined for a key this core does not know. */
export function configKeyDefinition(key: string): ConfigKeyDefinition | undefined {
  return BY_KEY.get(key);
}

/** The upper-case environment variable that sets a key in the base config (`bcrypt_log_rounds` → `BCRYPT_LOG_ROUNDS`). */
export function envVariableName(key: string): string {
  return key.toUpperCase();
}

/**
 * Database keys the reference core treats as protected (docs/reference-behaviour.md "Listing apps"). This core has no
 * per-tenant database, so they are unknown keys here (`Invalid config key: <key>`); listed for
 * documentation only.
 * @internal Exported for test/unit/config.test.ts, which checks each is an unknown key here.
 */
export const REFERENCE_PROTECTED_DATABASE_KEYS: readonly string[] = [
  'postgresql_connection_uri',
  'postgresql_host',
  'postgresql_port',
  'postgresql_user',
  'postgresql_password',
  'postgresql_database_name',
  'postgresql_table_schema',
  'postgresql_connection_pool_size',
  'postgresql_idle_connection_timeout',
  'postgresql_minimum_idle_connections',
  'postgresql_connection_attributes',
  'postgresql_connection_scheme',
  'postgresql_table_names_prefix',
];

/**
 * Registry keys the reference core hides from, and refuses to let ordinary callers change, when a
 * SaaS secret is configured (docs/reference-behaviour.md "Listing apps"). This core has no SaaS secret, so nothing is hidden; the
 * list documents which keys would be.
 * @internal Exported for test/unit/config.test.ts, which pins the list.
 */
export function protectedConfigKeys(): readonly string[] {
  return CONFIG_KEYS.filter((d) => d.protected === true).map((d) => d.key);
}
