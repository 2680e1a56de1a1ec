/**
 * Key builders for staged bulk-import users (see docs/architecture.md "Data model").
 *
 * - `APP#<a>#BULK#<id>` / `STAGED`: one staged user per partition, so staging and import spread
 *   their writes over as many partitions as there are users.
 * - GSI1 `APP#<a>#BULK#<status>#<shard>` / `<createdAt>#<id>`: the staged users of one status,
 *   newest first. Sharded (16): a 10,000-user request must not put 10,000 index writes into one
 *   index partition (≈1,000 writes/s each); readers merge the shards.
 * - No second index entry per row: the reconciler reads the NEW and PROCESSING partitions of
 *   GSI1 of the apps that staged users (a read per 4 KB is far cheaper than an index write per
 *   row on staging, claim and import). Those apps carry a marker `APP#<a>#BULKAPP` / `PENDING`,
 *   in GSI2 `BULK#APPS` / `<appId>`, written by every staging request and removed by the
 *   reconciler once the app has nothing pending.
 * - `APP#<a>#BCOUNT#<shard>` / `COUNT`: per-status counters (`NEW`, `PROCESSING`, `FAILED`),
 *   sharded (32) and changed in the same transaction as every status change or row deletion.
 */
import type { StagedStatus } from '#functions/domain/bulk-import/staging-ports.js';
import { appPartition } from './apps.js';

export const STAGED_INDEX_SHARDS = 16;
export const STAGED_COUNTER_SHARDS = 32;

export const stagedUserPartition = (appId: string, id: string) => `${appPartition(appId)}#BULK#${id}`;
export const STAGED_SK = 'STAGED';

const pad = (ms: number) => String(Math.max(0, Math.trunc(ms))).padStart(15, '0');

/** GSI1: staged users of one status and shard, newest first by sort key. */
export const stagedStatusIndexPartition = (appId: string, status: StagedStatus, shard: number) =>
  `${appPartition(appId)}#BULK#${status}#${shard}`;
export const stagedStatusIndexSortKey = (createdAt: number, id: string) => `${pad(createdAt)}#${id}`;
/** Every sort key below this one belongs to a row created before `createdAt`. */
export const stagedStatusIndexSortKeyBefore = (createdAt: number) => pad(createdAt);

/** The marker of an app that has (or recently had) staged users; GSI2 lists the marked apps. */
export const stagingAppMarkerPartition = (appId: string) => `${appPartition(appId)}#BULKAPP`;
export const STAGING_APP_MARKER_SK = 'PENDING';
export const STAGING_APPS_INDEX_PARTITION = 'BULK#APPS';

export const stagedCounterPartition = (appId: string, shard: number) => `${appPartition(appId)}#BCOUNT#${shard}`;
export const STAGED_COUNTER_SK = 'COUNT';

/**
 * The wrapped data keys that sealed an app's staged credentials, one item per data key (not per
 * row): `APP#<a>#BULKKEY` / `<key id>`; a row names its key by id.
 */
export const stagingDataKeyPartition = (appId: string) => `${appPartition(appId)}#BULKKEY`;
