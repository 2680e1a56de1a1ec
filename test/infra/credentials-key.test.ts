/**
 * Credentials at rest on AWS: a customer-managed key of its own seals staged credentials and app
 * secrets, and only the functions whose manifest entry says `access.credentials` may use it —
 * GenerateDataKey where credentials are written (`seal`), Decrypt where they are read (`open`),
 * always with an encryption context naming an app.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, type RouteDefinition } from '#functions/routes.js';
import { ENV } from '#functions/shared/env.js';
import { CREDENTIAL_PURPOSES } from '../../lib/constructs/service-function.js';
import { resourcesOfType, synth } from './synth.js';
import { type PolicyStatement, type RouteFunction, routeFunctions } from './template-helpers.js';

const CONDITIONS = {
  StringEquals: { 'kms:EncryptionContext:purpose': [...CREDENTIAL_PURPOSES] },
  Null: { 'kms:EncryptionContext:appId': 'false' },
};

/** The statements that name the function's credentials key (the value it is told in CREDENTIALS_KEY_ARN). */
function credentialStatements(fn: RouteFunction): PolicyStatement[] {
  const arn = fn.properties.Environment?.Variables?.[ENV.credentialsKeyArn];
  if (arn === undefined) {
    return fn.statements.filter((s) => s.conditions !== undefined && JSON.stringify(s.conditions).includes('purpose'));
  }
  return fn.statements.filter((s) => s.resources.some((r) => JSON.stringify(r) === JSON.stringify(arn)));
}

const expectedActions = (route: Pick<RouteDefinition, 'access'>) =>
  route.access.credentials === 'seal'
    ? ['kms:GenerateDataKey']
    : route.access.credentials === 'open'
      ? ['kms:Decrypt']
      : route.access.credentials === 'seal-and-open'
        ? ['kms:GenerateDataKey', 'kms:Decrypt']
        : [];

let functions: RouteFunction[];
let dataTemplate: Template;

beforeAll(() => {
  const synthesized = synth();
  functions = routeFunctions(synthesized.groupTemplates);
  dataTemplate = synthesized.dataTemplate;
});

describe('the credentials key', () => {
  it('is a rotating customer-managed key of its own, neither the table’s nor the queues’', () => {
    const keys = resourcesOfType(dataTemplate, 'AWS::KMS::Key');
    const credentials = keys.find(([id]) => id.startsWith('CredentialsKey'));
    expect(credentials, 'CredentialsKey').toBeDefined();
    expect(credentials![1].Properties?.EnableKeyRotation).toBe(true);
    const used = JSON.stringify([
      ...resourcesOfType(dataTemplate, 'AWS::DynamoDB::Table'),
      ...resourcesOfType(dataTemplate, 'AWS::SQS::Queue'),
      ...resourcesOfType(dataTemplate, 'AWS::SNS::Topic'),
    ]);
    expect(used).not.toContain(credentials![0]);
  });
});

