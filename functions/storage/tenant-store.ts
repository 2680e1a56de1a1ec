import { BatchGetCommand, DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '#functions/shared/clients.js';
import { PUBLIC } from '#functions/shared/prefix.js';
import { APP_LIST_PARTITION, appPartition, TENANT_SORT_PREFIX, tenantSortKey } from './keys/apps.js';
import { queryAll } from './query.js';

/** A third-party provider configuration, stored as the JSON the API received (normalised). */
export type ProviderConfig = Readonly<Record<string, unknown>> & { readonly thirdPartyId: string };

/** One tenant of one app. The app's own configuration lives on its `public` tenant. */
export interface TenantRecord {
  readonly appId: string;
  readonly tenantId: string;
  readonly emailPasswordEnabled: boolean;
  readonly thirdPartyEnabled: boolean;
  readonly passwordlessEnabled: boolean;
  readonly firstFactors: readonly string[] | null;
  readonly requiredSecondaryFactors: readonly string[] | null;
  readonly coreConfig: Readonly<Record<string, unknown>>;
  readonly thirdPartyProviders: readonly ProviderConfig[];
  readonly createdAt: number;
  readonly updatedAt: number;
}

const ENTITY = 'TENANT';

/** The base tenant (public app, public tenant) always exists, even before anything is stored. */
export function defaultBaseTenant(): TenantRecord {
  return {
    appId: PUBLIC,
    tenantId: PUBLIC,
    emailPasswordEnabled: true,
    thirdPartyEnabled: true,
    passwordlessEnabled: true,
    firstFactors: null,
    requiredSecondaryFactors: null,
    coreConfig: {},
    thirdPartyProviders: [],
    createdAt: 0,
    updatedAt: 0,
  };
}

function fromItem(item: Record<string, unknown> | undefined): TenantRecord | undefined {
  if (!item) return undefined;
  return {
    appId: item.appId as string,
    tenantId: item.tenantId as string,
    emailPasswordEnabled: item.emailPasswordEnabled as boolean,
    thirdPartyEnabled: item.thirdPartyEnabled as boolean,
    passwordlessEnabled: item.passwordlessEnabled as boolean,
    firstFactors: (item.firstFactors as string[] | undefined) ?? null,
    requiredSecondaryFactors: (item.requiredSecondaryFactors as string[] | undefined) ?? null,
    coreConfig: (item.coreConfig as Record<string, unknown> | undefined) ?? {},
    thirdPartyProviders: (item.thirdPartyProviders as ProviderConfig[] | undefined) ?? [],
    createdAt: item.createdAt as number,
    updatedAt: item.updatedAt as number,
  };
}

function toItem(record: TenantRecord): Record<string, unknown> {
  const isAppRoot = record.tenantId === PUBLIC;
  return {
    PK: appPartition(record.appId),
    SK: tenantSortKey(record.tenantId),
    entityType: ENTITY,
    ...(isAppRoot ? { GSI1PK: APP_LIST_PARTITION, GSI1SK: record.appId } : {}),
    ...record,
    firstFactors: record.firstFactors ?? undefined,
    requiredSecondaryFactors: record.requiredSecondaryFactors ?? undefined,
  };
}

function withBaseDefault(appId: string, tenantId: string, record: TenantRecord | undefined): TenantRecord | undefined {
  if (record) return record;
  return appId === PUBLIC && tenantId === PUBLIC ? defaultBaseTenant() : undefined;
}

/** Access pattern "tenant by id": GetItem APP#<appId> / TENANT#<tenantId>. */
export async function getTenant(appId: string, tenantId: string): Promise<TenantRecord | undefined> {
  const out = await getDocumentClient().send(
    new GetCommand({
      TableName: tableName(),
      Key: { PK: appPartition(appId), SK: tenantSortKey(tenantId) },
      ConsistentRead: true,
    }),
  );
  return withBaseDefault(appId, tenantId, fromItem(out.Item));
}

/**
 * The app (its public tenant) and the path's tenant in one consistent BatchGet: what every
 * request needs before its API-key check.
 */
export async function loadTenantPair(
  appId: string,
  tenantId: string,
): Promise<{ app: TenantRecord | undefined; tenant: TenantRecord | undefined }> {
  if (tenantId === PUBLIC) {
    const app = await getTenant(appId, PUBLIC);
    return { app, tenant: app };
  }
  const table = tableName();
  const keys = [PUBLIC, tenantId].map((t) => ({ PK: appPartition(appId), SK: tenantSortKey(t) }));
  let pending: Record<string, unknown>[] = keys;
  const found: Record<string, unknown>[] = [];
  for (let attempt = 0; pending.length > 0 && attempt < 10; attempt++) {
    const out = await getDocumentClient().send(
      new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }),
    );
    found.push(...(out.Responses?.[table] ?? []));
    pending = (out.UnprocessedKeys?.[table]?.Keys as Record<string, unknown>[] | undefined) ?? [];
  }
  const bySk = new Map(found.map((item) => [item.SK as string, item]));
  return {
    app: withBaseDefault(appId, PUBLIC, fromItem(bySk.get(tenantSortKey(PUBLIC)))),
    tenant: fromItem(bySk.get(tenantSortKey(tenantId))),
  };
}

