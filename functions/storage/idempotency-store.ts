/**
 * Requests remembered under an Idempotency-Key (the port in
 * functions/domain/bulk-import/staging-ports.ts), in the app's table; keys in keys/idempotency.ts.
 *
 * One conditional Put claims a key; a lease changes hands only by a conditional takeover; the
 * answer is stored gzipped in parts of at most {@link PART_BYTES} (a 10,000-user answer is
 * megabytes of JSON) before the record is marked DONE, so a record that says DONE always has its
 * whole answer. The staging store writes one chunk marker per group of rows in the rows' own
 * transaction ({@link chunkMarkerPut}). Every item carries the TTL attribute.
 */
import { randomUUID } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type {
  IdempotencyClaim,
  IdempotencyRecord,
  IdempotencyStore,
  RememberedAnswer,
  StagingOnce,
} from '#functions/domain/bulk-import/staging-ports.js';
import {
  IDEMPOTENCY_RECORD_SK,
  idempotencyAnswerPrefix,
  idempotencyAnswerSortKey,
  idempotencyChunkPrefix,
  idempotencyChunkSortKey,
  idempotencyIndexPartition,
  idempotencyIndexSortKey,
  idempotencyPartition,
} from './keys/idempotency.js';
import {
  batchDeleteAll,
  type Condition,
  defineEntity,
  forEachLimited,
  getItem,
  type Item,
  type Key,
  putItem,
  queryAll,
  queryPages,
  type Table,
  type TransactItem,
  ttlSeconds,
  updateExpression,
  updateItem,
} from './kit/index.js';

/** Bytes of compressed answer per item (items are at most 400 KB). */
const PART_BYTES = 300_000;

/** The record of a key (exported for the bench's cost model, which prices it per request). */
export const idempotencyRecord = defineEntity({
  type: 'IDEMPOTENT_REQUEST',
  key: (r: { appId: string; key: string }) => ({ PK: idempotencyPartition(r.appId, r.key), SK: IDEMPOTENCY_RECORD_SK }),
  indexes: {
    GSI1: {
      pk: (r: { appId: string; key: string }) => idempotencyIndexPartition(r.appId),
      sk: (r: { appId: string; key: string }) => idempotencyIndexSortKey(r.key),
    },
  },
});

const answerPart = defineEntity({
  type: 'IDEMPOTENT_ANSWER',
  key: (p: { appId: string; key: string; answerId: string; part: number }) => ({
    PK: idempotencyPartition(p.appId, p.key),
    SK: idempotencyAnswerSortKey(p.answerId, p.part),
  }),
});

/** One group's marker (exported for the bench's cost model, which prices it per group). */
export const chunkMarker = defineEntity({
  type: 'IDEMPOTENT_CHUNK',
  key: (c: { appId: string; once: StagingOnce; shard: number; part: number }) => ({
    PK: idempotencyPartition(c.appId, c.once.key),
    SK: idempotencyChunkSortKey(c.once.generation, c.once.round, c.shard, c.part),
  }),
});

/**
 * The marker of one group of staged rows, Put in the rows' transaction on condition that it does
 * not exist yet: its condition failing says the group committed before. `collided` are the ids of
 * the group found taken (their users are staged in the next round with fresh ids).
 */
