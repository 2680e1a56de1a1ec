import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { storedApiKeys, validateCoreConfig } from '#functions/config/index.js';
import { CONFIG_KEYS } from '#functions/config/registry.js';
import { BASE_API_KEY_PINNED, coreConfigProblem, type ValidateCoreConfigInput } from '#functions/config/validate.js';
import { BadRequestError } from '#functions/shared/errors.js';

const GOOD_KEY = 'abcdefghijklmnopqrstuvwxyz-ABC=123';

function problem(merged: Record<string, unknown>, rest: Partial<ValidateCoreConfigInput> = {}): string | undefined {
  return coreConfigProblem({ merged, level: 'app', ...rest });
}

function thrown(input: ValidateCoreConfigInput): unknown {
  try {
    validateCoreConfig(input);
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Java's trim (characters up to U+0020 at either end), then a decimal number as Double.parseDouble reads it. */
function decimalText(text: string): boolean {
  let [start, end] = [0, text.length];
  while (start < end && text.charCodeAt(start) <= 0x20) start++;
  while (end > start && text.charCodeAt(end - 1) <= 0x20) end--;
  return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?$/.test(text.slice(start, end));
}

describe('validateCoreConfig', () => {
  it('accepts a valid config and an empty one', () => {
    expect(() => validateCoreConfig({ merged: {}, level: 'app' })).not.toThrow();
    expect(() =>
      validateCoreConfig({
        merged: {
          api_keys: `${GOOD_KEY}, ${GOOD_KEY}x`,
          access_token_validity: 7200,
          password_hashing_alg: 'ARGON2',
          mfa_enabled: true,
          account_linking_enabled: 'false',
          password_reset_token_lifetime: 1000,
          bulk_migration_batch_size: 1,
          supertokens_max_cdi_version: '5.4',
        },
        level: 'app',
      }),
    ).not.toThrow();
  });

  it('throws a 400 BadRequestError with the `Invalid core config: ` prefix', () => {
    const error = thrown({ merged: { nope: 1 }, level: 'app' });
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).statusCode).toBe(400);
    expect((error as BadRequestError).message).toBe('Invalid core config: Invalid config key: nope');
  });

  describe('keys', () => {
    it('refuses unknown keys, storage-plugin keys included', () => {
      expect(problem({ foo: 'bar' })).toBe('Invalid config key: foo');
      expect(problem({ postgresql_connection_uri: 'postgresql://x' })).toBe(
        'Invalid config key: postgresql_connection_uri',
      );
      expect(problem({ postgresql_host: 'localhost' }, { level: 'tenant' })).toBe(
        'Invalid config key: postgresql_host',
      );
    });

    it('accepts the access_token_signing_key_update_interval alias', () => {
      expect(problem({ access_token_signing_key_update_interval: 24 })).toBeUndefined();
    });

    it('refuses base-only keys at app and tenant level', () => {
      for (const definition of CONFIG_KEYS.filter((d) => d.level === 'base')) {
        const value = definition.default ?? (definition.type === 'String' ? 'x' : 1);
        const message = `${definition.key} can only be set via the core's base config setting`;
        expect(problem({ [definition.key]: value }), definition.key).toBe(message);
        expect(problem({ [definition.key]: value }, { level: 'tenant' }), definition.key).toBe(message);
      }
    });

    it('skips keys whose value is null (unset)', () => {
      expect(problem({ bcrypt_log_rounds: null, access_token_validity: null })).toBeUndefined();
    });

    it('reports the first bad key in the order of the given config', () => {
      expect(problem({ bcrypt_log_rounds: 12, zzz: 1 })).toBe(
        "bcrypt_log_rounds can only be set via the core's base config setting",
      );
      expect(problem({ zzz: 1, bcrypt_log_rounds: 12 })).toBe('Invalid config key: zzz');
      expect(problem({ access_token_validity: 'x', zzz: 1 })).toBe("'access_token_validity' must be of type long");
    });
  });

  describe('types', () => {
    it('long accepts JSON integers and strings of an optional sign and digits; "abcd", "", "null" fail', () => {
      for (const value of ['abcd', '', 'null', ' 3600', '3600 ', '3600.0', '1e3', '0x10', true, 1.5, [1], { a: 1 }]) {
        expect(problem({ access_token_validity: value }), JSON.stringify(value)).toBe(
          "'access_token_validity' must be of type long",
        );
      }
      for (const value of [3600, '3600', '+3600', '03600', null]) {
        expect(problem({ access_token_validity: value }), JSON.stringify(value)).toBeUndefined();
      }
    });

    it('int takes numbers and digit strings within 32 bits', () => {
      expect(problem({ bulk_migration_batch_size: '10' })).toBeUndefined();
      expect(problem({ bulk_migration_batch_size: ' 10' })).toBe("'bulk_migration_batch_size' must be of type int");
      expect(problem({ bulk_migration_batch_size: 2 ** 31 })).toBe("'bulk_migration_batch_size' must be of type int");
      expect(problem({ bulk_migration_batch_size: String(2 ** 31) })).toBe(
        "'bulk_migration_batch_size' must be of type int",
      );
      expect(problem({ totp_max_attempts: 'abcd' })).toBe("'totp_max_attempts' must be of type int");
    });

    it('Integer is named Integer', () => {
      expect(problem({ bulk_migration_sleep_between_rounds_in_batch_ms: 'abcd' })).toBe(
        "'bulk_migration_sleep_between_rounds_in_batch_ms' must be of type Integer",
      );
    });

    it('double accepts finite numbers and decimal text as Double.parseDouble reads it', () => {
      for (const value of [100.5, '0.001', ' 5 ', '\t5\n', '1e3', '1E-3', '.5', '5.', '+2', '-0', '2d', '2F']) {
        expect(problem({ access_token_dynamic_signing_key_update_interval: value }), JSON.stringify(value)).toBe(
          Number(
            String(value)
              .trim()
              .replace(/[dDfF]$/, ''),
          ) > 0
            ? undefined
            : "'access_token_dynamic_signing_key_update_interval' must be greater than 0 hours.",
        );
      }
      for (const value of ['abcd', '', ' ', 'NaN', 'Infinity', '-Infinity', '0x1p3', '1e', '1,5', '1_000', true, [1]]) {
        expect(problem({ refresh_token_validity: value }), JSON.stringify(value)).toBe(
          "'refresh_token_validity' must be of type double",
        );
      }
    });

    it('a number given as text is checked against the value rules as the number', () => {
      expect(problem({ access_token_validity: '0' })).toBe(
        "'access_token_validity' must be between 1 and 86400000 seconds inclusive.",
      );
      expect(problem({ access_token_validity: '3600', refresh_token_validity: '1' })).toBe(
        "'refresh_token_validity' must be strictly greater than 'access_token_validity'.",
      );
      expect(problem({ access_token_dynamic_signing_key_update_interval: '0' })).toBe(
        "'access_token_dynamic_signing_key_update_interval' must be greater than 0 hours.",
      );
    });

    it('boolean accepts true/false and the strings true/false in any case', () => {
      for (const value of [true, false, 'true', 'false', 'TRUE', 'False']) {
        expect(problem({ mfa_enabled: value }), String(value)).toBeUndefined();
      }
      for (const value of ['yes', '', ' true', 'true ', '1', 1, 0]) {
        expect(problem({ mfa_enabled: value }), String(value)).toBe("'mfa_enabled' must be of type boolean");
      }
    });

    it('every integer written as digits is accepted, and nothing that is not a number is', () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 8_000_000 }), fc.constantFrom('', '+', '0'), (n, prefix) => {
          expect(problem({ access_token_validity: `${prefix}${n}` })).toBeUndefined();
        }),
      );
      fc.assert(
        fc.property(
          fc.string().filter((s) => !decimalText(s)),
          (text) => {
            expect(problem({ refresh_token_validity: text })).toBe("'refresh_token_validity' must be of type double");
          },
        ),
      );
    });

    it('String accepts JSON strings only', () => {
      expect(problem({ password_hashing_alg: 1 })).toBe("'password_hashing_alg' must be of type String");
      expect(problem({ ip_allow_regex: true }, { level: 'tenant' })).toBe("'ip_allow_regex' must be of type String");
    });
  });

  describe('value rules', () => {
    it('access_token_validity must be between 1 and 86400000', () => {
      const message = "'access_token_validity' must be between 1 and 86400000 seconds inclusive.";
      expect(problem({ access_token_validity: 0 })).toBe(message);
      expect(problem({ access_token_validity: 86_400_001 })).toBe(message);
      expect(problem({ access_token_validity: 1 })).toBeUndefined();
    });

    it('refresh_token_validity (minutes) * 60 must exceed access_token_validity (seconds)', () => {
      const message = "'refresh_token_validity' must be strictly greater than 'access_token_validity'.";
      expect(problem({ refresh_token_validity: 60, access_token_validity: 3600 })).toBe(message);
      expect(problem({ refresh_token_validity: 61, access_token_validity: 3600 })).toBeUndefined();
      // Access token validity above the default refresh validity (144000 min = 8640000 s).
      expect(problem({ access_token_validity: 8_640_000 })).toBe(message);
      // The inherited app value counts for a tenant's refresh value.
      expect(
        problem(
          { refresh_token_validity: 1 },
          { level: 'tenant', appOverrides: { access_token_validity: 60, refresh_token_validity: 1 } },
        ),
      ).toBe(message);
    });

    it('bulk migration parallelism and batch size must be >= 1', () => {
      expect(problem({ bulk_migration_parallelism: 0 })).toBe('Provided bulk_migration_parallelism must be >= 1');
      expect(problem({ bulk_migration_batch_size: 0 })).toBe('Provided bulk_migration_batch_size must be >= 1');
      expect(problem({ bulk_migration_parallelism: 1, bulk_migration_batch_size: 1 })).toBeUndefined();
    });

    it('TOTP limits: the reference refuses values below 1; this core also a totp_max_attempts above 1000', () => {
      expect(problem({ totp_max_attempts: 0 })).toBe("'totp_max_attempts' must be > 0");
      expect(problem({ totp_rate_limit_cooldown_sec: 0 })).toBe("'totp_rate_limit_cooldown_sec' must be > 0");
      expect(problem({ totp_max_attempts: 1001 })).toBe("'totp_max_attempts' must be between 1 and 1000 inclusive.");
      expect(problem({ totp_max_attempts: 1000, totp_rate_limit_cooldown_sec: 1 })).toBeUndefined();
    });

    it("password_hashing_alg must be 'ARGON2' or 'BCRYPT' (any case)", () => {
      expect(problem({ password_hashing_alg: 'SCRYPT' })).toBe(
        "'password_hashing_alg' must be one of 'ARGON2' or 'BCRYPT'",
      );
      expect(problem({ password_hashing_alg: '' })).toBe("'password_hashing_alg' must be one of 'ARGON2' or 'BCRYPT'");
      expect(problem({ password_hashing_alg: 'bcrypt' })).toBeUndefined();
    });

    it('API keys must be >= 20 characters of = - and alphanumerics', () => {
      const short = 'One of the API keys is too short. Please use at least 20 characters';
      const chars = "Invalid characters in API key. Please only use '=', '-' and alpha-numeric (including capitals)";
      expect(problem({ api_keys: 'abc' })).toBe(short);
      expect(problem({ api_keys: `${GOOD_KEY},short` })).toBe(short);
      expect(problem({ api_keys: `${GOOD_KEY},,${GOOD_KEY}` })).toBe(short);
      expect(problem({ api_keys: 'abcdefghijklmnopqrstuvwxyz_' })).toBe(chars);
      expect(problem({ api_keys: 'abcdefghij klmnopqrstuvwxyz' })).toBe(chars);
      expect(problem({ api_keys: ` ${GOOD_KEY} ` })).toBeUndefined();
    });

    it('CDI limits must be supported versions, min <= max', () => {
      expect(problem({ supertokens_max_cdi_version: '9.9' })).toBe(
        'supertokens_max_cdi_version is not a supported version',
      );
      expect(problem({ supertokens_min_cdi_version: '5.3.0' })).toBe(
        'supertokens_min_cdi_version is not a supported version',
      );
      expect(problem({ supertokens_min_cdi_version: '5.4', supertokens_max_cdi_version: '5.3' })).toBe(
        'supertokens_min_cdi_version must not be greater than supertokens_max_cdi_version',
      );
    });

    it('rules run in a fixed order after the key checks', () => {
      expect(problem({ access_token_validity: 0, bulk_migration_batch_size: 0 })).toBe(
        "'access_token_validity' must be between 1 and 86400000 seconds inclusive.",
      );
      expect(problem({ bulk_migration_batch_size: 0, access_token_validity: 'x' })).toBe(
        "'access_token_validity' must be of type long",
      );
    });
  });

  describe('same value for app-wide keys across an app', () => {
    const conflict = (key: string) => `You cannot set different values for ${key} for the same appId`;

    it("refuses a tenant value that differs from the app's", () => {
      expect(
        problem({ access_token_validity: 100 }, { level: 'tenant', appOverrides: { access_token_validity: 200 } }),
      ).toBe(conflict('access_token_validity'));
      expect(problem({ mfa_enabled: true }, { level: 'tenant', appOverrides: {} })).toBe(conflict('mfa_enabled'));
    });

    it("accepts a tenant value equal to the app's effective value (own, base or default)", () => {
      expect(
        problem({ access_token_validity: 200 }, { level: 'tenant', appOverrides: { access_token_validity: 200 } }),
      ).toBeUndefined();
      expect(
        problem({ mfa_enabled: 'true' }, { level: 'tenant', appOverrides: { mfa_enabled: true } }),
      ).toBeUndefined();
      expect(problem({ access_token_validity: 3600 }, { level: 'tenant', appOverrides: {} })).toBeUndefined();
      // …except the base API keys themselves: no app or tenant may pin them (below).
      expect(problem({ api_keys: GOOD_KEY }, { level: 'tenant', appOverrides: {}, base: { api_keys: GOOD_KEY } })).toBe(
        BASE_API_KEY_PINNED,
      );
    });

    it('lets tenants differ on tenant-level keys', () => {
      expect(
        problem(
          { password_reset_token_lifetime: 5 },
          { level: 'tenant', appOverrides: { password_reset_token_lifetime: 10 } },
        ),
      ).toBeUndefined();
    });

    it("refuses an app value that differs from one of its tenants' own values", () => {
      expect(
        problem(
          { access_token_validity: 100 },
          { otherTenantOverrides: [{}, { access_token_validity: 200, password_reset_token_lifetime: 1 }] },
        ),
      ).toBe(conflict('access_token_validity'));
      // Removing the app value falls back to the base, which still differs from the tenant's value.
      expect(problem({}, { otherTenantOverrides: [{ access_token_validity: 200 }] })).toBe(
        conflict('access_token_validity'),
      );
      expect(
        problem({ access_token_validity: 200 }, { otherTenantOverrides: [{ access_token_validity: 200 }] }),
      ).toBeUndefined();
      expect(
        problem({ access_token_validity: 100 }, { otherTenantOverrides: [{ totp_max_attempts: 3 }] }),
      ).toBeUndefined();
    });

    it('reports value-rule problems before conflicts', () => {
      expect(
        problem({ access_token_validity: 0 }, { level: 'tenant', appOverrides: { access_token_validity: 200 } }),
      ).toBe("'access_token_validity' must be between 1 and 86400000 seconds inclusive.");
    });
  });
});

