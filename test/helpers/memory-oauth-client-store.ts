/**
 * An in-memory OAuthClientStores (functions/domain/oauth-clients/ports.ts) with the same
 * conditional semantics as the DynamoDB one, for unit tests of the OAuth2 client use cases.
 * Secrets are kept in clear (sealing is the real store's). Every app's store shares `clients`,
 * keyed `<appId>\0<clientId>`, so a test can look inside; `interfere`, when set, runs before
 * each replace (a concurrent change getting in first).
 */
import type { OAuthClientStores, StoredClient } from '#functions/domain/oauth-clients/ports.js';

export interface MemoryOAuthClientStores extends OAuthClientStores {
  readonly clients: Map<string, StoredClient>;
  interfere?: () => void;
}

export function memoryOAuthClientStores(): MemoryOAuthClientStores {
  const clients = new Map<string, StoredClient>();
  const stores: MemoryOAuthClientStores = {
    clients,
    forApp(appId) {
      const key = (clientId: string) => `${appId}\u0000${clientId}`;
      return {
        async readOAuthClient(clientId) {
          return clients.get(key(clientId));
        },
        async createOAuthClient(client) {
          if (clients.has(key(client.clientId))) return false;
          clients.set(key(client.clientId), { client, version: 1 });
          return true;
        },
        async replaceOAuthClient(client, version) {
          stores.interfere?.();
          const found = clients.get(key(client.clientId));
          if (!found || found.version !== version) return false;
          const clientSecret = client.clientSecret ?? found.client.clientSecret;
          clients.set(key(client.clientId), { client: { ...client, clientSecret }, version: version + 1 });
          return true;
        },
        async listOAuthClients(page) {
          const all = [...clients.entries()]
            .filter(([k]) => k.startsWith(`${appId}\u0000`))
            .map(([, v]) => v.client)
            .filter((c) => page.clientName === undefined || c.clientName === page.clientName)
            .filter((c) => page.after === undefined || c.clientId > page.after)
            .sort((a, b) => (a.clientId < b.clientId ? -1 : 1));
          return { clients: all.slice(0, page.limit), more: all.length > page.limit };
        },
        async removeOAuthClient(clientId) {
          return clients.delete(key(clientId));
        },
      };
    },
  };
  return stores;
}
