import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  BASE_CONFIG_MAX_AGE_MS,
  BaseConfigError,
  loadBaseConfig,
  resetBaseConfigForTests,
} from '#functions/config/base.js';
import { getBaseConfig, resolveEffectiveConfig } from '#functions/config/index.js';
import { CONFIG_KEYS, envVariableName } from '#functions/config/registry.js';
import { ApiKeysSecretUnavailableError } from '#functions/shared/errors.js';

const sha256 = (key: string) => createHash('sha256').update(key, 'utf8').digest();

const KEY_A = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const KEY_B = 'bbbbbbbbbbbbbbbbbbbbbbbb';

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('loadBaseConfig', () => {
  it('is empty with no file values and no environment', async () => {
    expect(await loadBaseConfig({ env: {}, file: {} })).toEqual({});
  });

  it('reads API_KEYS; resolution splits it on commas without whitespace', async () => {
    const base = await loadBaseConfig({ env: { API_KEYS: ` ${KEY_A} , ${KEY_B}` }, file: {} });
    expect(resolveEffectiveConfig(base, undefined, undefined).apiKeyDigests).toEqual([sha256(KEY_A), sha256(KEY_B)]);
  });

  it('parses every key from its upper-case environment variable to the key type', async () => {
    const base = await loadBaseConfig({
      env: {
        PASSWORD_HASHING_ALG: 'ARGON2',
        BCRYPT_LOG_ROUNDS: '12',
        ARGON2_MEMORY_KB: '4096',
        MFA_ENABLED: 'TRUE',
        ACCOUNT_LINKING_ENABLED: 'false',
        REFRESH_TOKEN_VALIDITY: '1.5e3',
        ACCESS_TOKEN_VALIDITY: ' 60 ',
        SUPERTOKENS_MAX_CDI_VERSION: '5.4',
        EMPTY_IS_IGNORED: '',
        BULK_MIGRATION_BATCH_SIZE: '',
      },
      file: {},
    });
    expect(base).toEqual({
      password_hashing_alg: 'ARGON2',
      bcrypt_log_rounds: 12,
      argon2_memory_kb: 4096,
      mfa_enabled: true,
      account_linking_enabled: false,
      refresh_token_validity: 1500,
      access_token_validity: 60,
      supertokens_max_cdi_version: '5.4',
    });
    const config = resolveEffectiveConfig(base, undefined, undefined);
    expect(config.passwordHashingAlg).toBe('ARGON2');
    expect(config.bcryptLogRounds).toBe(12);
    expect(config.mfaEnabled).toBe(true);
  });

  it('maps each registry key to its upper-case name', () => {
    for (const definition of CONFIG_KEYS) expect(envVariableName(definition.key)).toBe(definition.key.toUpperCase());
  });

  it('lets the environment beat the file', async () => {
    const base = await loadBaseConfig({
      env: { BCRYPT_LOG_ROUNDS: '10' },
      file: { bcrypt_log_rounds: 12, mfa_enabled: true },
    });
    expect(base).toEqual({ bcrypt_log_rounds: 10, mfa_enabled: true });
  });

  it('rejects an environment value that does not parse, naming the variable but not the value', async () => {
    for (const [name, value, message] of [
      [
        'BCRYPT_LOG_ROUNDS',
        'eleven',
        "environment variable BCRYPT_LOG_ROUNDS: 'bcrypt_log_rounds' must be of type int",
      ],
      [
        'ACCESS_TOKEN_VALIDITY',
        '1.5',
        "environment variable ACCESS_TOKEN_VALIDITY: 'access_token_validity' must be of type long",
      ],
      ['MFA_ENABLED', 'yes', "environment variable MFA_ENABLED: 'mfa_enabled' must be of type boolean"],
      [
        'REFRESH_TOKEN_VALIDITY',
        'abc',
        "environment variable REFRESH_TOKEN_VALIDITY: 'refresh_token_validity' must be of type double",
      ],
      [
        'ARGON2_PARALLELISM',
        '99999999999',
        "environment variable ARGON2_PARALLELISM: 'argon2_parallelism' must be of type int",
      ],
    ] as const) {
      const error = await rejection(loadBaseConfig({ env: { [name]: value }, file: {} }));
      expect(error).toBeInstanceOf(BaseConfigError);
      expect(error.message).toBe(`Invalid base config: ${message}`);
    }
  });

  it('rejects values that break a rule, API keys included, without echoing them', async () => {
    const short = await rejection(loadBaseConfig({ env: { API_KEYS: 'tooshort' }, file: {} }));
    expect(short.message).toBe(
      'Invalid base config: One of the API keys is too short. Please use at least 20 characters',
    );
    expect(short.message).not.toContain('tooshort');
    const alg = await rejection(loadBaseConfig({ env: { PASSWORD_HASHING_ALG: 'MD5' }, file: {} }));
    expect(alg.message).toBe("Invalid base config: 'password_hashing_alg' must be one of 'ARGON2' or 'BCRYPT'");
    const rounds = await rejection(loadBaseConfig({ env: { BCRYPT_LOG_ROUNDS: '3' }, file: {} }));
    expect(rounds.message).toBe("Invalid base config: 'bcrypt_log_rounds' must be between 4 and 14 inclusive.");
  });

  it("keeps the app's own hashing inside the hash cost bounds (what the password module refuses)", async () => {
    for (const [env, message] of [
      [{ BCRYPT_LOG_ROUNDS: '15' }, "'bcrypt_log_rounds' must be between 4 and 14 inclusive."],
      [{ ARGON2_ITERATIONS: '11' }, "'argon2_iterations' must be between 1 and 10 inclusive."],
      [{ ARGON2_PARALLELISM: '17' }, "'argon2_parallelism' must be between 1 and 16 inclusive."],
      [
        { ARGON2_MEMORY_KB: '262145' },
        "'argon2_memory_kb' × 'argon2_iterations' must be at most 262144 (KiB × passes)",
      ],
      [
        { ARGON2_MEMORY_KB: '131072', ARGON2_ITERATIONS: '3' },
        "'argon2_memory_kb' × 'argon2_iterations' must be at most 262144 (KiB × passes)",
      ],
    ] as const) {
      expect((await rejection(loadBaseConfig({ env, file: {} }))).message).toBe(`Invalid base config: ${message}`);
    }
    expect(
      await loadBaseConfig({
        env: { BCRYPT_LOG_ROUNDS: '14', ARGON2_MEMORY_KB: '131072', ARGON2_ITERATIONS: '2', ARGON2_PARALLELISM: '16' },
        file: {},
      }),
    ).toEqual({ bcrypt_log_rounds: 14, argon2_memory_kb: 131072, argon2_iterations: 2, argon2_parallelism: 16 });
  });

  it('rejects unknown keys and wrong types in the file, and a non-object file', async () => {
    expect((await rejection(loadBaseConfig({ env: {}, file: { postgresql_host: 'x' } }))).message).toBe(
      'Invalid base config: Invalid config key: postgresql_host',
    );
    expect((await rejection(loadBaseConfig({ env: {}, file: { port: 'http' } }))).message).toBe(
      "Invalid base config: 'port' must be of type int",
    );
    expect((await rejection(loadBaseConfig({ env: {}, file: [] }))).message).toBe(
      'Invalid base config: base-config.json must hold a JSON object',
    );
  });

  it('accepts base-only keys', async () => {
    expect(await loadBaseConfig({ env: {}, file: { bcrypt_log_rounds: 10, argon2_iterations: 2 } })).toEqual({
      bcrypt_log_rounds: 10,
      argon2_iterations: 2,
    });
  });

  it('takes api_keys from the secret named by API_KEYS_SECRET_ARN, beating API_KEYS', async () => {
    const fetchSecret = vi.fn(async () => ` ${KEY_B},${KEY_A} `);
    const base = await loadBaseConfig({
      env: { API_KEYS: KEY_A, API_KEYS_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:1:secret:k' },
      file: {},
      fetchSecret,
    });
    expect(fetchSecret).toHaveBeenCalledWith('arn:aws:secretsmanager:eu-west-1:1:secret:k');
    expect(resolveEffectiveConfig(base, undefined, undefined).apiKeyDigests).toEqual([sha256(KEY_B), sha256(KEY_A)]);
  });

  it('fails clearly when the secret cannot be read or is empty, without its contents', async () => {
    const failing = await rejection(
      loadBaseConfig({
        env: { API_KEYS_SECRET_ARN: 'arn' },
        file: {},
        fetchSecret: async () => {
          const error = new Error('denied');
          error.name = 'AccessDeniedException';
          throw error;
        },
      }),
    );
    // An outage of a dependency (503 with Retry-After), not a bad configuration.
    expect(failing).toBeInstanceOf(ApiKeysSecretUnavailableError);
    expect(failing.message).toBe('could not read the secret named by API_KEYS_SECRET_ARN (AccessDeniedException)');
    const empty = await rejection(
      loadBaseConfig({ env: { API_KEYS_SECRET_ARN: 'arn' }, file: {}, fetchSecret: async () => undefined }),
    );
    expect(empty.message).toBe('Invalid base config: the secret named by API_KEYS_SECRET_ARN has no string value');
    const invalid = await rejection(
      loadBaseConfig({
        env: { API_KEYS_SECRET_ARN: 'arn' },
        file: {},
        fetchSecret: async () => 'secret_value_with_underscores',
      }),
    );
    expect(invalid.message).not.toContain('secret_value');
  });
});

describe('getBaseConfig', () => {
  afterEach(() => resetBaseConfigForTests());

  it('loads once for the callers of one period (the secret is fetched once)', async () => {
    const fetchSecret = vi.fn(async () => KEY_A);
    resetBaseConfigForTests({ env: { API_KEYS_SECRET_ARN: 'arn' }, file: {}, fetchSecret });
    const [a, b] = await Promise.all([getBaseConfig(), getBaseConfig()]);
    const c = await getBaseConfig();
    expect(a).toBe(b);
    expect(a).toBe(c);
    expect(a).toEqual({ api_keys: KEY_A });
    expect(fetchSecret).toHaveBeenCalledTimes(1);
  });

  it('reads the secret again once its copy is 5 minutes old: a rotated key stops working within that', async () => {
    let now = 1_000_000;
    let secret = KEY_A;
    const fetchSecret = vi.fn(async () => secret);
    resetBaseConfigForTests({ env: { API_KEYS_SECRET_ARN: 'arn' }, file: {}, fetchSecret, now: () => now });
    expect(await getBaseConfig()).toEqual({ api_keys: KEY_A });
    secret = KEY_B;
    now += BASE_CONFIG_MAX_AGE_MS - 1;
    expect(await getBaseConfig()).toEqual({ api_keys: KEY_A });
    now += 1;
    expect(await getBaseConfig()).toEqual({ api_keys: KEY_B });
    expect(fetchSecret).toHaveBeenCalledTimes(2);
    expect(BASE_CONFIG_MAX_AGE_MS).toBe(300_000);
  });

  it('never keeps using a copy past its age when the secret cannot be read again: 503 until it can', async () => {
    let now = 0;
    const fetchSecret = vi
      .fn<() => Promise<string>>()
      .mockResolvedValueOnce(KEY_A)
      .mockRejectedValueOnce(Object.assign(new Error('x'), { name: 'TimeoutError' }))
      .mockResolvedValue(KEY_B);
    resetBaseConfigForTests({ env: { API_KEYS_SECRET_ARN: 'arn' }, file: {}, fetchSecret, now: () => now });
    expect(await getBaseConfig()).toEqual({ api_keys: KEY_A });
    now += BASE_CONFIG_MAX_AGE_MS;
    const failed = await rejection(getBaseConfig());
    expect(failed).toBeInstanceOf(ApiKeysSecretUnavailableError);
    expect((failed as ApiKeysSecretUnavailableError).publicMessage).toBe('The API keys cannot be read; retry later');
    expect(await getBaseConfig()).toEqual({ api_keys: KEY_B });
  });

  it('retries after a failed load instead of memoising the failure', async () => {
    const fetchSecret = vi
      .fn<() => Promise<string>>()
      .mockRejectedValueOnce(new Error('throttled'))
      .mockResolvedValue(KEY_B);
    resetBaseConfigForTests({ env: { API_KEYS_SECRET_ARN: 'arn' }, file: {}, fetchSecret });
    await expect(getBaseConfig()).rejects.toBeInstanceOf(ApiKeysSecretUnavailableError);
    expect(await getBaseConfig()).toEqual({ api_keys: KEY_B });
    expect(fetchSecret).toHaveBeenCalledTimes(2);
  });

  it('reads process.env by default', async () => {
    vi.stubEnv('BULK_MIGRATION_BATCH_SIZE', '123');
    try {
      resetBaseConfigForTests();
      expect((await getBaseConfig()).bulk_migration_batch_size).toBe(123);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
