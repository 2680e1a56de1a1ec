/**
 * What every TotpStores (functions/domain/totp/ports.ts) must do, run against the DynamoDB store
 * (test/integration/store-conformance.test.ts) and the in-memory one the unit tests use
 * (test/unit/store-conformance.test.ts): an app sees only its own devices, secrets and attempt
 * records, and the conditional writes (an attempt record saved at the version it was read at, a
 * device name taken once) hold when many race. The attempt record's `expiresAt` is when storage
 * may drop it, not a read rule (functions/domain/totp/ports.ts), so there is no expiry to check.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AttemptRecord, TotpStores } from '#functions/domain/totp/ports.js';

const unique = (prefix: string) => `${prefix}-${randomBytes(5).toString('hex')}`;
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const DEVICE = { name: 'phone', period: 30, skew: 1 };
const failedOnce = (at: number): AttemptRecord => ({ failedAt: [at], usedCodes: [] });
const IN_AN_HOUR = () => Date.now() + 3_600_000;

export function totpStoreConformance(label: string, stores: () => TotpStores): void {
  describe(`TotpStore conformance: ${label}`, () => {
    it('another app sees none of an app’s devices, secrets or attempts, and cannot change them', async () => {
      const table = stores();
      const mine = table.forApp(unique('totp-a'));
      const theirs = table.forApp(unique('totp-b'));
      expect(await mine.createTotpDevice('u', DEVICE, SECRET)).toBe('OK');
      expect(await mine.markTotpDeviceVerified('u', 'phone')).toBe(true);
      expect(await mine.saveTotpAttempts('u', failedOnce(1), 0, IN_AN_HOUR())).toBe(true);

      expect(await theirs.listTotpDevices('u')).toEqual([]);
      expect(await theirs.openTotpDeviceSecret('u', 'phone')).toBeUndefined();
      expect(await theirs.readTotpAttempts('u')).toEqual({ record: { failedAt: [], usedCodes: [] }, version: 0 });
      expect(await theirs.markTotpDeviceVerified('u', 'phone')).toBe(false);
      expect(await theirs.renameTotpDevice('u', 'phone', 'tablet')).toBe('UNKNOWN_DEVICE');
      expect(await theirs.removeTotpDevice('u', 'phone')).toBe(false);
      await theirs.removeTotpAttempts('u');
      // The same name in the other app is free (a verified device of this app does not hold it).
      expect(await theirs.createTotpDevice('u', DEVICE, 'KRUGS4ZANFZSAYJAON2HEZLUEBZWK3TSMV2A')).toBe('OK');

      expect(await mine.listTotpDevices('u')).toEqual([{ ...DEVICE, verified: true }]);
      expect(await mine.openTotpDeviceSecret('u', 'phone')).toBe(SECRET);
      expect(await mine.readTotpAttempts('u')).toEqual({ record: failedOnce(1), version: 1 });
      expect(await theirs.listTotpDevices('u')).toEqual([{ ...DEVICE, verified: false }]);
    });

    it('of many saves of an attempt record from the same version, exactly one holds', async () => {
      const store = stores().forApp(unique('totp-race'));
      const first = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.saveTotpAttempts('u', failedOnce(i), 0, IN_AN_HOUR())),
      );
      expect(first.filter(Boolean)).toHaveLength(1);
      expect(await store.readTotpAttempts('u')).toEqual({ record: failedOnce(first.indexOf(true)), version: 1 });
      const next = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.saveTotpAttempts('u', failedOnce(100 + i), 1, IN_AN_HOUR())),
      );
      expect(next.filter(Boolean)).toHaveLength(1);
      expect(await store.readTotpAttempts('u')).toEqual({
        record: failedOnce(100 + next.indexOf(true)),
        version: 2,
      });
      expect(await store.saveTotpAttempts('u', failedOnce(0), 1, IN_AN_HOUR())).toBe(false);
    });

    it('a verified device keeps its name: a new device of that name, or a rename to it, is refused', async () => {
      const store = stores().forApp(unique('totp-names'));
      expect(await store.createTotpDevice('u', DEVICE, SECRET)).toBe('OK');
      expect(await store.markTotpDeviceVerified('u', 'phone')).toBe(true);
      const again = await Promise.all(Array.from({ length: 4 }, () => store.createTotpDevice('u', DEVICE, SECRET)));
      expect(again).toEqual(['EXISTS', 'EXISTS', 'EXISTS', 'EXISTS']);
      await Promise.all(['a', 'b', 'c'].map((name) => store.createTotpDevice('u', { ...DEVICE, name }, SECRET)));
      const renames = await Promise.all(['a', 'b', 'c'].map((from) => store.renameTotpDevice('u', from, 'tablet')));
      expect(renames.filter((r) => r === 'OK')).toHaveLength(1);
      expect(renames.filter((r) => r !== 'OK').every((r) => r === 'EXISTS' || r === 'UNKNOWN_DEVICE')).toBe(true);
      expect((await store.listTotpDevices('u')).map((d) => d.name)).toEqual(
        expect.arrayContaining(['phone', 'tablet']),
      );
      expect(await store.openTotpDeviceSecret('u', 'phone')).toBe(SECRET);
    });
  });
}
