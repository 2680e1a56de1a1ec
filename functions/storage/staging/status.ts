/**
 * A staged row's status changes: NEW (insert.ts) → PROCESSING (claimed by the import worker) →
 * deleted with its user's import, or FAILED; and its removal. Every status change and every
 * deletion updates the row's counter shard in the same transaction, so counts are exact; every
 * change is conditioned on the row's current status (rows.ts statusIs), so a concurrent writer can
 * never make the counters drift.
 */
import type { ClaimedRow, StagedRow, StagedStatus } from '#functions/domain/bulk-import/staging-ports.js';
import { UnreadableSecretError } from '#functions/domain/credentials/ports.js';
import { logger } from '#functions/shared/logger.js';
import { READ_AGAIN, type RereadPolicy, reread } from '#functions/shared/rereads.js';
import {
  batchGetAll,
  chunk,
  getItem,
  type Item,
  type Table,
  type TransactItem,
  transact,
  updateExpression,
  updateItem,
} from '../kit/index.js';
import { splitCredentials } from './credentials.js';
import {
  claimedFromItem,
  counterShard,
  counterUpdate,
  deleteIfStatus,
  fromItem,
  ROWS_PER_TRANSACTION,
  stagedRow,
  statusIs,
} from './rows.js';
import {
  DATA_KEY_ATTRIBUTE,
  SEALED_ATTRIBUTE,
  type StagedCredentials,
  UNREADABLE_CREDENTIALS_MESSAGES,
} from './sealing.js';
import { deleteRows } from './shard-writes.js';

const pendingCondition = {
  expression: 'attribute_exists(PK) AND #st IN (:n, :p)',
  names: { '#st': 'status' },
  values: { ':n': 'NEW', ':p': 'PROCESSING' },
};

/** A transaction Update of one row, conditioned on its current status; `remove` attributes are deleted. */
function statusChange(
  table: Table,
  appId: string,
  id: string,
  from: StagedStatus,
  set: Item,
  remove: readonly string[] = [],
  createdAt?: number,
): TransactItem {
  const update = updateExpression(set);
  const condition = statusIs(from, createdAt);
  const removed = Object.fromEntries(remove.map((name, i) => [`#r${i}`, name]));
  const removal = remove.length > 0 ? ` REMOVE ${Object.keys(removed).join(', ')}` : '';
  return {
    Update: {
      TableName: table.name,
      Key: stagedRow.key({ appId, id }),
      UpdateExpression: `${update.UpdateExpression}${removal}`,
      ConditionExpression: condition.expression,
      ExpressionAttributeNames: { ...update.ExpressionAttributeNames, ...removed, ...condition.names },
      ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ...condition.values },
    },
  };
}

/** A row moved to `status`: its GSI1 entry moves to that status's partition (same sort key). */
const moveTo = (appId: string, id: string, status: StagedStatus) =>
  stagedRow.indexPartition('GSI1', { appId, id, status, createdAt: 0 });

export async function getRow(table: Table, appId: string, id: string): Promise<StagedRow | undefined> {
  const item = await getItem(table, stagedRow.key({ appId, id }));
  // The row read under this key is this app's row `id`, whatever its own attributes say.
  return item ? { ...fromItem(item), appId, id } : undefined;
}

const claimUpdate = (table: Table, appId: string, id: string, now: number) =>
  statusChange(table, appId, id, 'NEW', { status: 'PROCESSING', updatedAt: now, ...moveTo(appId, id, 'PROCESSING') });

/**
 * Opens the credentials of a row read for a claim — or, when they can never be opened, writes the
 * row FAILED (its credentials erased) with a message saying why and returns undefined: such a row
 * is never retried. `where` is the app and row id the caller claimed (the key it read): the row is
 * bound to them, whatever its own `appId` and `id` attributes say.
 */
async function openCredentialsOrFail(
  table: Table,
  sealing: StagedCredentials,
  item: Item,
  now: number,
  where: { readonly appId: string; readonly id: string },
): Promise<ClaimedRow | undefined> {
  try {
    return { ...claimedFromItem(item, await sealing.openUser(item, where)), appId: where.appId, id: where.id };
  } catch (error) {
    if (!(error instanceof UnreadableSecretError)) throw error;
    const row: StagedRow = { ...fromItem(item), appId: where.appId, id: where.id };
    if (row.status === 'FAILED') return undefined;
    const failed = await fail(table, row, UNREADABLE_CREDENTIALS_MESSAGES[error.reason], now);
    logger.warn('staged credentials cannot be decrypted; the row is FAILED', {
      appId: row.appId,
      id: row.id,
      reason: error.reason,
      failed,
    });
    return undefined;
  }
}

/** A row claimed by another writer between the read and the claim is read again, at most this often. */
const CLAIM_REREADS: RereadPolicy = { attempts: 3, exhausted: 'the staged row kept changing while being claimed' };

export async function claim(
  table: Table,
  sealing: StagedCredentials,
  appId: string,
  id: string,
  now: number,
): Promise<ClaimedRow | undefined> {
  return reread(CLAIM_REREADS, async () => {
    const item = await getItem(table, stagedRow.key({ appId, id }));
    if (!item || item.status === 'FAILED') return undefined;
    const row = await openCredentialsOrFail(table, sealing, item, now, { appId, id });
    if (!row) return undefined;
    if (row.status === 'PROCESSING') return row;
    const result = await transact(table, [
      claimUpdate(table, appId, id, now),
      counterUpdate(table, appId, counterShard(id), { NEW: -1, PROCESSING: 1 }),
    ]);
    return result.ok ? { ...row, status: 'PROCESSING' as const, updatedAt: now } : READ_AGAIN;
  });
}

