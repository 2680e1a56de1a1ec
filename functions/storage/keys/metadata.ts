/**
 * Key builders for user metadata and for the per-app "user data" index.
 *
 * Metadata of any user id (a user or not) is one item: PK `APP#<a>#U#<userId>`, SK `METADATA`.
 *
 * Every item this core keeps about a user id apart from the user itself (metadata, role
 * assignments, TOTP devices) also carries a GSI3 entry `APP#<a>#UDATA#<shard>` / `<SK>`, so
 * deleting an app finds them by Query even for ids that never became users. The entry is spread
 * over {@link USER_DATA_SHARDS} partitions by user id: a bulk import writes several such items per
 * user, and one GSI partition per app would throttle (and back-pressure the table) at a few
 * hundred users per second.
 */
import { shardOf } from '../kit/shard.js';
import { appPartition } from './apps.js';

export { METADATA_SK, userPartition } from './users.js';

export const USER_DATA_SHARDS = 16;

export const userDataIndexPartition = (appId: string, shard: number) =>
  `${appPartition(appId)}#UDATA#${String(shard).padStart(2, '0')}`;

/** The GSI3 partition of one user id's data items (their sort key is the item's own sort key). */
export const userDataIndexPartitionOf = (appId: string, userId: string) =>
  userDataIndexPartition(appId, shardOf(userId, USER_DATA_SHARDS));