describe('a base API key as an app or tenant key', () => {
  const BASE_A = 'base-key-aaaaaaaaaaaaaaaaaaaa';
  const BASE_B = 'base-key-bbbbbbbbbbbbbbbbbbbb';
  const OWN = 'own-key-cccccccccccccccccccccc';
  const base = { api_keys: `${BASE_A},${BASE_B}` };

  it('is refused, alone or among keys of its own, in clear or as the stored digest', () => {
    for (const apiKeys of [BASE_A, `${OWN},${BASE_B}`, ` ${BASE_B} `, storedApiKeys(`${OWN},${BASE_A}`)]) {
      expect(problem({ api_keys: apiKeys }, { base }), apiKeys).toBe(BASE_API_KEY_PINNED);
      expect(problem({ api_keys: apiKeys }, { base, level: 'tenant', appOverrides: { api_keys: apiKeys } })).toBe(
        BASE_API_KEY_PINNED,
      );
    }
    const error = thrown({ merged: { api_keys: BASE_A }, level: 'app', base });
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as Error).message).toBe(
      'Invalid core config: api_keys contains a key of the base configuration (API_KEYS, or the API-keys secret on AWS): an app or tenant needs keys of its own, so that rotating the base keys revokes the old ones everywhere',
    );
  });

  it('leaves keys of its own, and configurations without base keys, as before (property)', () => {
    const key = fc.stringMatching(/^[A-Za-z0-9=-]{20,40}$/);
    fc.assert(
      fc.property(
        fc.uniqueArray(key, { minLength: 1, maxLength: 4 }),
        fc.uniqueArray(key, { maxLength: 3 }),
        (own, baseKeys) => {
          const pinned = own.some((k) => baseKeys.includes(k));
          const input = { base: baseKeys.length > 0 ? { api_keys: baseKeys.join(',') } : {} };
          expect(problem({ api_keys: own.join(',') }, input)).toBe(pinned ? BASE_API_KEY_PINNED : undefined);
        },
      ),
    );
  });
});
