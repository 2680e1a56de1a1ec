/**
 * An app's OAuth2 clients (docs/oauth2-clients.md "Storage").
 *
 * Item: `APP#<a>#OAUTHCLIENT` / `CLIENT#<clientId>` (keys/oauth-clients.ts), attributes `clientId`,
 * `clientName` (what the list filters on), `client` (the client's settings and times as JSON
 * text: any metadata the SDK sends is stored as it came, whatever DynamoDB thinks of empty keys,
 * nesting or number ranges), `version` (the conditional write's guard) and `secretSealed`: the
 * client secret sealed under the credentials key (AES-256-GCM with its data key wrapped inline,
 * purpose `app-secret`, bound to the app and the client id), absent for a public client. The
 * secret is in clear only inside this module and the answers that show a client.
 */
import { type KeyContext, UnreadableSecretError } from '#functions/domain/credentials/ports.js';
import type { ClientSettings, OAuthClient } from '#functions/domain/oauth-clients/model.js';
import type {
  ClientPage,
  OAuthClientStore,
  OAuthClientStores,
  StoredClient,
} from '#functions/domain/oauth-clients/ports.js';
import { logger } from '#functions/shared/logger.js';
import type { Envelope } from './crypto/envelope.js';
import { oauthClientSortKey, oauthClientsPartition } from './keys/oauth-clients.js';
import {
  batchDeleteAll,
  defineEntity,
  deleteItem,
  getItem,
  type Item,
  type Key,
  putItem,
  queryPage,
  queryPages,
  type Table,
  updateExpression,
  updateItem,
} from './kit/index.js';

const SUBJECT = 'The OAuth2 client';
const SEALED_ATTRIBUTE = 'secretSealed';

const oauthClientEntity = defineEntity({
  type: 'OAUTH_CLIENT',
  subject: SUBJECT,
  key: (c: { appId: string; clientId: string }) => ({
    PK: oauthClientsPartition(c.appId),
    SK: oauthClientSortKey(c.clientId),
  }),
});

const secretContext = (appId: string): KeyContext => ({ purpose: 'app-secret', appId });
const secretData = (appId: string, clientId: string) => `oauth-client-secret\u0000${appId}\u0000${clientId}`;

/** What the `client` attribute holds: everything but the id and the secret. */
type ClientDocument = ClientSettings & { readonly createdAt: number; readonly updatedAt: number };

function documentOf(client: OAuthClient): string {
  const { clientId: _id, clientSecret: _secret, ...document } = client;
  return JSON.stringify(document satisfies ClientDocument);
}

export function createOAuthClientStore(table: Table, envelope: () => Envelope): OAuthClientStores {
  const seal = (appId: string, client: OAuthClient) =>
    envelope().sealInline(
      Buffer.from(client.clientSecret ?? '', 'utf8'),
      secretContext(appId),
      secretData(appId, client.clientId),
    );

  /** The secret in clear; a secret that can never be opened is left out (and logged, without it). */
  async function open(appId: string, item: Item): Promise<string | undefined> {
    const sealed = item[SEALED_ATTRIBUTE];
    if (!(sealed instanceof Uint8Array)) return undefined;
    try {
      return (
        await envelope().openInline(sealed, secretContext(appId), secretData(appId, String(item.clientId)))
      ).toString('utf8');
    } catch (error) {
      if (!(error instanceof UnreadableSecretError)) throw error;
      logger.warn('oauth client secret unreadable', { appId, reason: error.reason });
      return undefined;
    }
  }

  async function clientOf(appId: string, item: Item): Promise<OAuthClient> {
    const document = JSON.parse(String(item.client)) as ClientDocument;
    return { ...document, clientId: String(item.clientId), clientSecret: await open(appId, item) };
  }

  const forApp = (appId: string): OAuthClientStore => ({
    async readOAuthClient(clientId): Promise<StoredClient | undefined> {
      const item = await getItem(table, oauthClientEntity.key({ appId, clientId }));
      if (!item) return undefined;
      return { client: await clientOf(appId, item), version: Number(item.version) };
    },

    async createOAuthClient(client) {
      const item = oauthClientEntity.item(
        { appId, clientId: client.clientId },
        {
          clientId: client.clientId,
          clientName: client.clientName,
          client: documentOf(client),
          version: 1,
          ...(client.clientSecret !== undefined ? { [SEALED_ATTRIBUTE]: await seal(appId, client) } : {}),
        },
      );
      return putItem(table, item, { expression: 'attribute_not_exists(PK)' });
    },

    async replaceOAuthClient(client, version) {
      const set: Item = { clientName: client.clientName, client: documentOf(client) };
      if (client.clientSecret !== undefined) set[SEALED_ATTRIBUTE] = await seal(appId, client);
      const result = await updateItem(
        table,
        oauthClientEntity.key({ appId, clientId: client.clientId }),
        updateExpression(set, { version: 1 }),
        { expression: '#version = :seen', names: { '#version': 'version' }, values: { ':seen': version } },
        { subject: SUBJECT },
      );
      return result.ok;
    },

    async listOAuthClients(page): Promise<ClientPage> {
      const wanted = page.limit + 1;
      const found: Item[] = [];
      let startKey: Item | undefined =
        page.after === undefined ? undefined : oauthClientEntity.key({ appId, clientId: page.after });
      // A name filter reads past the clients of other names: as many pages as it takes.
      do {
        const next = await queryPage(
          table,
          { pk: oauthClientsPartition(appId) },
          {
            consistent: true,
            ...(startKey ? { startKey } : {}),
            ...(page.clientName === undefined
              ? { pageSize: wanted - found.length }
              : {
                  filter: {
                    expression: '#name = :name',
                    names: { '#name': 'clientName' },
                    values: { ':name': page.clientName },
                  },
                }),
          },
        );
        found.push(...next.items);
        startKey = next.next;
      } while (startKey && found.length < wanted);
      const clients = await Promise.all(found.slice(0, page.limit).map((item) => clientOf(appId, item)));
      return { clients, more: found.length > page.limit };
    },

    async removeOAuthClient(clientId) {
      return (await deleteItem(table, oauthClientEntity.key({ appId, clientId }))).existed;
    },
  });
  return { forApp };
}

/** Deletes every client of the app (app removal): one partition, page by page. */
export async function purgeAppOAuthClients(table: Table, appId: string): Promise<void> {
  for await (const page of queryPages(table, { pk: oauthClientsPartition(appId) }, { attributes: ['PK', 'SK'] })) {
    await batchDeleteAll(table, page as Key[]);
  }
}
