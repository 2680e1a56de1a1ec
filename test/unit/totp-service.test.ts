/**
 * TOTP use cases (functions/domain/totp/service.ts) over an in-memory store: the MFA switch, what
 * a secret that cannot be opened does, and that a limited user's secrets are not even opened.
 */
import { base32nopad } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { UnreadableSecretError } from '#functions/domain/credentials/ports.js';
import {
  createDevice,
  MFA_DISABLED_MESSAGE,
  type TotpDeps,
  verifyCode,
  verifyDevice,
} from '#functions/domain/totp/service.js';
import { totpCode } from '../fixtures/migrate/second-factors.js';
import { type MemoryTotpStore, memoryTotpStore } from '../helpers/memory-totp-store.js';

const NOW = 1_700_000_000_000;
const target = { tenantId: 'public', cdiVersion: '5.4' };

function deps(overrides: Partial<TotpDeps> = {}): TotpDeps & { store: MemoryTotpStore } {
  let byte = 0;
  return {
    store: memoryTotpStore().forApp('a'),
    limits: { maxAttempts: 2, cooldownMs: 60_000 },
    mfaEnabled: true,
    now: () => NOW,
    randomBytes: (size) => Uint8Array.from({ length: size }, () => byte++),
    ...overrides,
  } as TotpDeps & { store: MemoryTotpStore };
}

const codeOf = (secret: string, at = NOW) => totpCode(base32nopad.decode(secret), at / 1000);

describe('TOTP use cases', () => {
  it('answer 402 for device creation and code verification when mfa_enabled is off', async () => {
    const off = deps({ mfaEnabled: false });
    await expect(createDevice(off, { userId: 'u', skew: 1, period: 30 })).rejects.toMatchObject({
      statusCode: 402,
      message: MFA_DISABLED_MESSAGE,
    });
    await expect(verifyCode(off, target, { userId: 'u', totp: '123456' })).rejects.toMatchObject({ statusCode: 402 });
    expect(off.store.devices.size).toBe(0);
  });

  it('verify a device with its code, then codes of any verified device', async () => {
    const d = deps();
    const created = await createDevice(d, { userId: 'u', deviceName: 'phone', skew: 1, period: 30 });
    expect(created).toMatchObject({ status: 'OK', deviceName: 'phone' });
    const secret = (created as { secret: string }).secret;
    expect(await verifyDevice(d, target, { userId: 'u', deviceName: 'phone', totp: codeOf(secret) })).toEqual({
      status: 'OK',
      wasAlreadyVerified: false,
    });
    expect(await verifyCode(d, target, { userId: 'u', totp: codeOf(secret, NOW + 30_000) })).toEqual({ status: 'OK' });
  });

  it('treat a secret that can never be opened as matching nothing; a refused key is an error', async () => {
    const d = deps();
    const good = base32nopad.encode(Buffer.from('a good secret of 20b'));
    d.store.devices.set('a\u0000u\u0000broken', { name: 'broken', period: 30, skew: 1, verified: true, secret: 'x' });
    d.store.devices.set('a\u0000u\u0000good', { name: 'good', period: 30, skew: 1, verified: true, secret: good });
    const opening = d.store.openTotpDeviceSecret;
    d.store.openTotpDeviceSecret = async (userId, name) => {
      if (name === 'broken') throw new UnreadableSecretError('altered', 'altered');
      return opening(userId, name);
    };
    expect(await verifyCode(d, target, { userId: 'u', totp: codeOf(good) })).toEqual({ status: 'OK' });
    d.store.openTotpDeviceSecret = async () => {
      throw new UnreadableSecretError('key-refused', 'refused');
    };
    await expect(verifyCode(d, target, { userId: 'u', totp: '000000' })).rejects.toBeInstanceOf(UnreadableSecretError);
  });

  it('open no secret for a user who is limited', async () => {
    const d = deps();
    const created = await createDevice(d, { userId: 'u', deviceName: 'p', skew: 1, period: 30 });
    const secret = (created as { secret: string }).secret;
    await verifyDevice(d, target, { userId: 'u', deviceName: 'p', totp: codeOf(secret) });
    for (let i = 0; i < 2; i++) await verifyCode(d, target, { userId: 'u', totp: 'wrong!' });
    const reads = d.store.secretReads.get('a\u0000u\u0000p');
    const limited = await verifyCode(d, target, { userId: 'u', totp: codeOf(secret, NOW + 30_000) });
    expect(limited).toEqual({
      status: 'LIMIT_REACHED_ERROR',
      retryAfterMs: 60_000,
      currentNumberOfFailedAttempts: 2,
      maxNumberOfFailedAttempts: 2,
    });
    expect(d.store.secretReads.get('a\u0000u\u0000p')).toBe(reads);
  });
});

describe('attempts are counted per user across the tenants of the app', () => {
  it("a tenant with a lower totp_max_attempts never cuts short another tenant's count", async () => {
    const store = memoryTotpStore().forApp('a');
    let now = NOW;
    // 'public' allows 2 failures within 1 ms; 't1' allows 6 within a minute.
    const strict = deps({ store, now: () => now, limits: { maxAttempts: 2, cooldownMs: 1 } });
    const lenient = deps({ store, now: () => now, limits: { maxAttempts: 6, cooldownMs: 60_000 } });
    const created = await createDevice(strict, { userId: 'u', deviceName: 'phone', skew: 1, period: 30 });
    const secret = (created as { secret: string }).secret;
    await verifyDevice(strict, target, { userId: 'u', deviceName: 'phone', totp: codeOf(secret) });
    const wrong = ['000000', '111111', '222222'].find((c) => c !== codeOf(secret)) as string;
    const inT1 = { ...target, tenantId: 't1' };
    for (let i = 1; i <= 4; i++) {
      now += 10;
      expect(await verifyCode(lenient, inT1, { userId: 'u', totp: wrong })).toMatchObject({
        currentNumberOfFailedAttempts: i,
      });
    }
    // A failure counted in 'public' (its failures are 10 ms apart: over its cooldown) …
    now += 10;
    expect(await verifyCode(strict, target, { userId: 'u', totp: wrong })).toMatchObject({
      status: 'INVALID_TOTP_ERROR',
      currentNumberOfFailedAttempts: 2,
    });
    // … and 't1' still counts every failure: this is the 6th, then the limit.
    now += 10;
    expect(await verifyCode(lenient, inT1, { userId: 'u', totp: wrong })).toMatchObject({
      currentNumberOfFailedAttempts: 6,
    });
    expect((await verifyCode(lenient, inT1, { userId: 'u', totp: codeOf(secret, now) })).status).toBe(
      'LIMIT_REACHED_ERROR',
    );
    expect([...store.attemptRecords.keys()]).toHaveLength(1);
  });
});
