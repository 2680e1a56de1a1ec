/**
 * Key builders for staged bulk-import users (see README "Data model").
 *
 * - `APP#<a>#BULK#<id>` / `STAGED`: one staged user per partition, so staging and import spread
 *   their writes over as many partitions as there are users.
 * - GSI1 `APP#<a>#BULK#<status>#<shard>` / `<createdAt>#<id>`: the staged users of one status,
 *   newest first. Sharded (16): a 10,000-user request must not put 10,000 index writes into one
 *   index partition (≈1,000 writes/s each); readers merge the shards.
 * - GSI2 `BULK#PENDING#<shard>` / `<sentAt>#<appId>#<id>`: present only while a row is NEW or
 *   PROCESSING; the reconciler finds rows whose message was last sent before a cut-off without
 *   enumerating apps or scanning.
 * - `APP#<a>#BCOUNT#<shard>` / `COUNT`: per-status counters (`NEW`, `PROCESSING`, `FAILED`),
 *   sharded (32) and changed in the same transaction as every status change or row deletion.
 */
import { appPartition } from './apps.js';

export const STAGED_STATUSES = ['NEW', 'PROCESSING', 'FAILED'] as const;
export type StagedStatus = (typeof STAGED_STATUSES)[number];

export const STAGED_INDEX_SHARDS = 16;
export const STAGED_COUNTER_SHARDS = 32;

export const stagedUserPartition = (appId: string, id: string) => `${appPartition(appId)}#BULK#${id}`;
export const STAGED_SK = 'STAGED';

const pad = (ms: number) => String(Math.max(0, Math.trunc(ms))).padStart(15, '0');

/** GSI1: staged users of one status and shard, newest first by sort key. */
export const stagedStatusIndexPartition = (appId: string, status: StagedStatus, shard: number) =>
  `${appPartition(appId)}#BULK#${status}#${shard}`;
export const stagedStatusIndexSortKey = (createdAt: number, id: string) => `${pad(createdAt)}#${id}`;

/** GSI2: rows awaiting import, by the time their message was last sent. */
export const pendingIndexPartition = (shard: number) => `BULK#PENDING#${shard}`;
export const pendingIndexSortKey = (sentAt: number, appId: string, id: string) => `${pad(sentAt)}#${appId}#${id}`;
/** Upper bound (exclusive) of pending sort keys sent before `sentAt`. */
export const pendingIndexSortKeyBefore = (sentAt: number) => pad(sentAt);

export const stagedCounterPartition = (appId: string, shard: number) => `${appPartition(appId)}#BCOUNT#${shard}`;
export const STAGED_COUNTER_SK = 'COUNT';

/** FNV-1a over the id: a stable, even spread of ids over `shards`. */
export function shardOf(id: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % shards;
}
