import type { SQSEvent } from 'aws-lambda';
import {
  type ImportBatchDeps,
  importStagedBatch,
  type StagedImportResult,
} from '#functions/domain/bulk-import/import-batch.js';
import type { ImportMessage } from '#functions/domain/bulk-import/message.js';
import { getDocumentClient } from '#functions/shared/clients.js';
import { ENV, optionalEnv } from '#functions/shared/env.js';
import { paceSettingsFrom, paceWrites, TablePaces } from '#functions/shared/import-pace.js';
import { logger } from '#functions/shared/logger.js';
import { METRIC } from '#functions/shared/metric-names.js';
import { importBatchDeps, returnDeps } from '#functions/wiring/import-worker.js';
import { snapshotCache } from '#functions/wiring/staged-apps.js';
import { type ReturnOutcome, returnLater } from '../backpressure.js';
import { RECORD_SCHEMAS } from '../records.js';
import { type Tally, workerHandler } from '../shell.js';
import { forBatch, type Parsed } from '../sqs-batch.js';

/** `items` and `results` (one per item, in order) side by side; refuses lists of different lengths. */
function paired<I, R>(items: readonly I[], results: readonly R[]): { item: I; result: R }[] {
  const next = results.values();
  const out = items.map((item) => {
    const step = next.next();
    if (step.done) throw new Error(`${results.length} results for ${items.length} items`);
    return { item, result: step.value };
  });
  if (!next.next().done) throw new Error(`${results.length} results for ${items.length} items`);
  return out;
}

/** What became of one message of the batch: the import's result, then (backpressure) its return. */
interface Settled extends Parsed<ImportMessage> {
  readonly result: StagedImportResult;
  returned?: ReturnOutcome;
}

/** Whether the message is done (acknowledged) or must come back by itself. */
const comesBack = ({ result, returned }: Settled) =>
  result.kind === 'retry' || (result.kind === 'backpressure' && (returned ?? 'left') === 'left');

/** Logs and counts a settled batch (a user named twice in the batch counts once). */
function account(settled: readonly Settled[], tally: Tally): void {
  const key = ({ message }: Settled) => `${message.appId}\u0000${message.id}`;
  const imported = new Set(settled.filter((s) => s.result.kind === 'imported').map(key));
  const failed = new Set(settled.filter((s) => s.result.kind === 'failed' || s.returned === 'failed').map(key));
  for (const { result, message, record } of settled) {
    if (result.kind === 'failed') logger.info('staged user failed', { appId: message.appId, id: message.id });
    if (result.kind === 'retry') logger.warn('staged user will be retried', { messageId: record.messageId });
  }
  const busy = settled.filter((s) => s.result.kind === 'backpressure');
  const count = (outcome: ReturnOutcome) => busy.filter((s) => s.returned === outcome).length;
  if (busy.length > 0) {
    const [first] = busy;
    logger.warn('import met backpressure; users come back later', {
      users: busy.length,
      returned: count('returned'),
      left: count('left'),
      failed: count('failed'),
      error: first?.result.kind === 'backpressure' ? first.result.error : undefined,
    });
  }
  tally.add(METRIC.usersImported, imported.size);
  tally.add(METRIC.usersFailed, failed.size);
  tally.add(METRIC.importThrottled, count('returned') + count('left'));
}

/** Builds the import worker; tests inject faults through `overrides` (e.g. a failing import). */
export function createImportWorker(overrides: Partial<ImportBatchDeps> = {}) {
  return workerHandler('import-worker', async (event: SQSEvent, tally) => {
    // Apps are read at most once per invocation, never kept for the next (tenants may change).
    const apps = snapshotCache();
    const deps = importBatchDeps(overrides, apps);
    return forBatch(RECORD_SCHEMAS['import-worker'], event, async (batch) => {
      const results = await importStagedBatch(
        deps,
        batch.map((b) => b.message),
      );
      const settled: Settled[] = paired(batch, results).map(({ item, result }) => ({ ...item, result }));
      const busy = settled.flatMap((s) => (s.result.kind === 'backpressure' ? [{ s, error: s.result.error }] : []));
      const outcomes = await returnLater(
        returnDeps(apps.configOf),
        busy.map(({ s, error }) => ({ message: s.message, record: s.record, error })),
      );
      for (const { item, result } of paired(busy, outcomes)) item.s.returned = result;
      account(settled, tally);
      return new Set(settled.filter(comesBack).map((s) => s.record.messageId));
    });
  });
}

let paces: TablePaces | undefined;

/**
 * The pace of this execution environment's writes (functions/shared/import-pace.ts), set up at its
 * first invocation: from then on every write attempt of its DynamoDB client waits for its units,
 * and every throttled attempt slows the table's import down. Only the deployed handler (and the
 * local runtime's, which is the same) is paced: a worker made with {@link createImportWorker} in a
 * test or the bench writes as fast as it can.
 */
function paced(): TablePaces {
  if (!paces) {
    paces = new TablePaces(paceSettingsFrom(optionalEnv(ENV.importWriteUnits), optionalEnv(ENV.importConcurrency)));
    paceWrites(getDocumentClient(), paces);
  }
  return paces;
}

const worker = createImportWorker();

/**
 * Import queue consumer (SQS event source, partial batch responses): imports the batch's staged
 * users — together where they can be, one by one where they must be — at the pace the table takes
 * them, and returns those the table (or a queue, or the key) was too busy for, with a delay
 * (functions/workers/backpressure.ts).
 */
export const handler: typeof worker = async (event, context) => {
  paced();
  return await worker(event, context);
};
