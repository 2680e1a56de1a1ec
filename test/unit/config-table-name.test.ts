import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveEffectiveConfig } from '#functions/config/index.js';
import { envVariableName } from '#functions/config/registry.js';
import { baseConfigProblem, coreConfigProblem } from '#functions/config/validate.js';
import { ENV } from '#functions/shared/env.js';

const TABLE_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-';
const SYNTAX = "'dynamodb_table_name' must be 3 to 255 characters, each a letter, a digit, '_', '-' or '.'";

const tableName = fc.string({ unit: fc.constantFrom(...TABLE_CHARS), minLength: 3, maxLength: 255 });
const appProblem = (name: unknown, base: Record<string, unknown> = {}) =>
  coreConfigProblem({ merged: { dynamodb_table_name: name }, level: 'app', base });

describe('dynamodb_table_name', () => {
  it('accepts any DynamoDB table name on an app, and null (unset)', () => {
    fc.assert(fc.property(tableName, (name) => appProblem(name) === undefined));
    expect(appProblem(null)).toBeUndefined();
  });

  it("refuses a name DynamoDB would refuse, with the key's syntax", () => {
    const badCharacter = fc
      .tuple(fc.string({ maxLength: 20 }), fc.string({ minLength: 1, maxLength: 3 }), fc.string({ maxLength: 20 }))
      .map(([a, b, c]) => a + b + c)
      .filter((s) => [...s].some((ch) => !TABLE_CHARS.includes(ch)));
    const badLength = fc.oneof(
      fc.string({ unit: fc.constantFrom(...TABLE_CHARS), maxLength: 2 }),
      fc.string({ unit: fc.constantFrom(...TABLE_CHARS), minLength: 256, maxLength: 300 }),
    );
    fc.assert(fc.property(fc.oneof(badCharacter, badLength), (name) => appProblem(name) === SYNTAX));
    expect(appProblem('users table')).toBe(SYNTAX);
    expect(appProblem('ab')).toBe(SYNTAX);
  });

  it('must be a JSON string', () => {
    for (const value of [1, true, ['t'], { name: 't' }]) {
      expect(appProblem(value)).toBe("'dynamodb_table_name' must be of type String");
    }
  });

  it("must start with the deployment's table-name prefix when the base config sets one", () => {
    const base = { dynamodb_table_name_prefix: 'auth-core.prod.' };
    expect(appProblem('auth-core.prod.shop', base)).toBeUndefined();
    expect(appProblem('auth-core.dev.shop', base)).toBe(
      "'dynamodb_table_name' must start with 'auth-core.prod.' (the tables this deployment may use)",
    );
    fc.assert(
      fc.property(tableName, (name) => {
        const problem = appProblem(name, base);
        return name.startsWith('auth-core.prod.')
          ? problem === undefined
          : problem?.includes('must start with') === true;
      }),
    );
  });

  it('can only be set for the app, never for a tenant (not even to the same value)', () => {
    fc.assert(
      fc.property(tableName, (name) => {
        const problem = coreConfigProblem({
          merged: { dynamodb_table_name: name },
          level: 'tenant',
          appOverrides: { dynamodb_table_name: name },
        });
        return problem === 'dynamodb_table_name can only be set for the app, not for a tenant';
      }),
    );
    // A tenant of an app with a table may set other keys: the app's table is not the tenant's to check.
    expect(
      coreConfigProblem({
        merged: { password_reset_token_lifetime: 1000 },
        level: 'tenant',
        appOverrides: { dynamodb_table_name: 'shop-table' },
      }),
    ).toBeUndefined();
  });

  it('is not a base config key: the base table is TABLE_NAME', () => {
    expect(baseConfigProblem({ dynamodb_table_name: 'x-table' })).toBe(
      `dynamodb_table_name can only be set in an app's coreConfig (the base table is ${ENV.tableName})`,
    );
  });

  it('resolves into the effective config of the app and of each of its tenants', () => {
    const app = { dynamodb_table_name: 'shop-table' };
    expect(resolveEffectiveConfig({}, app, undefined).appTableName).toBe('shop-table');
    expect(resolveEffectiveConfig({}, app, { password_reset_token_lifetime: 5 }).appTableName).toBe('shop-table');
    expect(resolveEffectiveConfig({}, {}, undefined).appTableName).toBeUndefined();
  });
});

describe('dynamodb_table_name_prefix', () => {
  it('is a base-only key, set by its environment variable', () => {
    expect(envVariableName('dynamodb_table_name_prefix')).toBe('DYNAMODB_TABLE_NAME_PREFIX');
    expect(coreConfigProblem({ merged: { dynamodb_table_name_prefix: 'x.' }, level: 'app' })).toBe(
      "dynamodb_table_name_prefix can only be set via the core's base config setting",
    );
  });

  it('must itself be the start of a table name', () => {
    expect(baseConfigProblem({ dynamodb_table_name_prefix: 'auth-core.prod.' })).toBeUndefined();
    expect(baseConfigProblem({ dynamodb_table_name_prefix: 'auth core/' })).toBe(
      "'dynamodb_table_name_prefix' must be 1 to 254 characters, each a letter, a digit, '_', '-' or '.'",
    );
  });
});
