/**
 * WebAuthn options and passkeys (the port in functions/domain/webauthn/ports.ts), in the app's
 * table; keys in keys/webauthn.ts. Options carry the TTL attribute (DynamoDB drops them after
 * their expiry; the use cases never rely on that, they compare the expiry themselves). A passkey
 * holds its public key, never a secret: nothing here is sealed. The writes a user write commits
 * with a passkey are composed here ({@link webauthnWriteActions}).
 */

import type { StoredCredential, WebauthnWrites } from '#functions/domain/users/companions.js';
import type { WriteEntity } from '#functions/domain/users/ports.js';
import type { GeneratedOptions, UserVerification } from '#functions/domain/webauthn/model.js';
import type { WebauthnStore, WebauthnStores } from '#functions/domain/webauthn/ports.js';
import {
  WEBAUTHN_CREDENTIAL_SK,
  WEBAUTHN_OPTIONS_SK,
  WEBAUTHN_SHARDS,
  webauthnAppIndexPartition,
  webauthnCredentialIndexSortKey,
  webauthnCredentialPartition,
  webauthnOptionsIndexSortKey,
  webauthnOptionsPartition,
  webauthnTenantOptionsPrefix,
} from './keys/webauthn.js';
import {
  allShards,
  batchDeleteAll,
  batchGetAll,
  defineEntity,
  deleteItem,
  getItem,
  type Item,
  type Key,
  type PartitionQuery,
  putItem,
  queryPages,
  shardOf,
  type Table,
  type TransactItem,
  transact,
  ttlSeconds,
  updateItem,
} from './kit/index.js';

type OptionsRef = { appId: string; tenantId: string; optionsId: string };
type CredentialRef = { appId: string; credentialId: string };

const optionsEntity = defineEntity({
  type: 'WEBAUTHN_OPTIONS',
  key: (o: Pick<OptionsRef, 'appId' | 'optionsId'>) => ({
    PK: webauthnOptionsPartition(o.appId, o.optionsId),
    SK: WEBAUTHN_OPTIONS_SK,
  }),
  indexes: {
    GSI2: {
      pk: (o: OptionsRef) => webauthnAppIndexPartition(o.appId, shardOf(o.optionsId, WEBAUTHN_SHARDS)),
      sk: (o: OptionsRef) => webauthnOptionsIndexSortKey(o.tenantId, o.optionsId),
    },
  },
});

const credentialEntity = defineEntity({
  type: 'WEBAUTHN_CREDENTIAL',
  key: (c: CredentialRef) => ({ PK: webauthnCredentialPartition(c.appId, c.credentialId), SK: WEBAUTHN_CREDENTIAL_SK }),
  indexes: {
    GSI2: {
      pk: (c: CredentialRef) => webauthnAppIndexPartition(c.appId, shardOf(c.credentialId, WEBAUTHN_SHARDS)),
      sk: (c: CredentialRef) => webauthnCredentialIndexSortKey(c.credentialId),
    },
  },
});

function optionsItem(appId: string, o: GeneratedOptions): Item {
  const ref = { appId, tenantId: o.tenantId, optionsId: o.id };
  return optionsEntity.item(
    ref,
    {
      optionsId: o.id,
      tenantId: o.tenantId,
      challenge: o.challenge,
      ...(o.email !== undefined ? { email: o.email } : {}),
      relyingPartyId: o.relyingPartyId,
      relyingPartyName: o.relyingPartyName,
      origin: o.origin,
      userVerification: o.userVerification,
      userPresence: o.userPresence,
      createdAt: o.createdAt,
      optionsExpiry: o.expiresAt,
      expiresAt: ttlSeconds(o.expiresAt),
    },
    { GSI2: ref },
  );
}

function optionsFromItem(item: Item): GeneratedOptions {
  return {
    id: item.optionsId as string,
    tenantId: item.tenantId as string,
    challenge: item.challenge as string,
    ...(typeof item.email === 'string' ? { email: item.email } : {}),
    relyingPartyId: item.relyingPartyId as string,
    relyingPartyName: item.relyingPartyName as string,
    origin: item.origin as string,
    userVerification: item.userVerification as UserVerification,
    userPresence: item.userPresence as boolean,
    createdAt: item.createdAt as number,
    expiresAt: item.optionsExpiry as number,
  };
}

function credentialItem(appId: string, c: StoredCredential): Item {
  const ref = { appId, credentialId: c.id };
  return credentialEntity.item(
    ref,
    {
      credentialId: c.id,
      recipeUserId: c.recipeUserId,
      relyingPartyId: c.relyingPartyId,
      publicKey: c.publicKey,
      counter: c.counter,
      transports: [...c.transports],
      createdAt: c.createdAt,
      updatedAt: c.updatedAt,
    },
    { GSI2: ref },
  );
}

function credentialFromItem(item: Item): StoredCredential {
  return {
    id: item.credentialId as string,
    recipeUserId: item.recipeUserId as string,
    relyingPartyId: item.relyingPartyId as string,
    publicKey: item.publicKey as string,
    counter: item.counter as number,
    transports: (item.transports as string[] | undefined) ?? [],
    createdAt: item.createdAt as number,
    updatedAt: item.updatedAt as number,
  };
}

const credentialKey = (appId: string, credentialId: string) => credentialEntity.key({ appId, credentialId });
const optionsKey = (appId: string, optionsId: string) => optionsEntity.key({ appId, optionsId });

const EXISTS = 'attribute_exists(PK)';
const ABSENT = 'attribute_not_exists(PK)';

