/**
 * Backoff: a user the table (or a queue, or the key) was too busy for comes back later, with a
 * growing delay, for a bounded time — throttling slows an import down and never fails a user
 * within that bound. The policy's values are {@link IMPORT_BACKPRESSURE}; the queue
 * side (delayed copies, message attributes) is functions/workers/backpressure.ts.
 */
import { type FailOutcome, failPendingRow, type StagedRowDeps } from './failed-rows.js';
import type { ImportMessage } from './message.js';
import type { StagedRow } from './staging-ports.js';

/** How the import backs off (the values are {@link IMPORT_BACKPRESSURE}). */
export interface BackpressurePolicy {
  /** Delay before the first return; it doubles with every return (jittered: half to all of it). */
  readonly firstDelaySeconds: number;
  /** The longest delay (SQS allows 900 s). */
  readonly maxDelaySeconds: number;
  /** A user still refused this long after its first backpressure turns FAILED. */
  readonly giveUpAfterSeconds: number;
}

/**
 * How the import backs off when DynamoDB (or SQS, or KMS) pushes back — throttling, capacity
 * errors, conflicting transactions, 5xx: never a reason to fail a user. A message that met
 * backpressure is sent to the import queue again (SQS DelaySeconds, so its receive count starts
 * over and it never reaches the DLQ for it) after `firstDelaySeconds`, doubling with every return
 * up to `maxDelaySeconds` (each delay jittered to half–all of it): 30 s, 1, 2, 4, 8 min, then
 * every 15 min. A user still refused `giveUpAfterSeconds` after its first backpressure turns
 * FAILED with a message that says so ({@link throttledTooLongMessage}). The local runtime and the
 * tests may shorten all three (`IMPORT_BACKPRESSURE`, functions/shared/env.ts;
 * functions/wiring/staged-apps.ts backpressurePolicy).
 */
export const IMPORT_BACKPRESSURE: BackpressurePolicy = {
  firstDelaySeconds: 30,
  maxDelaySeconds: 900,
  giveUpAfterSeconds: 6 * 3600,
};

/** A message's record of backpressure, carried with it from one delivery to the next. */
export interface BackpressureHistory {
  /** Epoch ms of the first backpressure this user met. */
  readonly since: number;
  /** How often it was returned so far. */
  readonly retries: number;
}

export type BackpressurePlan =
  /** Send the message again after `delaySeconds`, carrying `history`. */
  | { readonly kind: 'later'; readonly delaySeconds: number; readonly history: BackpressureHistory }
  /** Refused for longer than the policy allows: the user turns FAILED ({@link throttledTooLongMessage}). */
  | { readonly kind: 'give-up'; readonly since: number };

/** What to do with a message that met backpressure (again), given its history. */
export function planBackpressure(
  history: BackpressureHistory | undefined,
  now: number,
  policy: BackpressurePolicy,
  random: () => number = Math.random,
): BackpressurePlan {
  const since = Math.min(history?.since ?? now, now);
  if (now - since >= policy.giveUpAfterSeconds * 1000) return { kind: 'give-up', since };
  const retries = (history?.retries ?? 0) + 1;
  const ceiling = Math.min(policy.maxDelaySeconds, policy.firstDelaySeconds * 2 ** Math.min(retries - 1, 20));
  return { kind: 'later', delaySeconds: Math.round(ceiling * (0.5 + random() / 2)), history: { since, retries } };
}

/** A duration as the FAILED message and docs/bulk-import.md say it (`6 h`, `90 min`, `45 s`). */
function describeDuration(seconds: number): string {
  if (seconds >= 3600 && seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds >= 60 && seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** The FAILED message of a user the table stayed too busy for (no credential: `lastError` is scrubbed). */
export const throttledTooLongMessage = (policy: BackpressurePolicy, lastError: string | undefined) =>
  `Import gave up after ${describeDuration(policy.giveUpAfterSeconds)} of throttling: DynamoDB (or SQS or KMS) ` +
  'kept refusing the import for lack of capacity, so nothing of this user was written. Stage the user again ' +
  'once the table has capacity (warm it, or lower the import concurrency).' +
  (lastError ? ` Last error: ${lastError}` : '');

/** The bound of {@link planBackpressure} was reached: the row turns FAILED, saying so. */
export function failThrottledImport(
  deps: StagedRowDeps,
  message: ImportMessage,
  policy: BackpressurePolicy,
  lastError: string,
  read?: StagedRow,
): Promise<FailOutcome | 'retry'> {
  return failPendingRow(deps, message, () => throttledTooLongMessage(policy, lastError), read);
}

/**
 * The message could not be returned with a delay (the send itself was refused): it comes back by
 * its visibility timeout instead, and its receive count grows towards the dead-letter queue. The
 * row remembers why (best effort), so the DLQ consumer re-queues it instead of failing it.
 */
export async function noteBackpressure(deps: StagedRowDeps, message: ImportMessage, error: string): Promise<void> {
  try {
    await deps.store.noteTransientError(message.appId, message.id, error, deps.now(), 'backpressure');
  } catch {
    // Best effort: without the note the DLQ consumer fails the user with its last recorded error.
  }
}
