/**
 * Dead letters: a message that exhausted its receives (it reached the import queue's dead-letter
 * queue). Its row becomes FAILED with its last recorded error — unless it got there only because
 * the table, a queue or the key was busy: then it goes back to the import queue, with a delay,
 * until the backoff's bound (backoff.ts).
 */
import { type BackpressureHistory, type BackpressurePolicy, failThrottledImport, planBackpressure } from './backoff.js';
import { type FailOutcome, failPendingRow, retriesExhaustedMessage, type StagedRowDeps } from './failed-rows.js';
import type { ImportMessage } from './message.js';
import type { StagedRow } from './staging-ports.js';

/**
 * A message that exhausted its retries: its row becomes FAILED with the last transient error,
 * unless the row is gone (imported or removed) or FAILED already. `retry` when the store kept
 * changing under it (the DLQ message is then retried).
 */
export function failExhaustedImport(
  deps: StagedRowDeps,
  message: ImportMessage,
  read?: StagedRow,
): Promise<FailOutcome | 'retry'> {
  return failPendingRow(deps, message, retriesExhaustedMessage, read);
}

export type DeadLetterDecision =
  | { readonly kind: FailOutcome | 'retry' }
  /** It reached the DLQ only because of backpressure: send it to the import queue again. */
  | { readonly kind: 'requeue'; readonly delaySeconds: number; readonly history: BackpressureHistory };

/**
 * A message in the dead-letter queue. If its row's last recorded failure was backpressure, the
 * message only ran out of receives because the table, a queue or the key was busy: it goes back to
 * the import queue with a delay (its history, or now, starts the clock), until the policy's bound,
 * when the user turns FAILED saying so. Otherwise the row turns FAILED with its last error
 * ({@link failExhaustedImport}).
 */
export async function handleDeadLetter(
  deps: StagedRowDeps & { readonly policy: BackpressurePolicy },
  message: ImportMessage,
  history: BackpressureHistory | undefined,
): Promise<DeadLetterDecision> {
  // One read decides, and the FAILED write is conditioned on what it saw (read again only if refused).
  const row = await deps.store.get(message.appId, message.id);
  if (!row || row.status === 'FAILED') return { kind: 'skipped' };
  if (row.lastErrorKind !== 'backpressure') return { kind: await failExhaustedImport(deps, message, row) };
  const plan = planBackpressure(history, deps.now(), deps.policy);
  if (plan.kind === 'later') return { kind: 'requeue', delaySeconds: plan.delaySeconds, history: plan.history };
  return {
    kind: await failThrottledImport(deps, message, deps.policy, row.lastError ?? 'none recorded', row),
  };
}
