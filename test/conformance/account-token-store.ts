/**
 * What every AccountTokenStores (functions/domain/accounts/ports.ts: password-reset,
 * email-verification and account-recovery tokens, verified emails) must do, run against the
 * DynamoDB store (test/integration/store-conformance.test.ts; no in-memory one exists): an app sees
 * only its own tokens and verified emails, and a token is consumed once when many uses race (the
 * conditional delete is a companion write of a user write, so the suite is given how to commit
 * companion writes). An expired token is still read on purpose: the use cases consume it and
 * refuse it (functions/domain/accounts/email-verification.ts, password-reset.ts), as the
 * reference does; storage's TTL drops it later.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AccountTokenStores } from '#functions/domain/accounts/ports.js';
import { hashOneTimeToken, newOneTimeToken } from '#functions/domain/accounts/tokens.js';
import type { AccountWrites, OneTimeToken } from '#functions/domain/users/companions.js';

const unique = (prefix: string) => `${prefix}-${randomBytes(5).toString('hex')}`;

const tokenOf = (ownerId: string, email = 'ada@example.com'): OneTimeToken => ({
  kind: 'emailVerification',
  hash: hashOneTimeToken(newOneTimeToken()),
  ownerId,
  userId: ownerId,
  email,
  tenantId: 'public',
  expiresAt: Date.now() + 3_600_000,
});
const groupOf = (token: OneTimeToken) =>
  ({ kind: 'emailVerification', ownerId: token.ownerId, tenantId: 'public', email: token.email }) as const;

export function accountTokenStoreConformance(
  label: string,
  stores: () => AccountTokenStores,
  /** Commits these companion writes alone (no user change); whether their conditions held. */
  commit: (appId: string, writes: AccountWrites) => Promise<boolean>,
): void {
  describe(`AccountTokenStore conformance: ${label}`, () => {
    it('another app sees none of an app’s tokens or verified emails, and cannot remove them', async () => {
      const table = stores();
      const [a, b] = [unique('tokens-a'), unique('tokens-b')];
      const mine = table.forApp(a);
      const theirs = table.forApp(b);
      const token = tokenOf('owner-1');
      await mine.storeOneTimeToken(token);
      expect(await commit(a, { verify: [{ ownerId: 'owner-1', email: 'ada@example.com' }] })).toBe(true);

      expect(await theirs.readOneTimeToken('emailVerification', token.hash)).toBeUndefined();
      expect(await theirs.oneTimeTokensOf(groupOf(token))).toEqual([]);
      expect(await theirs.isVerifiedEmail({ ownerId: 'owner-1', email: 'ada@example.com' })).toBe(false);
      await theirs.removeOneTimeTokens([token]);
      expect(await commit(b, { consume: token })).toBe(false);

      expect(await mine.readOneTimeToken('emailVerification', token.hash)).toEqual(token);
      expect(await mine.oneTimeTokensOf(groupOf(token))).toEqual([token]);
      expect(await mine.isVerifiedEmail({ ownerId: 'owner-1', email: 'ada@example.com' })).toBe(true);
      await mine.removeOneTimeTokens([token]);
      expect(await mine.readOneTimeToken('emailVerification', token.hash)).toBeUndefined();
    });

    it('of many uses of one token racing, exactly one consumes it', async () => {
      const app = unique('tokens-race');
      const store = stores().forApp(app);
      const token = tokenOf('owner-2');
      await store.storeOneTimeToken(token);
      const uses = await Promise.all(Array.from({ length: 6 }, () => commit(app, { consume: token })));
      expect(uses.filter(Boolean)).toHaveLength(1);
      expect(await store.oneTimeTokensOf(groupOf(token))).toEqual([]);
    });

    it('an expired token is still read, for the use case to consume and refuse', async () => {
      const store = stores().forApp(unique('tokens-expired'));
      const token = { ...tokenOf('owner-3'), expiresAt: Date.now() - 1_000 };
      await store.storeOneTimeToken(token);
      expect(await store.readOneTimeToken('emailVerification', token.hash)).toEqual(token);
    });
  });
}
