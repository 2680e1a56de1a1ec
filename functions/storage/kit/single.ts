/**
 * Single-item reads and writes. A write with a condition answers whether the condition held
 * (false) instead of throwing, so stores never match on the SDK's error names. Transient failures
 * are retried under the kit's policy (retry.ts): reads on every transient kind; writes only when
 * DynamoDB certainly did not apply them (throttled, or a conflicting transaction) — after a 5xx
 * or a timeout a write may have been applied, and repeating it could misreport its condition or
 * add a counter delta twice, so it fails at once as a `TransientStorageError`. A value DynamoDB
 * refuses (too large, too deep, a number out of range) is thrown as a `StoredValueRefusedError`
 * (400) naming the item's entity subject (entity.ts).
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { subjectOfItem } from './entity.js';
import { asRefusal, isConditionFailure, UNKNOWN_SUBJECT } from './errors.js';
import { retrying } from './retry.js';
import type { Item, Key, Table } from './table.js';

const READ = { attempts: 6 } as const;
const WRITE = { attempts: 6, retry: ['throttled', 'conflict'] } as const;

export interface Condition {
  readonly expression: string;
  readonly names?: Record<string, string>;
  readonly values?: Item;
}

const conditionInput = (condition: Condition | undefined, names: Record<string, string> = {}, values: Item = {}) => {
  const allNames = { ...names, ...(condition?.names ?? {}) };
  const allValues = { ...values, ...(condition?.values ?? {}) };
  return {
    ...(condition ? { ConditionExpression: condition.expression } : {}),
    ...(Object.keys(allNames).length > 0 ? { ExpressionAttributeNames: allNames } : {}),
    ...(Object.keys(allValues).length > 0 ? { ExpressionAttributeValues: allValues } : {}),
  };
};

/** Consistent read of one item (undefined when absent). */
export async function getItem(table: Table, key: Key): Promise<Item | undefined> {
  const out = await retrying(
    () => table.client().send(new GetCommand({ TableName: table.name, Key: key, ConsistentRead: true })),
    READ,
  );
  return out.Item;
}

/** Puts the item; false when `condition` did not hold (nothing written). */
export async function putItem(table: Table, item: Item, condition?: Condition): Promise<boolean> {
  try {
    const input = { TableName: table.name, Item: item, ...conditionInput(condition) };
    await retrying(() => table.client().send(new PutCommand(input)), WRITE);
    return true;
  } catch (error) {
    if (condition && isConditionFailure(error)) return false;
    throw asRefusal(error, () => subjectOfItem(item) ?? UNKNOWN_SUBJECT);
  }
}

/**
 * Applies an update (see `updateExpression`); false when `condition` did not hold. Returns the old
 * item when asked; `subject` names the item in the message of a refused value.
 */
export async function updateItem(
  table: Table,
  key: Key,
  update: {
    UpdateExpression: string;
    ExpressionAttributeNames: Record<string, string>;
    ExpressionAttributeValues: Item;
  },
  condition?: Condition,
  options: { returnOld?: boolean; subject?: string | undefined } = {},
): Promise<{ ok: boolean; old?: Item }> {
  try {
    const input = {
      TableName: table.name,
      Key: key,
      UpdateExpression: update.UpdateExpression,
      ...conditionInput(condition, update.ExpressionAttributeNames, update.ExpressionAttributeValues),
      ...(options.returnOld ? { ReturnValues: 'ALL_OLD' as const } : {}),
    };
    const out = await retrying(() => table.client().send(new UpdateCommand(input)), WRITE);
    return { ok: true, ...(out.Attributes ? { old: out.Attributes } : {}) };
  } catch (error) {
    if (condition && isConditionFailure(error)) return { ok: false };
    throw asRefusal(error, () => options.subject ?? UNKNOWN_SUBJECT);
  }
}

/** Deletes one item; `existed` says whether there was one. False `ok` when `condition` did not hold. */
export async function deleteItem(
  table: Table,
  key: Key,
  condition?: Condition,
): Promise<{ ok: boolean; existed: boolean }> {
  try {
    const input = { TableName: table.name, Key: key, ReturnValues: 'ALL_OLD' as const, ...conditionInput(condition) };
    const out = await retrying(() => table.client().send(new DeleteCommand(input)), WRITE);
    return { ok: true, existed: out.Attributes !== undefined };
  } catch (error) {
    if (condition && isConditionFailure(error)) return { ok: false, existed: true };
    throw error;
  }
}