describe('grants from access.credentials (functions/routes.ts)', () => {
  it('seals where credentials are written and opens where they are read, nowhere else', () => {
    const byId = new Map(ROUTES.map((r) => [r.id, r]));
    expect(byId.get('bulk-import-users-add')!.access.credentials).toBe('seal');
    expect(byId.get('app-put-v2')!.access.credentials).toBe('seal');
    expect(byId.get('signin')!.access.credentials).toBe('open');
    // The routes that sign tokens open private signing keys and seal the next one when it is due.
    for (const id of ['session-create', 'session-refresh', 'session-verify', 'session-regenerate', 'jwt-create']) {
      expect(byId.get(id)!.access.credentials, id).toBe('seal-and-open');
    }
    // The JWKS routes make an app's first keys (and the next dynamic key when due): they seal, never open.
    for (const id of ['jwks-public', 'jwt-jwks']) expect(byId.get(id)!.access.credentials, id).toBe('seal');
    // Listing and revoking sessions, and session data need no key at all.
    for (const id of ['session-get', 'session-user', 'session-remove', 'session-data-put']) {
      expect(byId.get(id)!.access.credentials, id).toBeUndefined();
    }
    // The single import seals the TOTP secrets it imports, and so does device creation.
    expect(byId.get('bulk-import-import')!.access.credentials).toBe('seal');
    expect(byId.get('totp-device-create')!.access.credentials).toBe('seal');
    // An OAuth2 client's secret is sealed where it is written, opened where a client is shown.
    expect(byId.get('oauth-client-create')!.access.credentials).toBe('seal');
    expect(byId.get('oauth-client-update')!.access.credentials).toBe('seal-and-open');
    expect(byId.get('oauth-client-remove')!.access.credentials).toBeUndefined();
    // Renaming and removing TOTP devices need neither (a rename moves the sealed secret as it is).
    for (const id of ['totp-device-rename', 'totp-device-remove']) {
      expect(byId.get(id)!.access.credentials, id).toBeUndefined();
    }
    // The tenant reads the SDK makes open the providers' secrets; the app list shows fingerprints.
    for (const id of ['tenant-get-v2', 'tenant-get', 'tenant-list-v2', 'tenant-list']) {
      expect(byId.get(id)!.access.credentials, id).toBe('open');
    }
    // Listing staged rows, listing apps and the TOTP device list need neither.
    for (const id of ['bulk-import-users-list', 'app-list-v2', 'app-list', 'totp-devices-list', 'signup']) {
      expect(byId.get(id)!.access.credentials, id).toBeUndefined();
    }
    // Every route that may open is one of these.
    expect(
      ROUTES.filter((r) => r.access.credentials?.includes('open'))
        .map((r) => r.id)
        .sort(),
    ).toEqual(
      [
        'tenant-get-v2',
        'tenant-get',
        'tenant-list-v2',
        'tenant-list',
        'signin',
        'session-create',
        'session-refresh',
        'session-verify',
        'session-regenerate',
        'jwt-create',
        // The two that verify TOTP codes open device secrets.
        'totp-device-verify',
        'totp-verify',
        // The OAuth2 client answers show the client's secret.
        'oauth-clients-list',
        'oauth-client-get',
        'oauth-client-update',
      ].sort(),
    );
  });

  it('gives each route exactly its action on the credentials key, with an app-bound encryption context', () => {
    expect(functions).toHaveLength(ROUTES.length);
    for (const fn of functions) {
      const route = ROUTES.find((r) => r.id === fn.routeId)!;
      const statements = credentialStatements(fn);
      expect(statements.flatMap((s) => s.actions).sort(), fn.routeId).toEqual(expectedActions(route).sort());
      for (const statement of statements) expect(statement.conditions, fn.routeId).toEqual(CONDITIONS);
      expect(fn.properties.Environment?.Variables?.[ENV.credentialsKeyArn] !== undefined, fn.routeId).toBe(
        route.access.credentials !== undefined,
      );
    }
  });

  it('never lets a table reader decrypt with the credentials key through its table grant', () => {
    for (const fn of functions.filter(
      (f) => ROUTES.find((r) => r.id === f.routeId)!.access.credentials === undefined,
    )) {
      const arn = JSON.stringify(fn.properties.Environment?.Variables?.[ENV.credentialsKeyArn]);
      expect(arn, fn.routeId).toBe(undefined);
      const kms = fn.statements.filter((s) => s.actions.some((a) => a.startsWith('kms:')));
      // Their KMS statements (table and queue key) carry no credentials condition and name one key.
      for (const statement of kms) expect(statement.conditions, fn.routeId).toBeUndefined();
    }
  });

  it('follows the manifest: a route given `open` gets Decrypt, one given `seal` GenerateDataKey', () => {
    const routes = ROUTES.map((r) =>
      r.id === 'bulk-import-users-list'
        ? { ...r, access: { ...r.access, credentials: 'open' as const } }
        : r.id === 'bulk-import-users-add'
          ? { ...r, access: { table: 'write' as const, queue: 'send' as const } }
          : r,
    );
    const changed = routeFunctions(synth({ routes }).groupTemplates);
    const of = (id: string) => changed.find((f) => f.routeId === id)!;
    expect(credentialStatements(of('bulk-import-users-list')).flatMap((s) => s.actions)).toEqual(['kms:Decrypt']);
    expect(credentialStatements(of('bulk-import-users-add')).flatMap((s) => s.actions)).toEqual([]);
  });
});
