import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '#functions/shared/clients.js';
import { appPartition, tenantSortKey } from './keys/apps.js';
import { purgeAppUserData } from './metadata-store.js';
import { queryPages } from './query.js';
import { purgeAppStagedUsers } from './staging-store.js';
import { purgeAppUsers } from './user-store.js';

/** Deletes keys in batches of 25, retrying what DynamoDB reports as unprocessed. */
export async function deleteKeys(keys: readonly Record<string, unknown>[]): Promise<void> {
  const table = tableName();
  for (let i = 0; i < keys.length; i += 25) {
    let requests: Record<string, unknown>[] = keys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
    for (let attempt = 0; requests.length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
      const out = await getDocumentClient().send(
        new BatchWriteCommand({ RequestItems: { [table]: requests as never } }),
      );
      requests = (out.UnprocessedItems?.[table] as Record<string, unknown>[] | undefined) ?? [];
      if (attempt > 10 && requests.length > 0) throw new Error('DynamoDB kept refusing deletes');
    }
  }
}

/** Deletes every item of one partition for which `keep` is false, page by page. */
export async function purgePartition(pk: string, keep: (sk: string) => boolean = () => false): Promise<void> {
  const pages = queryPages({
    TableName: tableName(),
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': pk },
    ProjectionExpression: 'PK, SK',
  });
  for await (const page of pages) await deleteKeys(page.filter((item) => !keep(item.SK as string)));
}

/**
 * Every collection an app owns, each with the purger that finds its items by Query (never a
 * Scan). A new app-owned entity adds its purger here; the app-deletion test proves nothing with
 * the app's partition prefix survives.
 */
const PURGERS: readonly ((appId: string) => Promise<void>)[] = [
  // The app partition itself (tenants, roles, counters …), except the public tenant, which the
  // caller deletes last so an interrupted deletion can be finished by calling remove again.
  (appId) => purgePartition(appPartition(appId), (sk) => sk === tenantSortKey('public')),
  // Metadata, role assignments and TOTP devices of every user id (users or not): GSI3 shards.
  (appId) => purgeAppUserData(appId),
  // Users with their account-info, tenant, link and mapping items (GSI2 shards), then the counters.
  (appId) => purgeAppUsers(appId),
  // Staged bulk-import users (GSI1 status shards) and their counters.
  (appId) => purgeAppStagedUsers(appId),
];

export async function purgeAppData(appId: string): Promise<void> {
  for (const purge of PURGERS) await purge(appId);
}
