/**
 * How a staged row becomes FAILED — the one way, whoever decides it (the import of a batch,
 * dead letters, backoff): one write conditioned on the row as the caller read it (its status and
 * the time it was staged), its credentials erased in the same write; a refused write means a
 * concurrent change won (the row was imported, removed or failed meanwhile) and nothing is written.
 * The texts a FAILED row can carry are here too (docs/import-pipeline.md lists them); none holds a
 * credential.
 */
import { READ_AGAIN, type RereadPolicy, reread } from '#functions/shared/rereads.js';
import type { ImportMessage } from './message.js';
import type { ClaimedRow, StagedRow, StagingStore } from './staging-ports.js';

/** What writing FAILED needs: the staged rows and the clock. */
export interface StagedRowDeps {
  readonly store: StagingStore;
  readonly now: () => number;
}

/** The row is FAILED now (`failed`), or a concurrent change won and nothing was written (`skipped`). */
export type FailOutcome = 'failed' | 'skipped';

/** The row → FAILED with `message` (credential-free), if it is still as the caller read it. */
export async function failRow(deps: StagedRowDeps, row: StagedRow | ClaimedRow, message: string): Promise<FailOutcome> {
  return (await deps.store.fail(row, message, deps.now())) ? 'failed' : 'skipped';
}

/** The message's row may have changed since it was read: it is read again, at most this often. */
const PENDING_ROW_REREADS: RereadPolicy<'retry'> = {
  attempts: 3,
  exhausted: 'the staged row kept changing while being marked FAILED: the dead letter is retried',
  orElse: () => 'retry',
};

/**
 * The message's row → FAILED with `textOf(row)`, from whatever pending status it has; `read` is the
 * row as the caller just read it (the first attempt reads nothing more). `skipped` when the row is
 * gone (imported or removed) or FAILED already; `retry` when it kept changing under the write.
 */
export function failPendingRow(
  deps: StagedRowDeps,
  message: ImportMessage,
  textOf: (row: StagedRow) => string,
  read?: StagedRow,
): Promise<FailOutcome | 'retry'> {
  return reread(PENDING_ROW_REREADS, async (attempt) => {
    const row = attempt === 0 && read ? read : await deps.store.get(message.appId, message.id);
    if (!row || row.status === 'FAILED') return 'skipped';
    return (await failRow(deps, row, textOf(row))) === 'failed' ? 'failed' : READ_AGAIN;
  });
}

/** The Java list rendering of validation errors, as the reference stores them: `[a, b]`. */
export const javaList = (errors: readonly string[]) => `[${errors.join(', ')}]`;

/** The message of a row whose import hit an error a retry would not fix (`error` already scrubbed). */
export const permanentFailureMessage = (error: string) => `Import failed: ${error}`;

/** The message a FAILED row gets when its retries ran out without a recorded error. */
export const RETRIES_EXHAUSTED_MESSAGE =
  'The import did not complete after repeated attempts (no error was recorded); stage the user again to retry.';

/** The message of a row whose retries ran out: its last recorded (credential-free) error, if any. */
export const retriesExhaustedMessage = (row: Pick<StagedRow, 'lastError'>) =>
  row.lastError ? `Import failed after repeated attempts: ${row.lastError}` : RETRIES_EXHAUSTED_MESSAGE;
