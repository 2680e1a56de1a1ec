/**
 * The queue workers' SQS shell (functions/workers/sqs-batch.ts): each record's body is parsed by its
 * worker's record schema before any work; a record that can never parse is acknowledged (refused up
 * front, never retried); the partial batch response lists exactly the records that must come back.
 */
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importMessage } from '#functions/domain/bulk-import/message.js';
import { setLogSink } from '#functions/shared/logger.js';
import { RECORD_SCHEMAS } from '#functions/workers/records.js';
import { forBatch, forEachRecord } from '#functions/workers/sqs-batch.js';

const record = (messageId: string, body: string): SQSRecord =>
  ({ messageId, receiptHandle: `rh-${messageId}`, body, messageAttributes: {} }) as unknown as SQSRecord;
const good = (messageId: string, id = messageId) => record(messageId, JSON.stringify(importMessage('app1', id)));
const eventOf = (...records: SQSRecord[]): SQSEvent => ({ Records: records });
const listed = (answer: { batchItemFailures: { itemIdentifier: string }[] }) =>
  answer.batchItemFailures.map((f) => f.itemIdentifier).sort();

/** Bodies that can never be an import message: not JSON, or JSON of another shape. */
const malformedBody = fc.oneof(
  fc.string().filter((s) => {
    try {
      JSON.parse(s);
      return false;
    } catch {
      return true;
    }
  }),
  fc.json().filter((s) => !RECORD_SCHEMAS['import-worker'].body.safeParse(JSON.parse(s)).success),
  fc.record({ v: fc.constant(1), appId: fc.string({ minLength: 65 }), id: fc.string() }).map((m) => JSON.stringify(m)),
  fc.constantFrom('{"v":2,"appId":"a","id":"b"}', '{"v":1,"appId":"","id":"b"}', '{"v":1,"appId":"a"}', 'null', '[]'),
);

let lines: string[] = [];
let previous: ((line: string) => void) | undefined;
beforeEach(() => {
  lines = [];
  previous = setLogSink((line) => lines.push(line));
});
afterEach(() => {
  if (previous) setLogSink(previous);
});

describe('forEachRecord (the DLQ consumer)', () => {
  const records = RECORD_SCHEMAS['dlq-consumer'];

  it('lists exactly the records whose work returns false or throws; the others are acknowledged', async () => {
    const answer = await forEachRecord(records, eventOf(good('a'), good('b'), good('c'), good('d')), async (m) => {
      if (m.id === 'b') return false;
      if (m.id === 'c') throw new Error('table unavailable');
      return true;
    });
    expect(listed(answer)).toEqual(['b', 'c']);
    const failed = lines.map((l) => JSON.parse(l)).filter((l) => l.message === 'import message failed');
    expect(failed).toMatchObject([{ level: 'error', messageId: 'c', error: { message: 'table unavailable' } }]);
  });

  it('answers a batch in which every record fails with all of them listed (no error)', async () => {
    const answer = await forEachRecord(records, eventOf(good('a'), good('b')), async () => false);
    expect(listed(answer)).toEqual(['a', 'b']);
  });

  it('answers an event without records with no failures', async () => {
    expect(await forEachRecord(records, { Records: [] }, async () => false)).toEqual({ batchItemFailures: [] });
  });

  it('refuses a body that can never parse up front: never worked on, never listed, logged by message id only', async () => {
    await fc.assert(
      fc.asyncProperty(malformedBody, async (body) => {
        lines = [];
        const seen: string[] = [];
        const answer = await forEachRecord(records, eventOf(record('bad', body), good('ok')), async (m) => {
          seen.push(m.id);
          return false;
        });
        expect(seen).toEqual(['ok']);
        expect(listed(answer)).toEqual(['ok']);
        expect(lines.map((l) => JSON.parse(l))).toMatchObject([
          { level: 'error', message: 'dropping a malformed import message', messageId: 'bad' },
        ]);
        if (body.length > 24) expect(lines.join('\n')).not.toContain(body);
      }),
      { numRuns: 100 },
    );
  });
});

describe('forBatch (the import worker)', () => {
  const records = RECORD_SCHEMAS['import-worker'];

  it('gives the work the well-formed records together and lists exactly the ids it returns', async () => {
    const answer = await forBatch(
      records,
      eventOf(good('a'), record('bad', 'not json'), good('b'), good('c')),
      async (batch) => {
        expect(batch.map((b) => [b.record.messageId, b.message])).toEqual([
          ['a', importMessage('app1', 'a')],
          ['b', importMessage('app1', 'b')],
          ['c', importMessage('app1', 'c')],
        ]);
        return new Set(['b']);
      },
    );
    expect(listed(answer)).toEqual(['b']);
  });

  it('lists every well-formed record when the work throws, never the malformed ones', async () => {
    const answer = await forBatch(records, eventOf(good('a'), record('bad', '{}'), good('b')), async () => {
      throw new TypeError('boom');
    });
    expect(listed(answer)).toEqual(['a', 'b']);
    expect(lines.map((l) => JSON.parse(l).message)).toEqual([
      'dropping a malformed import message',
      'import batch failed',
    ]);
  });

  it('lists only ids of the batch, and does not call the work for a batch of malformed records', async () => {
    let called = false;
    const onlyBad = await forBatch(records, eventOf(record('x', '[]')), async () => {
      called = true;
      return new Set(['x']);
    });
    expect(called).toBe(false);
    expect(onlyBad).toEqual({ batchItemFailures: [] });
    const answer = await forBatch(records, eventOf(good('a'), good('b')), async () => new Set(['a', 'b', 'elsewhere']));
    expect(listed(answer)).toEqual(['a', 'b']);
  });
});
