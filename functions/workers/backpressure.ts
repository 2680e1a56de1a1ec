/**
 * Returning messages that met backpressure, the queue side of functions/workers.ts
 * IMPORT_BACKPRESSURE: a copy of the message is sent to the import queue with a delay
 * (DelaySeconds) and its backpressure history as message attributes, and the original is
 * acknowledged — so waiting for capacity costs no receive and never leads to the DLQ. When the
 * send itself is refused (SQS throttling), the original is left to come back by itself, after the
 * same delay where ChangeMessageVisibility is accepted, and its row notes the backpressure so the
 * DLQ consumer re-queues rather than fails it. A user past the policy's bound turns FAILED.
 */
import type { SQSRecord } from 'aws-lambda';
import {
  type BackpressureHistory,
  type BackpressurePolicy,
  failThrottledImport,
  noteBackpressure,
  planBackpressure,
} from '#functions/domain/bulk-import/backoff.js';
import type { StagedRowDeps } from '#functions/domain/bulk-import/failed-rows.js';
import type { ImportMessage } from '#functions/domain/bulk-import/message.js';
import type { Publisher } from '#functions/shared/publisher.js';

/** Message attribute names of the history (Number attributes). */
const HISTORY_ATTRIBUTES = { since: 'backpressureSince', retries: 'backpressureRetries' } as const;

/** The history a delivered message carries, if any (values that are not plain counts are ignored). */
export function historyOf(record: Pick<SQSRecord, 'messageAttributes'>): BackpressureHistory | undefined {
  const value = (name: string) => Number(record.messageAttributes?.[name]?.stringValue);
  const since = value(HISTORY_ATTRIBUTES.since);
  if (!Number.isSafeInteger(since) || since <= 0) return undefined;
  const retries = value(HISTORY_ATTRIBUTES.retries);
  return { since, retries: Number.isSafeInteger(retries) && retries > 0 ? retries : 0 };
}

export const historyAttributes = (history: BackpressureHistory): Record<string, number> => ({
  [HISTORY_ATTRIBUTES.since]: history.since,
  [HISTORY_ATTRIBUTES.retries]: history.retries,
});

export interface ReturnDeps extends StagedRowDeps {
  readonly policy: BackpressurePolicy;
  readonly publisher: Pick<Publisher<ImportMessage>, 'sendDelayed'>;
  /** ChangeMessageVisibility of delivered messages (best effort; never throws). */
  readonly delayVisibility: (entries: readonly { receiptHandle: string; seconds: number }[]) => Promise<void>;
}

export type ReturnOutcome =
  /** A delayed copy is in the queue: acknowledge the original. */
  | 'returned'
  /** Past the bound: the row is FAILED now (or was gone / FAILED already): acknowledge. */
  | 'failed'
  | 'skipped'
  /** Not returned: the original must come back by itself (list it as a batch item failure). */
  | 'left';

export interface Returning {
  readonly message: ImportMessage;
  readonly record: Pick<SQSRecord, 'receiptHandle' | 'messageAttributes'>;
  /** Why (credential-free): kept on the row and in the FAILED message past the bound. */
  readonly error: string;
}

/** Returns each message later (see the module comment); one outcome per item, in order. */
export async function returnLater(deps: ReturnDeps, items: readonly Returning[]): Promise<ReturnOutcome[]> {
  const now = deps.now();
  const outcomes: ReturnOutcome[] = items.map(() => 'left');
  const later: { i: number; item: Returning; delaySeconds: number; history: BackpressureHistory }[] = [];
  for (const [i, item] of items.entries()) {
    const history = historyOf(item.record);
    const plan = planBackpressure(history, now, deps.policy);
    if (plan.kind === 'later') {
      later.push({ i, item, delaySeconds: plan.delaySeconds, history: plan.history });
      continue;
    }
    try {
      const result = await failThrottledImport(deps, item.message, deps.policy, item.error);
      if (result !== 'retry') {
        outcomes[i] = result;
        continue;
      }
    } catch {
      // The table refused even that: try again after the longest delay.
    }
    later.push({
      i,
      item,
      delaySeconds: deps.policy.maxDelaySeconds,
      history: history ?? { since: plan.since, retries: 0 },
    });
  }
  if (later.length > 0) {
    const sent = await deps.publisher.sendDelayed(
      later.map(({ item, delaySeconds, history }) => ({
        message: item.message,
        delaySeconds,
        attributes: historyAttributes(history),
      })),
    );
    const unsent: { receiptHandle: string; seconds: number }[] = [];
    for (const [k, { i, item, delaySeconds }] of later.entries()) {
      if (sent[k]) {
        outcomes[i] = 'returned';
        continue;
      }
      await noteBackpressure(deps, item.message, item.error);
      unsent.push({ receiptHandle: item.record.receiptHandle, seconds: delaySeconds });
    }
    if (unsent.length > 0) await deps.delayVisibility(unsent);
  }
  return outcomes;
}
