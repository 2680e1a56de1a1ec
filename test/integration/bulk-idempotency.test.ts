/**
 * `POST /bulk-import/users` with an Idempotency-Key, through the real handler against DynamoDB
 * Local and the local queue: replays, refusals, concurrent repeats, and repeats after an attempt
 * that stopped halfway (driven through the domain with a failing storage port).
 */
import { randomBytes } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  IDEMPOTENCY_LEASE_MS,
  type KeyedStagingDeps,
  requestDigest,
  stageRequestOnce,
} from '#functions/domain/bulk-import/idempotency.js';
import { importMessage } from '#functions/domain/bulk-import/message.js';
import type { IdempotencyStore } from '#functions/domain/bulk-import/staging-ports.js';
import { createIdempotencyStore } from '#functions/storage/idempotency-store.js';
import type { Table } from '#functions/storage/kit/index.js';
import { createStagingStore } from '#functions/storage/staging/store.js';
import { credentialsEnvelope } from '#functions/wiring/credentials.js';
import { importValidationContext } from '#functions/wiring/import.js';
import { importPublisher } from '#functions/wiring/import-queue.js';
import { loadRequestTenants } from '#functions/wiring/request.js';
import { baseTable } from '#functions/wiring/tables.js';
import {
  appItems,
  BCRYPT_HASH,
  call,
  createApp,
  createRole,
  epUser,
  listAll,
  stagedCount,
  useBulkTestFile,
  userCount,
  waitUntilDone,
  whilePipelineRuns,
} from './bulk-support.js';

const { pair } = useBulkTestFile([BCRYPT_HASH], 2);

const REUSED = 'Idempotency-Key is already used with a different request body';
const BUSY = 'A request with this Idempotency-Key is still being processed; retry later';
const INVALID_KEY = 'Idempotency-Key must be 1 to 255 printable ASCII characters';

const path = (appId: string) => `/appid-${appId}/bulk-import/users`;
const users = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => epUser(i, {}, prefix));

function stageWithKey(appId: string, key: string, body: unknown, options: { gzip?: boolean } = {}) {
  return call('POST', path(appId), { body, headers: { 'idempotency-key': key }, ...options });
}

/** The staged ids an answer lists (each user's login methods' ids), in order. */
const idsOf = (answer: { users: { loginMethods: { userId: string }[] }[] }) =>
  answer.users.flatMap((u) => u.loginMethods.map((m) => m.userId));

const sorted = (ids: Iterable<string>) => [...ids].sort();

