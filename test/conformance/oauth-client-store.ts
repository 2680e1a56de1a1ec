/**
 * What every OAuthClientStores (functions/domain/oauth-clients/ports.ts) must do, run against the
 * DynamoDB store (test/integration/store-conformance.test.ts) and the in-memory one the unit tests
 * use (test/unit/store-conformance.test.ts): an app sees only its own clients, and the conditional
 * writes (a client id taken once, a replace at the version it was read at) hold when many race.
 * Clients do not expire.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newSettings } from '#functions/domain/oauth-clients/fields.js';
import type { OAuthClient } from '#functions/domain/oauth-clients/model.js';
import type { OAuthClientStores } from '#functions/domain/oauth-clients/ports.js';

const unique = (prefix: string) => `${prefix}-${randomBytes(5).toString('hex')}`;

const clientOf = (
  clientId: string,
  clientName = 'name',
  clientSecret: string | undefined = 'secret-1',
): OAuthClient => ({
  ...newSettings({ clientName }, false),
  clientId,
  clientSecret,
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_000,
});

export function oauthClientStoreConformance(label: string, stores: () => OAuthClientStores): void {
  describe(`OAuthClientStore conformance: ${label}`, () => {
    it('another app sees none of an app’s clients, and cannot change or remove them', async () => {
      const table = stores();
      const mine = table.forApp(unique('oauth-a'));
      const theirs = table.forApp(unique('oauth-b'));
      const client = clientOf('stcl_same');
      expect(await mine.createOAuthClient(client)).toBe(true);

      expect(await theirs.readOAuthClient('stcl_same')).toBeUndefined();
      expect(await theirs.listOAuthClients({ limit: 10 })).toEqual({ clients: [], more: false });
      expect(await theirs.replaceOAuthClient(clientOf('stcl_same', 'theirs'), 1)).toBe(false);
      expect(await theirs.removeOAuthClient('stcl_same')).toBe(false);
      // The same client id is free in the other app.
      expect(await theirs.createOAuthClient(clientOf('stcl_same', 'theirs', 'secret-2'))).toBe(true);

      expect(await mine.readOAuthClient('stcl_same')).toEqual({ client, version: 1 });
      expect(await mine.listOAuthClients({ limit: 10 })).toEqual({ clients: [client], more: false });
      expect(await mine.removeOAuthClient('stcl_same')).toBe(true);
      expect((await theirs.readOAuthClient('stcl_same'))?.client.clientSecret).toBe('secret-2');
    });

    it('of many creations of one client id, exactly one holds', async () => {
      const store = stores().forApp(unique('oauth-create'));
      const created = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.createOAuthClient(clientOf('stcl_race', `n${i}`))),
      );
      expect(created.filter(Boolean)).toHaveLength(1);
      expect((await store.readOAuthClient('stcl_race'))?.client.clientName).toBe(`n${created.indexOf(true)}`);
    });

    it('of many replaces from the same version, exactly one holds; the secret stays when none is given', async () => {
      const store = stores().forApp(unique('oauth-replace'));
      expect(await store.createOAuthClient(clientOf('stcl_c'))).toBe(true);
      const replaced = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.replaceOAuthClient(clientOf('stcl_c', `r${i}`, undefined), 1)),
      );
      expect(replaced.filter(Boolean)).toHaveLength(1);
      const stored = await store.readOAuthClient('stcl_c');
      expect(stored?.version).toBe(2);
      expect(stored?.client.clientName).toBe(`r${replaced.indexOf(true)}`);
      expect(stored?.client.clientSecret).toBe('secret-1');
      expect(await store.replaceOAuthClient(clientOf('stcl_gone'), 1)).toBe(false);
      expect(await store.readOAuthClient('stcl_gone')).toBeUndefined();
    });
  });
}
