/**
 * Apps and tenants (always in the base table). Item: `APP#<appId>` / `TENANT#<tenantId>`; the
 * public tenant of an app also carries the GSI1 entry `APPS` / `<appId>` that lists every app.
 */

import { PUBLIC_TENANT_ID } from '#functions/contract/tenants.js';
import type { TenantStore } from '#functions/domain/multitenancy/ports.js';
import {
  defaultBaseTenant,
  type ProviderConfig,
  type TenantRecord,
  withBaseDefault,
} from '#functions/domain/multitenancy/tenant.js';
import { logger } from '#functions/shared/logger.js';
import type { Envelope } from './crypto/envelope.js';
import { APP_LIST_PARTITION, appPartition, TENANT_SORT_PREFIX, tenantSortKey } from './keys/apps.js';
import {
  batchGetAll,
  defineEntity,
  deleteItem,
  getItem,
  type Item,
  putItem,
  queryAll,
  type Table,
} from './kit/index.js';
import { encodeConfigSecrets, openProviderSecrets, sealProviderSecrets } from './tenant-credentials.js';

const tenantEntity = defineEntity({
  type: 'TENANT',
  subject: "The tenant's configuration",
  key: (t: { appId: string; tenantId: string }) => ({ PK: appPartition(t.appId), SK: tenantSortKey(t.tenantId) }),
  indexes: {
    GSI1: { pk: (_: { appId: string }) => APP_LIST_PARTITION, sk: (a: { appId: string }) => a.appId },
  },
});

function fromItem(item: Item | undefined): TenantRecord | undefined {
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

function toItem(record: TenantRecord): Item {
  return tenantEntity.item(
    record,
    {
      ...record,
      firstFactors: record.firstFactors ?? undefined,
      requiredSecondaryFactors: record.requiredSecondaryFactors ?? undefined,
    },
    // Only an app's public tenant is listed as an app.
    record.tenantId === PUBLIC_TENANT_ID ? { GSI1: { appId: record.appId } } : {},
  );
}

/** A record's credentials in their stored forms: coreConfig keys as digests or sealed, provider secrets sealed. */
async function encodeSecrets(record: TenantRecord, envelope: () => Envelope): Promise<TenantRecord> {
  const { appId, tenantId } = record;
  return {
    ...record,
    coreConfig: await encodeConfigSecrets(appId, record.coreConfig, envelope),
    thirdPartyProviders: await Promise.all(
      record.thirdPartyProviders.map((provider) =>
        sealProviderSecrets({ appId, tenantId, thirdPartyId: provider.thirdPartyId }, provider, envelope),
      ),
    ),
  };
}

/**
 * The multitenancy use cases' storage port for one table (the base table). Every write stores the
 * record's credentials as digests or sealed (`envelope`, tenant-credentials.ts); reads return them as
 * stored, and `openSecrets` opens the providers' secrets where the SDK reads them.
 */
export function createTenantStore(table: Table, envelope: () => Envelope): TenantStore {
  /** Access pattern "tenant by id": GetItem APP#<appId> / TENANT#<tenantId>. */
  const getTenant = async (appId: string, tenantId: string) =>
    withBaseDefault(appId, tenantId, fromItem(await getItem(table, tenantEntity.key({ appId, tenantId }))));

  return {
    getTenant,

    /**
     * The app (its public tenant) and the path's tenant in one consistent BatchGet: what every
     * request needs before its API-key check.
     */
    async getTenantPair(appId, tenantId) {
      if (tenantId === PUBLIC_TENANT_ID) {
        const app = await getTenant(appId, PUBLIC_TENANT_ID);
        return { app, tenant: app };
      }
      const found = await batchGetAll(
        table,
        [PUBLIC_TENANT_ID, tenantId].map((t) => tenantEntity.key({ appId, tenantId: t })),
      );
      const bySk = new Map(found.map((item) => [item.SK as string, item]));
      return {
        app: withBaseDefault(appId, PUBLIC_TENANT_ID, fromItem(bySk.get(tenantSortKey(PUBLIC_TENANT_ID)))),
        tenant: fromItem(bySk.get(tenantSortKey(tenantId))),
      };
    },

    /** Access pattern "tenants of an app": Query APP#<appId>, SK begins_with TENANT#. */
    async listTenants(appId) {
      const items = await queryAll(
        table,
        { pk: appPartition(appId), sk: { beginsWith: TENANT_SORT_PREFIX } },
        { consistent: true },
      );
      const records = items.flatMap((item) => fromItem(item) ?? []);
      if (appId === PUBLIC_TENANT_ID && !records.some((r) => r.tenantId === PUBLIC_TENANT_ID))
        records.unshift(defaultBaseTenant());
      return records;
    },

    /** Access pattern "all apps": Query GSI1 APPS (one entry per app's public tenant). */
    async listAppIds() {
      const items = await queryAll(table, { index: 'GSI1', pk: APP_LIST_PARTITION }, { attributes: ['appId'] });
      const ids = items.map((item) => item.appId as string);
      if (!ids.includes(PUBLIC_TENANT_ID)) ids.unshift(PUBLIC_TENANT_ID);
      return ids;
    },

    /**
     * Writes a tenant. `expectedUpdatedAt` guards against lost updates: the write only succeeds
     * if the stored record is still the one that was read (or, when undefined, if none exists).
     */
    saveTenant: async (record, expectedUpdatedAt) =>
      putItem(
        table,
        toItem(await encodeSecrets(record, envelope)),
        expectedUpdatedAt === undefined
          ? { expression: 'attribute_not_exists(PK)' }
          : { expression: 'updatedAt = :u', values: { ':u': expectedUpdatedAt } },
      ),

    async openSecrets(tenant) {
      const { appId, tenantId } = tenant;
      const providers = await Promise.all(
        tenant.thirdPartyProviders.map((provider) =>
          openProviderSecrets(
            { appId, tenantId, thirdPartyId: provider.thirdPartyId },
            provider,
            envelope,
            (slot, reason) =>
              logger.warn('a third-party provider secret cannot be decrypted; it is left out; set the provider again', {
                appId,
                tenantId,
                thirdPartyId: provider.thirdPartyId,
                clientType: slot.clientType,
                field: slot.field,
                reason,
              }),
          ),
        ),
      );
      return { ...tenant, thirdPartyProviders: providers };
    },

    /** Deletes one tenant item; returns whether it existed. */
    deleteTenant: async (appId, tenantId) => (await deleteItem(table, tenantEntity.key({ appId, tenantId }))).existed,
  };
}