describe('Idempotency-Key on POST /bulk-import/users', () => {
  it('the same key and body stage once: the repeat replays status, body and ids, and stages nothing', async () => {
    const appId = await createApp({}, [], 'idem');
    const body = { users: users(120, 'same') };
    const first = await stageWithKey(appId, 'migration-1/chunk-0', body);
    expect(first.status, first.text).toBe(200);
    expect(first.json.users).toHaveLength(120);
    const rows = await listAll(appId);
    expect(sorted(rows.map((r) => r.id))).toEqual(sorted(idsOf(first.json)));

    expect(first.headers['idempotency-replayed']).toBeUndefined();
    // The same JSON bytes, plain or gzipped, are the same body.
    for (const gzip of [false, true]) {
      const again = await stageWithKey(appId, 'migration-1/chunk-0', body, { gzip });
      expect(again.status).toBe(200);
      expect(again.text).toBe(first.text);
      expect(again.contentType).toContain('application/json');
      expect(again.headers['idempotency-replayed']).toBe('true');
    }
    expect(await stagedCount(appId, 'NEW')).toBe(120);
    expect(sorted((await listAll(appId)).map((r) => r.id))).toEqual(sorted(idsOf(first.json)));

    // Without the header, the same body is staged again (the reference's behaviour).
    const plain = await call('POST', path(appId), { body });
    expect(plain.status).toBe(200);
    expect(await stagedCount(appId, 'NEW')).toBe(240);
  });

  it('the same key with another body is refused with 422 and stages nothing', async () => {
    const appId = await createApp({}, [], 'idem');
    const first = await stageWithKey(appId, 'k1', { users: users(3, 'a') });
    expect(first.status, first.text).toBe(200);
    const stagedFirst = sorted((await listAll(appId)).map((r) => r.id));
    const other = await stageWithKey(appId, 'k1', { users: users(3, 'b') });
    expect([other.status, other.text]).toEqual([422, REUSED]);
    expect(other.contentType).toContain('text/plain');
    // Byte-identical JSON only: the same users with the keys in another order are another body.
    const reordered = await call('POST', path(appId), {
      rawBody: JSON.stringify({ users: users(3, 'a') }, null, 1),
      headers: { 'idempotency-key': 'k1' },
    });
    expect([reordered.status, reordered.text]).toEqual([422, REUSED]);
    expect(reordered.contentType).toContain('text/plain');
    // Nothing new staged, and the key still holds the first request's answer.
    expect(await stagedCount(appId)).toBe(3);
    expect(sorted((await listAll(appId)).map((r) => r.id))).toEqual(stagedFirst);
    const replay = await stageWithKey(appId, 'k1', { users: users(3, 'a') });
    expect([replay.status, replay.text]).toEqual([200, first.text]);
    expect(replay.headers['idempotency-replayed']).toBe('true');
    // Keys belong to an app: another app's k1 is a new request.
    const otherApp = await createApp({}, [], 'idem');
    expect((await stageWithKey(otherApp, 'k1', { users: users(3, 'b') })).status).toBe(200);
  });

  it('remembers a 400 validation answer: the same body answers the same 400 even once it would be valid', async () => {
    const appId = await createApp({}, [], 'idem');
    const body = { users: [epUser(1, { userRoles: [{ role: 'later', tenantIds: ['public'] }] }, 'v')] };
    const first = await stageWithKey(appId, 'v-1', body);
    expect(first.status).toBe(400);
    expect(first.json.users[0].errors).toEqual(['Role later does not exist.']);
    await createRole(appId, 'later');
    const again = await stageWithKey(appId, 'v-1', body);
    expect([again.status, again.text]).toEqual([400, first.text]);
    expect(again.contentType).toContain('application/json');
    expect(await stagedCount(appId)).toBe(0);
    // A body the pre-checks refuse is refused before any key is claimed: nothing to remember.
    const tooMany = await stageWithKey(appId, 'v-2', { users: Array.from({ length: 10_001 }, () => ({})) });
    expect([tooMany.status, tooMany.text]).toEqual([400, '{"error":"You can only add 10000 users at a time."}']);
    expect(tooMany.contentType).toContain('application/json');
    expect((await appItems(appId)).filter((i) => i.entityType === 'IDEMPOTENT_REQUEST')).toHaveLength(1);
  });

  it('concurrent requests with the same key: one stages, the others are told to retry or replay', async () => {
    const appId = await createApp({}, [], 'idem');
    const body = { users: users(400, 'conc') };
    const answers = await Promise.all(Array.from({ length: 4 }, () => stageWithKey(appId, 'together', body)));
    const staged = answers.filter((a) => a.status === 200);
    expect(staged.length).toBeGreaterThanOrEqual(1);
    for (const a of answers) {
      if (a.status === 409) expect(a.text).toBe(BUSY);
      else {
        expect(a.status).toBe(200);
        expect(a.text).toBe((staged[0] as (typeof staged)[number]).text);
      }
    }
    expect(await stagedCount(appId, 'NEW')).toBe(400);
    const after = await stageWithKey(appId, 'together', body);
    expect(after.text).toBe((staged[0] as (typeof staged)[number]).text);
    expect(await stagedCount(appId, 'NEW')).toBe(400);
  });

  it('a busy key answers 409 with Retry-After while its lease runs', async () => {
    const appId = await createApp({}, [], 'idem');
    const body = { users: users(2, 'busy') };
    // A claim taken by a request that is still running (its lease runs for a minute).
    const requests = createIdempotencyStore(baseTable);
    const now = Date.now();
    const claimed = await requests.claim(
      appId,
      'held',
      {
        digest: requestDigest(Buffer.from(JSON.stringify(body))),
        generation: randomBytes(16).toString('hex'),
        leaseUntil: now + IDEMPOTENCY_LEASE_MS,
        expiresAt: now + 3_600_000,
      },
      now,
    );
    expect(claimed).toBe(true);
    const held = await stageWithKey(appId, 'held', body);
    expect([held.status, held.text]).toEqual([409, BUSY]);
    expect(held.contentType).toContain('text/plain');
    expect(Number(held.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(held.headers['retry-after'])).toBeLessThanOrEqual(60);
    const other = await stageWithKey(appId, 'held', { users: users(1, 'busy') });
    expect([other.status, other.text]).toEqual([422, REUSED]);
    expect(await stagedCount(appId)).toBe(0);
  });

  it('Idempotency-Key values: a valid key replays, anything else is a 400, never a 5xx', async () => {
    const appId = await createApp({}, [], 'idem');
    const body = { users: [epUser(1, {}, 'fuzz')] };
    const printable = fc.string({
      unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
      minLength: 1,
      maxLength: 255,
    });
    const anyText = fc.string({ unit: 'binary', maxLength: 300 });
    await fc.assert(
      fc.asyncProperty(fc.oneof(printable, anyText, fc.constant(''), fc.constant('x'.repeat(256))), async (key) => {
        const valid = /^[\x21-\x7e]{1,255}$/.test(key);
        const first = await stageWithKey(appId, key, body);
        expect(first.status).toBeLessThan(500);
        if (!valid) {
          expect([first.status, first.text]).toEqual([400, INVALID_KEY]);
          return;
        }
        expect(first.status).toBe(200);
        const again = await stageWithKey(appId, key, body);
        expect(again.status).toBe(200);
        expect(again.headers['idempotency-replayed']).toBe('true');
        expect(again.text).toBe(first.text);
      }),
      { numRuns: 40 },
    );
  });
});

describe('Idempotency-Key after an attempt that stopped halfway', () => {
  /**
   * A table whose client fails every TransactWrite after the first `commits` (a core that stops
   * there); `settled` waits for the calls already under way, which a stopped process would not finish
   * either but which here land after the attempt has failed.
   */
  function stoppingTable(commits: number): Table & { settled: () => Promise<void> } {
    let left = commits;
    const inFlight: Promise<unknown>[] = [];
    const client = () =>
      new Proxy(baseTable.client(), {
        get(target, prop, receiver) {
          if (prop !== 'send') return Reflect.get(target, prop, receiver);
          return (command: { constructor: { name: string } }, ...rest: unknown[]) => {
            if (command.constructor.name === 'TransactWriteCommand' && left-- <= 0)
              return Promise.reject(new Error('the core stopped here'));
            const sent = (target.send as (...a: unknown[]) => Promise<unknown>).call(target, command, ...rest);
            inFlight.push(sent.catch(() => undefined));
            return sent;
          };
        },
      }) as DynamoDBDocumentClient;
    return { name: baseTable.name, client, settled: async () => void (await Promise.all(inFlight)) };
  }

  /** What the stopped attempt had: stores on `table`, a clock two leases back, no release (it died). */
  async function stoppedAttempt(
    appId: string,
    key: string,
    body: { users: unknown[] },
    table: Table,
    requests: IdempotencyStore = createIdempotencyStore(baseTable),
  ): Promise<string[]> {
    const tenants = await loadRequestTenants(appId, 'public');
    const published: string[] = [];
    const deps: KeyedStagingDeps = {
      store: createStagingStore(table, baseTable, credentialsEnvelope),
      publisher: { publish: async (messages) => void published.push(...messages.map((m) => m.id)) },
      now: () => Date.now() - 2 * IDEMPOTENCY_LEASE_MS,
      warn: () => undefined,
      requests: { ...requests, release: async () => undefined },
      newGeneration: () => randomBytes(16).toString('hex'),
    };
    await expect(
      stageRequestOnce(
        deps,
        appId,
        { key, digest: requestDigest(Buffer.from(JSON.stringify(body))), users: body.users },
        () => importValidationContext(appId, tenants.config),
      ),
    ).rejects.toThrow('the core stopped here');
    return published;
  }

  // Two imports of up to 600 users through the pipeline: a hang guard above the project's 60 s,
  // which a loaded shared machine exceeded.
  it('some groups committed and were imported since: the repeat stages only the others, every user once, 0 FAILED', {
    timeout: 180_000,
  }, async () => {
    const appId = await createApp({}, [], 'idem');
    // 600 users over 32 counter shards: about 19 per shard, one group each; 5 groups commit.
    const body = { users: users(600, 'crash') };
    const stopping = stoppingTable(5);
    const published = await stoppedAttempt(appId, 'crash-1', body, stopping);
    await stopping.settled();
    const early = await listAll(appId);
    expect(early.length).toBeGreaterThan(0);
    expect(early.length).toBeLessThan(600);
    expect(await stagedCount(appId, 'NEW')).toBe(early.length);
    // Each group's messages went out once it had committed: only groups that committed, and only
    // while the attempt was running (a group committed as it stopped may still be unsent).
    const earlyIds = new Set(early.map((r) => r.id));
    for (const id of published) expect(earlyIds.has(id)).toBe(true);

    // Those rows get imported (what the attempt did not send, as the reconciler would send it).
    await whilePipelineRuns(pair(), async () => {
      await importPublisher.publish(early.map((r) => importMessage(appId, r.id)));
      await waitUntilDone(appId);
    });
    expect(await userCount(appId)).toBe(early.length);

    const repeat = await stageWithKey(appId, 'crash-1', body);
    expect(repeat.status, repeat.text).toBe(200);
    const ids = idsOf(repeat.json);
    expect(new Set(ids).size).toBe(600);
    for (const id of earlyIds) expect(ids).toContain(id);
    // Only the groups that had not committed were written now.
    const rest = await listAll(appId);
    expect(rest.length + early.length).toBe(600);
    for (const row of rest) expect(earlyIds.has(row.id)).toBe(false);

    await whilePipelineRuns(pair(), () => waitUntilDone(appId));
    expect(await userCount(appId)).toBe(600);
    expect(await stagedCount(appId, 'FAILED')).toBe(0);
    const replay = await stageWithKey(appId, 'crash-1', body);
    expect(replay.text).toBe(repeat.text);
    expect(await stagedCount(appId)).toBe(0);
  });

  it('every row written but the answer not remembered: the repeat writes nothing and answers the same ids', async () => {
    const appId = await createApp({}, [], 'idem');
    const body = { users: users(150, 'late') };
    const real = createIdempotencyStore(baseTable);
    const published = await stoppedAttempt(appId, 'late-1', body, baseTable, {
      ...real,
      complete: async () => {
        throw new Error('the core stopped here');
      },
    });
    const staged = await listAll(appId);
    expect(staged).toHaveLength(150);
    expect(sorted(published)).toEqual(sorted(staged.map((r) => r.id)));
    const repeat = await stageWithKey(appId, 'late-1', body);
    expect(repeat.status).toBe(200);
    expect(sorted(idsOf(repeat.json))).toEqual(sorted(staged.map((r) => r.id)));
    expect(await stagedCount(appId, 'NEW')).toBe(150);
    expect(await listAll(appId)).toHaveLength(150);
  });

  it('a key whose first attempt failed is resumed at once (its lease was released)', async () => {
    const appId = await createApp({}, [], 'idem');
    const body = { users: users(100, 'release') };
    const tenants = await loadRequestTenants(appId, 'public');
    const stopping = stoppingTable(2);
    const deps: KeyedStagingDeps = {
      store: createStagingStore(stopping, baseTable, credentialsEnvelope),
      publisher: importPublisher,
      now: Date.now,
      warn: () => undefined,
      requests: createIdempotencyStore(baseTable),
      newGeneration: () => randomBytes(16).toString('hex'),
    };
    await expect(
      stageRequestOnce(
        deps,
        appId,
        { key: 'r-1', digest: requestDigest(Buffer.from(JSON.stringify(body))), users: body.users },
        () => importValidationContext(appId, tenants.config),
      ),
    ).rejects.toThrow('the core stopped here');
    await stopping.settled();
    const repeat = await stageWithKey(appId, 'r-1', body);
    expect(repeat.status).toBe(200);
    expect(await stagedCount(appId, 'NEW')).toBe(100);
    expect(sorted((await listAll(appId)).map((r) => r.id))).toEqual(sorted(idsOf(repeat.json)));
  });
});

describe('app deletion', () => {
  it('removes the remembered requests with the app: a new app of the same id stages the key afresh', async () => {
    const appId = await createApp({}, [], 'idem');
    const body = { users: users(5, 'del') };
    expect((await stageWithKey(appId, 'd-1', body)).status).toBe(200);
    expect((await appItems(appId)).some((i) => String(i.PK).includes('#IDEM#'))).toBe(true);
    const removed = await call('POST', '/recipe/multitenancy/app/remove', { body: { appId } });
    expect(removed.status, removed.text).toBe(200);
    expect(await appItems(appId)).toEqual([]);
    expect((await call('PUT', '/recipe/multitenancy/app/v2', { body: { appId } })).status).toBe(200);
    const again = await stageWithKey(appId, 'd-1', body);
    expect(again.status).toBe(200);
    expect(await stagedCount(appId, 'NEW')).toBe(5);
  });
});
