/**
 * Atomic writes (TransactWriteItems) with the one retry policy of the core: a transient failure
 * (a conflicting transaction, throttling, a 5xx) is retried with jittered backoff and the SAME
 * client request token, so a retry of an attempt that did commit (lost answer) succeeds without
 * writing twice; failed conditions are returned by action index; anything else is thrown.
 */
import { randomUUID } from 'node:crypto';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { classifyCancellation, classifyError, isTransient, TransientStorageError } from './errors.js';
import { backoffMs, sleep, type Table } from './table.js';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** DynamoDB's TransactWriteItems limit. */
export const MAX_TRANSACT_ITEMS = 100;

export type TransactResult =
  | { readonly ok: true }
  /** Nothing was written: these actions' conditions failed (indexes into the items). */
  | { readonly ok: false; readonly failedIndexes: readonly number[] };

export interface TransactOptions {
  /** Attempts before a transient failure is thrown as {@link TransientStorageError}. @default 8 */
  readonly attempts?: number;
}

export async function transact(
  table: Table,
  items: readonly TransactItem[],
  options: TransactOptions = {},
): Promise<TransactResult> {
  if (items.length === 0) return { ok: true };
  const attempts = options.attempts ?? 8;
  const token = randomUUID();
  for (let attempt = 1; ; attempt++) {
    try {
      await table
        .client()
        .send(new TransactWriteCommand({ TransactItems: items as TransactItem[], ClientRequestToken: token }));
      return { ok: true };
    } catch (error) {
      const cancellation = classifyCancellation(error);
      if (cancellation.kind === 'conditions') return { ok: false, failedIndexes: cancellation.failedIndexes };
      const kind = classifyError(error);
      if (!isTransient(kind)) throw error;
      if (attempt >= attempts) throw new TransientStorageError(kind, { cause: error });
      await sleep(backoffMs(attempt));
    }
  }
}
