/**
 * App tables on AWS (`-c appTables=…`): created from the shared definition with the base table's
 * protections, named under the stage's prefix, output for operators; and the prefix the grants
 * cover is the one config validation holds `dynamodb_table_name` to, so IAM and config agree.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBaseConfig } from '#functions/config/base.js';
import { coreConfigProblem } from '#functions/config/validate.js';
import { ENV } from '#functions/shared/env.js';
import { createTableInput } from '#functions/storage/table.js';
import { ContextError, stageConfigFromContext } from '../../lib/stage.js';
import { appTablePrefixOf } from '../../lib/tables.js';
import { type Resource, resourcesOfType, type Synthesized, synth } from './synth.js';
import { prefixTablesArn, pseudoArn, routeFunctions } from './template-helpers.js';

const PREFIX = appTablePrefixOf('test');

let synthesized: Synthesized;
let tables: [string, Resource][];

beforeAll(() => {
  synthesized = synth({ context: { appTables: 'shop, blog' } });
  tables = resourcesOfType(synthesized.dataTemplate, 'AWS::DynamoDB::Table');
});

const named = (name: string) => tables.find(([, t]) => t.Properties?.TableName === name);
const base = () => tables.find(([, t]) => t.Properties?.TableName === undefined)!;
const outputs = () => (synthesized.dataTemplate.toJSON() as { Outputs: Record<string, { Value: unknown }> }).Outputs;

describe('context appTables', () => {
  it('creates one table per name, named under the stage prefix, besides the base table', () => {
    expect(tables).toHaveLength(3);
    expect(named('auth-core.test.shop')).toBeDefined();
    expect(named('auth-core.test.blog')).toBeDefined();
    expect(base()[0]).toMatch(/^Table[0-9A-F]{8}$/);
  });

  it('keeps the base table as it was: same logical id, a generated name', () => {
    const plain = resourcesOfType(synth().dataTemplate, 'AWS::DynamoDB::Table');
    expect(plain).toHaveLength(1);
    expect(plain[0]![0]).toBe(base()[0]);
    expect(plain[0]![1]).toEqual(base()[1]);
  });

  it('builds every app table from the shared definition, with the base table protections', () => {
    const { TableName: _none, ...baseProperties } = base()[1].Properties ?? {};
    for (const name of ['auth-core.test.shop', 'auth-core.test.blog']) {
      const [, table] = named(name)!;
      const { TableName, ...properties } = table.Properties ?? {};
      expect(TableName).toBe(name);
      // Keys, indexes, billing, TTL, PITR, the customer-managed key, deletion protection.
      expect(properties).toEqual(baseProperties);
      expect(properties.KeySchema).toEqual(createTableInput(name).KeySchema);
      expect(properties).toMatchObject({
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true, SSEType: 'KMS' },
        DeletionProtectionEnabled: true,
      });
      expect(table.DeletionPolicy).toBe('Retain');
    }
  });

  it('outputs the app table names, their prefix, the base table and the key', () => {
    const out = outputs();
    expect(out.AppTableNames?.Value).toBe('auth-core.test.shop,auth-core.test.blog');
    expect(out.AppTableNamePrefix?.Value).toBe(PREFIX);
    expect(out.BaseTableName?.Value).toEqual({ Ref: base()[0] });
    expect(out.DataKeyArn?.Value).toEqual({
      'Fn::GetAtt': [resourcesOfType(synthesized.dataTemplate, 'AWS::KMS::Key')[0]![0], 'Arn'],
    });
  });

  it('watches each app table for throttling and system errors', () => {
    const alarms = resourcesOfType(synthesized.dataTemplate, 'AWS::CloudWatch::Alarm');
    for (const name of ['auth-core.test.shop', 'auth-core.test.blog']) {
      const [id] = named(name)!;
      const onTable = alarms.filter(([, a]) =>
        JSON.stringify(a.Properties?.Metrics ?? a.Properties?.Dimensions ?? []).includes(`"Ref":"${id}"`),
      );
      expect(onTable.length, name).toBe(2);
    }
  });

  it('refuses names DynamoDB would not accept, or a name twice', () => {
    const read = (appTables: string) => (name: string) => (name === 'appTables' ? appTables : undefined);
    for (const bad of ['shop,', 'a b', 'shop,shop', 'x/y', 'x'.repeat(255)]) {
      expect(() => stageConfigFromContext(read(bad)), bad).toThrow(ContextError);
    }
    expect(stageConfigFromContext(read(' shop ,blog')).appTables).toEqual(['auth-core.dev.shop', 'auth-core.dev.blog']);
  });
});

describe('grants and config agree on the prefix', () => {
  it('every function may use the tables under the prefix, and its config refuses any name outside it', async () => {
    const functions = routeFunctions([synthesized.workersTemplate, ...synthesized.groupTemplates]);
    const prefixes = new Set(functions.map((f) => f.properties.Environment?.Variables?.[ENV.appTablePrefix]));
    expect([...prefixes]).toEqual([PREFIX]);
    for (const fn of functions) {
      const tableResources = fn.statements
        .filter((s) => s.actions.includes('dynamodb:Query'))
        .flatMap((s) => s.resources.map(pseudoArn))
        .filter((r) => r !== undefined);
      expect(tableResources, fn.routeId).toContain(prefixTablesArn(PREFIX));
    }
    // The functions' base config, from the environment the stack gives them.
    const baseConfig = await loadBaseConfig({ env: { [ENV.appTablePrefix]: PREFIX }, file: {} });
    const problem = (name: string) =>
      coreConfigProblem({ merged: { dynamodb_table_name: name }, level: 'app', base: baseConfig });
    for (const name of ['auth-core.test.shop', 'auth-core.test.blog', `${PREFIX}added-later`]) {
      expect(problem(name), name).toBeUndefined();
    }
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz.-_0123456789'), minLength: 3, maxLength: 60 }),
        (name) =>
          name.startsWith(PREFIX) ||
          problem(name) === `'dynamodb_table_name' must start with '${PREFIX}' (the tables this deployment may use)`,
      ),
    );
    expect(problem('auth-core.prod.shop')).toMatch(/must start with 'auth-core\.test\.'/);
    // A neighbouring stage's prefix never falls inside this one's (stages have no dots).
    expect(problem('auth-core.test-eu.shop')).toMatch(/must start with/);
  });
});
