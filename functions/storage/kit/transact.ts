/**
 * Atomic writes (TransactWriteItems) with the one retry policy of the core: a transient failure
 * (a conflicting transaction, throttling, a 5xx) is retried with jittered backoff and the SAME
 * client request token, so a retry of an attempt that did commit (lost answer) succeeds without
 * writing twice; failed conditions are returned by action index; a value DynamoDB refuses is thrown
 * as a `StoredValueRefusedError` (400, nothing written); anything else is thrown.
 */
import { randomUUID } from 'node:crypto';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { subjectOfItem } from './entity.js';
import { asRefusal, classifyCancellation, UNKNOWN_SUBJECT } from './errors.js';
import { retrying } from './retry.js';
import type { Table } from './table.js';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export type TransactResult =
  | { readonly ok: true }
  /** Nothing was written: these actions' conditions failed (indexes into the items). */
  | { readonly ok: false; readonly failedIndexes: readonly number[] };

export interface TransactOptions {
  /**
   * Attempts before a transient failure is thrown as `TransientStorageError` (the retry policy in
   * force may set fewer, and its deadline stops retries earlier). @default 8
   */
  readonly attempts?: number;
}

export async function transact(
  table: Table,
  items: readonly TransactItem[],
  options: TransactOptions = {},
): Promise<TransactResult> {
  if (items.length === 0) return { ok: true };
  const token = randomUUID();
  try {
    return await attempt(table, items, token, options);
  } catch (error) {
    throw asRefusal(error, (index) => subjectOfActions(items, index));
  }
}

const subjectOfAction = (action: TransactItem | undefined) => subjectOfItem(action?.Put?.Item) ?? UNKNOWN_SUBJECT;

/**
 * The refused action's subject when DynamoDB names the action; otherwise the subject all the
 * writing actions share (conditions checks write nothing), if they share one.
 */
function subjectOfActions(items: readonly TransactItem[], index: number | undefined): string {
  if (index !== undefined) return subjectOfAction(items[index]);
  const subjects = new Set(items.filter((action) => !action.ConditionCheck).map(subjectOfAction));
  const [only] = subjects;
  return subjects.size === 1 && only !== undefined ? only : UNKNOWN_SUBJECT;
}

function attempt(
  table: Table,
  items: readonly TransactItem[],
  token: string,
  options: TransactOptions,
): Promise<TransactResult> {
  // Every attempt carries the same token: an attempt that committed but whose answer was lost
  // succeeds again without writing twice, so every transient kind may be retried.
  return retrying(
    async () => {
      try {
        await table
          .client()
          .send(new TransactWriteCommand({ TransactItems: items as TransactItem[], ClientRequestToken: token }));
        return { ok: true } as const;
      } catch (error) {
        const cancellation = classifyCancellation(error);
        if (cancellation.kind === 'conditions')
          return { ok: false, failedIndexes: cancellation.failedIndexes } as const;
        throw error;
      }
    },
    { attempts: options.attempts ?? 8 },
  );
}