/** Access pattern "tenants of an app": Query APP#<appId>, SK begins_with TENANT#. */
export async function listTenants(appId: string): Promise<TenantRecord[]> {
  const records: TenantRecord[] = [];
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': appPartition(appId), ':sk': TENANT_SORT_PREFIX },
    ConsistentRead: true,
  });
  for (const item of items) {
    const record = fromItem(item);
    if (record) records.push(record);
  }
  if (appId === PUBLIC && !records.some((r) => r.tenantId === PUBLIC)) records.unshift(defaultBaseTenant());
  return records;
}

/** Access pattern "all apps": Query GSI1 APPS (one entry per app's public tenant). */
export async function listAppIds(): Promise<string[]> {
  const items = await queryAll({
    TableName: tableName(),
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': APP_LIST_PARTITION },
    ProjectionExpression: 'appId',
  });
  const ids = items.map((item) => item.appId as string);
  if (!ids.includes(PUBLIC)) ids.unshift(PUBLIC);
  return ids;
}

/**
 * Writes a tenant. `expectedUpdatedAt` guards against lost updates: the write only succeeds if
 * the stored record is still the one that was read (or, when undefined, if none exists).
 * Returns false when the guard failed (the caller re-reads and retries).
 */
export async function saveTenant(record: TenantRecord, expectedUpdatedAt: number | undefined): Promise<boolean> {
  try {
    await getDocumentClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: toItem(record),
        ...(expectedUpdatedAt === undefined
          ? { ConditionExpression: 'attribute_not_exists(PK)' }
          : { ConditionExpression: 'updatedAt = :u', ExpressionAttributeValues: { ':u': expectedUpdatedAt } }),
      }),
    );
    return true;
  } catch (error) {
    if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/** Deletes one tenant item; returns whether it existed. */
export async function deleteTenant(appId: string, tenantId: string): Promise<boolean> {
  const out = await getDocumentClient().send(
    new DeleteCommand({
      TableName: tableName(),
      Key: { PK: appPartition(appId), SK: tenantSortKey(tenantId) },
      ReturnValues: 'ALL_OLD',
    }),
  );
  return out.Attributes !== undefined;
}

import type { TenantStore } from '#functions/domain/multitenancy/service.js';
import { purgeAppData } from './app-purge.js';
import { purgeTenantRoleAssignments } from './role-store.js';
import { removeTenantFromUsers } from './user-store.js';

/** The DynamoDB implementation of the multitenancy use cases' storage port. */
export const tenantStore: TenantStore = {
  getTenant,
  listTenants,
  listAppIds,
  saveTenant,
  deleteTenant,
  purgeAppData,
  purgeTenantData: async (appId, tenantId) => {
    await removeTenantFromUsers(appId, tenantId);
    await purgeTenantRoleAssignments(appId, tenantId);
  },
};