/** The WebAuthn use cases' storage port for one table, bound to one app by `forApp`. */
export function createWebauthnStore(table: Table): WebauthnStores {
  return { forApp: (appId) => forApp(table, appId) };
}

function forApp(table: Table, appId: string): WebauthnStore {
  return {
    storeWebauthnOptions: (options) => putItem(table, optionsItem(appId, options), { expression: ABSENT }),

    async readWebauthnOptions(optionsId) {
      const item = await getItem(table, optionsKey(appId, optionsId));
      return item ? optionsFromItem(item) : undefined;
    },

    async removeWebauthnOptions(tenantId, optionsId) {
      const result = await deleteItem(table, optionsKey(appId, optionsId), {
        expression: `${EXISTS} AND tenantId = :t`,
        values: { ':t': tenantId },
      });
      return result.ok && result.existed;
    },

    async readPasskey(credentialId) {
      const item = await getItem(table, credentialKey(appId, credentialId));
      return item ? credentialFromItem(item) : undefined;
    },

    async readPasskeys(credentialIds) {
      const items = await batchGetAll(
        table,
        credentialIds.map((id) => credentialKey(appId, id)),
      );
      const byId = new Map(items.map((item) => [item.credentialId as string, credentialFromItem(item)]));
      return credentialIds.flatMap((id) => {
        const found = byId.get(id);
        return found ? [found] : [];
      });
    },

    async recordPasskeySignIn(use) {
      // The counter moves only from the value the verification was decided on: of two sign-ins
      // racing with one passkey, the second reads again and is judged on the new counter.
      const key = credentialKey(appId, use.credentialId);
      const update = {
        UpdateExpression: 'SET #counter = :new, updatedAt = :at',
        ExpressionAttributeNames: { '#counter': 'counter' },
        ExpressionAttributeValues: { ':new': use.newCounter, ':at': use.at },
      };
      const condition = { expression: `${EXISTS} AND #counter = :seen`, values: { ':seen': use.seenCounter } };
      if (!use.consumeOptions) {
        // One conditional update (a transaction of one item would cost twice the write units).
        return (await updateItem(table, key, update, condition)).ok ? 'OK' : 'CHANGED';
      }
      const result = await transact(table, [
        {
          Update: {
            TableName: table.name,
            Key: key,
            UpdateExpression: update.UpdateExpression,
            ConditionExpression: condition.expression,
            ExpressionAttributeNames: update.ExpressionAttributeNames,
            ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ...condition.values },
          },
        },
        {
          Delete: {
            TableName: table.name,
            Key: optionsKey(appId, use.consumeOptions.id),
            ConditionExpression: EXISTS,
          },
        },
      ]);
      return result.ok ? 'OK' : 'CHANGED';
    },

    async removePasskeys(credentialIds) {
      await batchDeleteAll(
        table,
        credentialIds.map((id) => credentialKey(appId, id)),
      );
    },
  };
}

/** DynamoDB actions of companion passkey writes (composed into a user write's transaction by users/write.ts). */
export function webauthnWriteActions(
  table: Table,
  appId: string,
  writes: WebauthnWrites,
): { item: TransactItem; entity: WriteEntity }[] {
  const out: { item: TransactItem; entity: WriteEntity }[] = [];
  const entity: WriteEntity = { kind: 'webauthnCredential' };
  if (writes.register) {
    out.push({
      entity,
      item: {
        Put: { TableName: table.name, Item: credentialItem(appId, writes.register), ConditionExpression: ABSENT },
      },
    });
  }
  if (writes.remove) {
    out.push({
      entity,
      item: {
        Delete: {
          TableName: table.name,
          Key: credentialKey(appId, writes.remove.credentialId),
          ConditionExpression: `${EXISTS} AND recipeUserId = :owner`,
          ExpressionAttributeValues: { ':owner': writes.remove.recipeUserId },
        },
      },
    });
  }
  return out;
}

/** How many actions {@link webauthnWriteActions} makes of these writes. */
export const webauthnWriteActionCount = (writes: WebauthnWrites | undefined): number =>
  (writes?.register ? 1 : 0) + (writes?.remove ? 1 : 0);

const appShards = (appId: string, tenantId?: string): PartitionQuery[] =>
  allShards(WEBAUTHN_SHARDS).map((shard) => ({
    index: 'GSI2',
    pk: webauthnAppIndexPartition(appId, shard),
    ...(tenantId !== undefined ? { sk: { beginsWith: webauthnTenantOptionsPrefix(tenantId) } } : {}),
  }));

async function purgeShards(table: Table, queries: readonly PartitionQuery[]): Promise<void> {
  await Promise.all(
    queries.map(async (query) => {
      for await (const page of queryPages(table, query, { attributes: ['PK', 'SK'] })) {
        await batchDeleteAll(
          table,
          page.map((item): Key => ({ PK: item.PK as string, SK: item.SK as string })),
        );
      }
    }),
  );
}

/** App deletion: every options item and passkey of the app (GSI2 shards). */
export const purgeAppWebauthn = (table: Table, appId: string): Promise<void> => purgeShards(table, appShards(appId));

/** Tenant deletion: the options of one tenant (passkeys belong to login methods, which the users purge handles). */
export const purgeTenantWebauthnOptions = (table: Table, appId: string, tenantId: string): Promise<void> =>
  purgeShards(table, appShards(appId, tenantId));

/** The queries that find any options item or passkey of an app (the app-table move check). */
export const webauthnHoldingQueries = (appId: string): PartitionQuery[] => appShards(appId);
