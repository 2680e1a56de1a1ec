/**
 * Shared set-up of the users/import integration tests (not a test file itself). Importing it first
 * lowers the hashing costs of the base config (bcrypt 4, small Argon2) before the config is loaded.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import type { StagingStore } from '#functions/domain/bulk-import/staging-ports.js';
import type { ImportUser } from '#functions/domain/import/types.js';
import { getDocumentClient, tableName } from '#functions/shared/clients.js';
import { setLogSink } from '#functions/shared/logger.js';
import { call, createAppWith, uniqueAppId } from '../helpers/core-client.js';

process.env.BCRYPT_LOG_ROUNDS = '4';
process.env.ARGON2_MEMORY_KB = '1024';
process.env.ARGON2_ITERATIONS = '1';
process.env.ARGON2_PARALLELISM = '1';
// Capture every level, so the credential assertions also cover debug lines.
process.env.LOG_LEVEL = 'debug';

export { call };

/**
 * Writes `users` as NEW rows straight through the staging store, as an older core or a hand-made
 * script might have: no validation, no import message. Fails unless every row was written.
 */
export async function insertRows(store: StagingStore, appId: string, users: readonly ImportUser[]): Promise<void> {
  const once = {
    key: `direct-${randomUUID()}`,
    generation: randomUUID().replaceAll('-', ''),
    round: 0,
    expiresAt: Date.now() + 3_600_000,
  };
  const written = await store.insertNewOnce(appId, users, Date.now(), once, {
    mayStart: () => true,
    send: async () => undefined,
    done: () => undefined,
    doneBefore: () => undefined,
  });
  if (!written.complete || written.collidedIds.length > 0) throw new Error('not every row was written');
}

/** Creates an app (optionally with coreConfig) and its extra tenants; returns its id. */
export async function createApp(
  coreConfig: Record<string, unknown> = {},
  tenants: string[] = [],
  prefix = 'users',
): Promise<string> {
  const appId = uniqueAppId(prefix);
  await createAppWith(appId, coreConfig, tenants);
  return appId;
}

export async function createRole(appId: string, role: string): Promise<void> {
  const r = await call('PUT', `/appid-${appId}/recipe/role`, { body: { role, permissions: [] } });
  expect(r.status, r.text).toBe(200);
}

/** Collects every log line written while the tests of a file run. */
export function captureLogs(): { lines: string[]; restore: () => void } {
  const lines: string[] = [];
  const previous = setLogSink((line) => lines.push(line));
  return { lines, restore: () => setLogSink(previous) };
}

/** Fails if any credential appears in any captured line. */
export function expectNoSecrets(lines: readonly string[], secrets: readonly string[]): void {
  const all = lines.join('\n');
  for (const secret of secrets) expect(all.includes(secret), `a log line contains a credential`).toBe(false);
}

/**
 * Every item whose partition belongs to the app (test-only Scan: proves what a write left
 * behind). The app's own partition (tenants, roles) is excluded unless `ownPartition`.
 */
export async function appItems(
  appId: string,
  options: { ownPartition?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await getDocumentClient().send(
      new ScanCommand({
        TableName: tableName(),
        ConsistentRead: true,
        FilterExpression: options.ownPartition ? 'begins_with(PK, :p) OR PK = :app' : 'begins_with(PK, :p)',
        ExpressionAttributeValues: {
          ':p': `APP#${appId}#`,
          ...(options.ownPartition ? { ':app': `APP#${appId}` } : {}),
        },
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(out.Items ?? []));
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** One item of the table, read consistently (test-only: proves what a write left). */
export async function readItem(key: Record<string, string>): Promise<Record<string, any> | undefined> {
  return (await getDocumentClient().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true })))
    .Item;
}

/** Every way an item could show a credential: its attributes as JSON, its binaries as text and as Base64. */
export function itemText(item: Record<string, any>): string {
  return Object.values(item)
    .map((v) =>
      v instanceof Uint8Array
        ? `${Buffer.from(v).toString('latin1')} ${Buffer.from(v).toString('base64')}`
        : JSON.stringify(v),
    )
    .join('\n');
}

export const keysOf = (items: readonly Record<string, unknown>[]) => items.map((i) => `${i.PK} ${i.SK}`).sort();

/**
 * A normalised import user as validation would produce it (validation bypassed on purpose): one
 * emailpassword login method in the public tenant, unverified, not primary, with `loginMethod`'s
 * fields (its credential) over those, and `extra` over the user.
 */
export function normalisedUser(
  email: string,
  loginMethod: Record<string, unknown> = {},
  extra: Partial<ImportUser> = {},
): ImportUser {
  const id = randomUUID();
  return {
    id,
    userRoles: [],
    totpDevices: [],
    loginMethods: [
      {
        recipeId: 'emailpassword',
        email,
        tenantIds: ['public'],
        isVerified: false,
        isPrimary: false,
        timeJoinedInMSSinceEpoch: 10,
        superTokensUserId: id,
        ...loginMethod,
      } as ImportUser['loginMethods'][number],
    ],
    ...extra,
  };
}

export async function importUser(appId: string, user: unknown) {
  return call('POST', `/appid-${appId}/bulk-import/import`, { body: user });
}

export async function signIn(appId: string, email: string, password: string, tenantId = 'public') {
  return call('POST', `/appid-${appId}/${tenantId}/recipe/signin`, { body: { email, password } });
}
