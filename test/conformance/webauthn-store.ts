/**
 * What every WebauthnStores (functions/domain/webauthn/ports.ts) must do, run against the DynamoDB
 * store (test/integration/store-conformance.test.ts; no in-memory one exists): an app sees only its
 * own options and passkeys, and the conditional writes (options stored once, a sign-in recorded
 * only from the counter it was judged on, options consumed once) hold when many race. Options
 * past their `expiresAt` stay readable on purpose: the use cases answer `Options expired` for them
 * (functions/domain/webauthn/verify.ts), and storage's TTL drops them later.
 *
 * Passkeys are registered with a user write (the port's companion writes), so the suite is given
 * how to register one directly.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { StoredCredential } from '#functions/domain/users/companions.js';
import type { GeneratedOptions } from '#functions/domain/webauthn/model.js';
import type { WebauthnStores } from '#functions/domain/webauthn/ports.js';

const unique = (prefix: string) => `${prefix}-${randomBytes(5).toString('hex')}`;

const optionsOf = (id: string, tenantId = 'public'): GeneratedOptions => ({
  id,
  tenantId,
  challenge: randomBytes(32).toString('base64url'),
  relyingPartyId: 'example.com',
  relyingPartyName: 'Example',
  origin: 'https://example.com',
  userVerification: 'preferred',
  userPresence: false,
  createdAt: 1_700_000_000_000,
  expiresAt: 1_700_000_060_000,
});

const passkeyOf = (id: string, counter = 0): StoredCredential => ({
  id,
  recipeUserId: randomUUID(),
  relyingPartyId: 'example.com',
  publicKey: randomBytes(16).toString('base64url'),
  counter,
  transports: ['internal'],
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_000,
});

export function webauthnStoreConformance(
  label: string,
  stores: () => WebauthnStores,
  registerPasskey: (appId: string, passkey: StoredCredential) => Promise<void>,
): void {
  describe(`WebauthnStore conformance: ${label}`, () => {
    it('another app sees none of an app’s options or passkeys, and cannot use or remove them', async () => {
      const table = stores();
      const [a, b] = [unique('webauthn-a'), unique('webauthn-b')];
      const mine = table.forApp(a);
      const theirs = table.forApp(b);
      const options = optionsOf(randomUUID());
      const passkey = passkeyOf(randomBytes(16).toString('base64url'), 3);
      expect(await mine.storeWebauthnOptions(options)).toBe(true);
      await registerPasskey(a, passkey);

      expect(await theirs.readWebauthnOptions(options.id)).toBeUndefined();
      expect(await theirs.removeWebauthnOptions('public', options.id)).toBe(false);
      expect(await theirs.readPasskey(passkey.id)).toBeUndefined();
      expect(await theirs.readPasskeys([passkey.id])).toEqual([]);
      expect(
        await theirs.recordPasskeySignIn({
          credentialId: passkey.id,
          seenCounter: 3,
          newCounter: 4,
          at: 1,
          consumeOptions: { id: options.id },
        }),
      ).toBe('CHANGED');
      await theirs.removePasskeys([passkey.id]);
      // The same options id is free in the other app.
      expect(await theirs.storeWebauthnOptions(options)).toBe(true);

      expect(await mine.readWebauthnOptions(options.id)).toEqual(options);
      expect(await mine.readPasskey(passkey.id)).toEqual(passkey);
      expect(await mine.readPasskeys([passkey.id, 'missing'])).toEqual([passkey]);
      expect(await mine.removeWebauthnOptions('t1', options.id)).toBe(false);
      expect(await mine.removeWebauthnOptions('public', options.id)).toBe(true);
      expect(await theirs.readWebauthnOptions(options.id)).toEqual(options);
    });

    it('of many stores of options with one id, exactly one holds', async () => {
      const store = stores().forApp(unique('webauthn-race'));
      const id = randomUUID();
      const stored = await Promise.all(Array.from({ length: 8 }, () => store.storeWebauthnOptions(optionsOf(id))));
      expect(stored.filter(Boolean)).toHaveLength(1);
    });

    it('of many sign-ins recorded from the same counter, exactly one holds; options are consumed once', async () => {
      const app = unique('webauthn-signin');
      const store = stores().forApp(app);
      const passkey = passkeyOf(randomBytes(16).toString('base64url'), 7);
      await registerPasskey(app, passkey);
      const uses = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          store.recordPasskeySignIn({ credentialId: passkey.id, seenCounter: 7, newCounter: 8 + i, at: 2 }),
        ),
      );
      expect(uses.filter((u) => u === 'OK')).toHaveLength(1);
      expect((await store.readPasskey(passkey.id))?.counter).toBe(8 + uses.indexOf('OK'));

      const options = optionsOf(randomUUID());
      expect(await store.storeWebauthnOptions(options)).toBe(true);
      const counter = 8 + uses.indexOf('OK');
      const consumed = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          store.recordPasskeySignIn({
            credentialId: passkey.id,
            seenCounter: counter,
            newCounter: 100 + i,
            at: 3,
            consumeOptions: { id: options.id },
          }),
        ),
      );
      expect(consumed.filter((u) => u === 'OK')).toHaveLength(1);
      expect(await store.readWebauthnOptions(options.id)).toBeUndefined();
      expect(
        await store.recordPasskeySignIn({
          credentialId: passkey.id,
          seenCounter: 100 + consumed.indexOf('OK'),
          newCounter: 200,
          at: 4,
          consumeOptions: { id: options.id },
        }),
      ).toBe('CHANGED');
      await store.removePasskeys([passkey.id]);
      expect(await store.readPasskey(passkey.id)).toBeUndefined();
    });
  });
}