/**
 * {@link claim} for the import worker's whole batch: one consistent batch read, then the NEW rows
 * move to PROCESSING in one transaction with ONE counter update (NEW −k, PROCESSING +k on one
 * shard; counts are sums over shards). If any of them changed meanwhile, nothing was written and
 * each is claimed on its own.
 */
export async function claimMany(
  table: Table,
  sealing: StagedCredentials,
  appId: string,
  ids: readonly string[],
  now: number,
): Promise<Map<string, ClaimedRow | undefined>> {
  const unique = [...new Set(ids)];
  // Each item is bound to the id it was read under (its key), not to its own `id` attribute.
  const idOfKey = new Map(unique.map((id) => [stagedRow.key({ appId, id }).PK, id] as const));
  const items = (
    await batchGetAll(
      table,
      unique.map((id) => stagedRow.key({ appId, id })),
    )
  ).filter((i) => i.status !== 'FAILED');
  const rows = await Promise.all(
    items.flatMap((i) => {
      const id = idOfKey.get(i.PK as string);
      return id === undefined ? [] : [openCredentialsOrFail(table, sealing, i, now, { appId, id })];
    }),
  );
  const found = new Map(rows.flatMap((row) => (row ? [[row.id, row] as const] : [])));
  const out = new Map<string, ClaimedRow | undefined>();
  const fresh: ClaimedRow[] = [];
  for (const id of unique) {
    const row = found.get(id);
    if (row?.status === 'NEW') fresh.push(row);
    else out.set(id, row?.status === 'PROCESSING' ? row : undefined);
  }
  for (const part of chunk(fresh, ROWS_PER_TRANSACTION)) {
    const first = part[0] as ClaimedRow;
    const result = await transact(table, [
      ...part.map((r) => claimUpdate(table, appId, r.id, now)),
      counterUpdate(table, appId, counterShard(first.id), { NEW: -part.length, PROCESSING: part.length }),
    ]);
    if (result.ok) {
      for (const r of part) out.set(r.id, { ...r, status: 'PROCESSING', updatedAt: now });
      continue;
    }
    for (const r of part) out.set(r.id, await claim(table, sealing, appId, r.id, now));
  }
  return out;
}

/**
 * The row → FAILED with `message`, the credentials erased in the same write: the sealed ones
 * removed, and the clear JSON written again from `row.user` without them (a row written before
 * credentials were sealed carried them there). `row` is the row as the caller read it: nothing is
 * read again. The write is conditioned on the row still being in `row.status` and still being
 * the row staged at `row.createdAt`, so a concurrent status change (or a removal) wins and false
 * is returned.
 */
export async function fail(table: Table, row: StagedRow | ClaimedRow, message: string, now: number): Promise<boolean> {
  if (row.status === 'FAILED') return false;
  const { appId, id, status: from } = row;
  const result = await transact(table, [
    statusChange(
      table,
      appId,
      id,
      from,
      {
        status: 'FAILED',
        errorMessage: message,
        updatedAt: now,
        user: JSON.stringify(splitCredentials(row.user).user),
        ...moveTo(appId, id, 'FAILED'),
      },
      [SEALED_ATTRIBUTE, DATA_KEY_ATTRIBUTE],
      row.createdAt,
    ),
    counterUpdate(table, appId, counterShard(id), { [from]: -1, FAILED: 1 }),
  ]);
  return result.ok;
}

export async function noteTransientError(
  table: Table,
  appId: string,
  id: string,
  message: string,
  now: number,
  kind: 'backpressure' | 'error' = 'error',
): Promise<void> {
  await updateItem(
    table,
    stagedRow.key({ appId, id }),
    updateExpression({ lastError: message, lastErrorKind: kind, lastErrorAt: now }),
    pendingCondition,
  );
}

/**
 * The import's companion writes: deletes of these PROCESSING rows and ONE counter update for all
 * of them (one shard carries it). Composed into the user write's transaction by the user store.
 */
export function importedRowDeletes(table: Table, appId: string, ids: readonly string[]): TransactItem[] {
  if (ids.length === 0) return [];
  return [
    ...ids.map((id) => deleteIfStatus(table, appId, id, 'PROCESSING')),
    counterUpdate(table, appId, counterShard(ids[0] as string), { PROCESSING: -ids.length }),
  ];
}

export async function removeImported(table: Table, appId: string, id: string): Promise<boolean> {
  return (await transact(table, importedRowDeletes(table, appId, [id]))).ok;
}

/** Deletes the rows that exist, whatever their status; returns the ids it deleted. */
export function remove(table: Table, appId: string, ids: readonly string[]): Promise<Set<string>> {
  return deleteRows(table, appId, ids, {
    rounds: {
      attempts: 5,
      exhausted: 'the staged rows kept changing while being removed: the others are reported not found',
    },
  });
}

export async function markSent(table: Table, appId: string, id: string, now: number): Promise<void> {
  await updateItem(table, stagedRow.key({ appId, id }), updateExpression({ sentAt: now }), pendingCondition);
}