export function chunkMarkerPut(
  table: Table,
  appId: string,
  once: StagingOnce,
  shard: number,
  part: number,
  collided: readonly string[],
): TransactItem {
  return {
    Put: {
      TableName: table.name,
      Item: chunkMarker.item(
        { appId, once, shard, part },
        { collided: [...collided], expiresAt: ttlSeconds(once.expiresAt) },
      ),
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

/** A committed group as its marker tells: the ids it found taken, and whether its messages were sent. */
export interface ChunkMarker {
  readonly collided: readonly string[];
  readonly sent: boolean;
}

/**
 * The markers of one round of a claim's staging, by `<shard>#<part>`: the groups that committed
 * (one query of the key's partition; a 10,000-user request has about 130 small markers).
 */
export async function readChunkMarkers(
  table: Table,
  appId: string,
  once: StagingOnce,
): Promise<Map<string, ChunkMarker>> {
  const prefix = idempotencyChunkPrefix(once.generation, once.round);
  const items = await queryAll(
    table,
    { pk: idempotencyPartition(appId, once.key), sk: { beginsWith: prefix } },
    { consistent: true },
  );
  return new Map(
    items.map((item) => [
      (item.SK as string).slice(prefix.length),
      { collided: (item.collided as string[] | undefined) ?? [], sent: item.sent === true },
    ]),
  );
}

/** Records on a group's marker that its users' import messages were sent. */
export async function markChunkSent(
  table: Table,
  appId: string,
  once: StagingOnce,
  shard: number,
  part: number,
): Promise<void> {
  await updateItem(table, chunkMarker.key({ appId, once, shard, part }), updateExpression({ sent: true }));
}

/** The ids a committed group found taken; undefined when the group has not committed. */
export async function readChunkMarker(
  table: Table,
  appId: string,
  once: StagingOnce,
  shard: number,
  part: number,
): Promise<string[] | undefined> {
  const item = await getItem(table, chunkMarker.key({ appId, once, shard, part }));
  return item ? ((item.collided as string[] | undefined) ?? []) : undefined;
}

/**
 * The state of a record `forget` freed: its key may be claimed again, and the record stays (with
 * its index entry, until its TTL) so app deletion still finds the key's chunk markers.
 */
const FREE = 'FREE';

function recordFromItem(item: Item | undefined, now: number): IdempotencyRecord | undefined {
  if (!item || (item.expiresAt as number) * 1000 <= now || item.state === FREE) return undefined;
  const common = {
    digest: item.digest as string,
    generation: item.generation as string,
    expiresAt: (item.expiresAt as number) * 1000,
  };
  return item.state === 'DONE'
    ? { state: 'DONE', ...common, answer: { id: item.answerId as string, parts: item.parts as number } }
    : { state: 'RUNNING', ...common, leaseUntil: item.leaseUntil as number };
}

/** The record is still this claim's and RUNNING (and, with `leaseUntil`, still holds that lease). */
function stillRunning(claim: IdempotencyClaim, leaseUntil?: number): Condition {
  const lease = leaseUntil !== undefined;
  return {
    expression: `#state = :running AND #generation = :generation${lease ? ' AND #leaseUntil = :lease' : ''}`,
    names: { '#state': 'state', '#generation': 'generation', ...(lease ? { '#leaseUntil': 'leaseUntil' } : {}) },
    values: { ':running': 'RUNNING', ':generation': claim.generation, ...(lease ? { ':lease': leaseUntil } : {}) },
  };
}

export function createIdempotencyStore(table: Table): IdempotencyStore {
  const recordKey = (appId: string, key: string) => idempotencyRecord.key({ appId, key });
  return {
    async get(appId, key, now) {
      return recordFromItem(await getItem(table, recordKey(appId, key)), now);
    },

    async claim(appId, key, claim, now) {
      return putItem(
        table,
        idempotencyRecord.item(
          { appId, key },
          {
            state: 'RUNNING',
            digest: claim.digest,
            generation: claim.generation,
            leaseUntil: claim.leaseUntil,
            expiresAt: ttlSeconds(claim.expiresAt),
          },
          { GSI1: { appId, key } },
        ),
        {
          // An expired record may still be there (TTL deletion lags): it counts as absent, as a
          // freed one does.
          expression: 'attribute_not_exists(PK) OR #expiresAt <= :now OR #state = :free',
          names: { '#expiresAt': 'expiresAt', '#state': 'state' },
          values: { ':now': Math.floor(now / 1000), ':free': FREE },
        },
      );
    },

    async takeOver(appId, key, seenLeaseUntil, claim) {
      const result = await updateItem(
        table,
        recordKey(appId, key),
        updateExpression({ leaseUntil: claim.leaseUntil }),
        stillRunning(claim, seenLeaseUntil),
      );
      return result.ok;
    },

    async release(appId, key, claim) {
      await updateItem(
        table,
        recordKey(appId, key),
        updateExpression({ leaseUntil: 0 }),
        stillRunning(claim, claim.leaseUntil),
      );
    },

    async complete(appId, key, claim, answer, expiresAt) {
      const data = gzipSync(JSON.stringify(answer));
      const parts = Math.max(1, Math.ceil(data.length / PART_BYTES));
      // The parts first, under an id of this attempt's own: a record marked DONE always has its
      // whole answer, and an attempt that loses the race to mark it never overwrites the winner's.
      const answerId = randomUUID();
      for (let part = 0; part < parts; part++) {
        await putItem(
          table,
          answerPart.item(
            { appId, key, answerId, part },
            { data: data.subarray(part * PART_BYTES, (part + 1) * PART_BYTES), expiresAt: ttlSeconds(expiresAt) },
          ),
        );
      }
      const marked = await updateItem(
        table,
        recordKey(appId, key),
        updateExpression({ state: 'DONE', answerId, parts, expiresAt: ttlSeconds(expiresAt) }),
        stillRunning(claim),
      );
      return marked.ok;
    },

    async forget(appId, key, claim) {
      // Its chunk markers stay until their TTL (a new claim of the key has another generation).
      await updateItem(table, recordKey(appId, key), updateExpression({ state: FREE }), stillRunning(claim));
    },

    async answer(appId, key, stored) {
      let where = stored;
      if (!where) {
        const record = await getItem(table, recordKey(appId, key));
        if (record?.state !== 'DONE') return undefined;
        where = { id: record.answerId as string, parts: record.parts as number };
      }
      // The parts are written before the record names them and never change: the record's word
      // (read now or by the caller) is enough to find them all.
      const items = await queryAll(
        table,
        { pk: idempotencyPartition(appId, key), sk: { beginsWith: idempotencyAnswerPrefix(where.id) } },
        { consistent: true },
      );
      if (items.length !== where.parts) throw new Error('a remembered answer is missing parts');
      const data = Buffer.concat(items.map((item) => Buffer.from(item.data as Uint8Array)));
      return JSON.parse(gunzipSync(data).toString('utf8')) as RememberedAnswer;
    },
  };
}

/** App deletion: every remembered request of the app, with its answer parts and chunk markers. */
export async function purgeAppIdempotency(table: Table, appId: string): Promise<void> {
  for await (const records of queryPages(
    table,
    { index: 'GSI1', pk: idempotencyIndexPartition(appId) },
    { attributes: ['PK'] },
  )) {
    await forEachLimited(records, 4, async (record) => {
      for await (const items of queryPages(table, { pk: record.PK as string }, { attributes: ['PK', 'SK'] })) {
        await batchDeleteAll(table, items as Key[]);
      }
    });
  }
}
