/**
 * An in-memory TotpStore (functions/domain/totp/ports.ts) with the same conditional semantics as
 * the DynamoDB one, for unit tests of the TOTP use cases. Secrets are kept as given (no sealing).
 */
import type { AttemptRecord, StoredAttempts, TotpDeviceView, TotpStore } from '#functions/domain/totp/ports.js';

interface Device extends TotpDeviceView {
  readonly secret: string;
}

export interface MemoryTotpStore extends TotpStore {
  readonly devices: Map<string, Device>;
  readonly attemptRecords: Map<string, StoredAttempts & { expiresAt: number }>;
  /** How many times each device's secret was asked for. */
  readonly secretReads: Map<string, number>;
}

export function memoryTotpStore(): MemoryTotpStore {
  const devices = new Map<string, Device>();
  const attemptRecords = new Map<string, StoredAttempts & { expiresAt: number }>();
  const secretReads = new Map<string, number>();
  const dk = (appId: string, userId: string, name: string) => `${appId}\u0000${userId}\u0000${name}`;
  const ak = (appId: string, userId: string) => `${appId}\u0000${userId}\u0000`;
  const of = (appId: string, userId: string) =>
    [...devices.entries()].filter(([k]) => k.startsWith(`${appId}\u0000${userId}\u0000`)).map(([, d]) => d);
  return {
    devices,
    attemptRecords,
    secretReads,
    async listTotpDevices(appId, userId) {
      return of(appId, userId)
        .map(({ name, period, skew, verified }) => ({ name, period, skew, verified }))
        .sort((a, b) => (a.name < b.name ? -1 : 1));
    },
    async deviceSecret(appId, userId, name) {
      const key = dk(appId, userId, name);
      secretReads.set(key, (secretReads.get(key) ?? 0) + 1);
      return devices.get(key)?.secret;
    },
    async createDevice(appId, userId, device, secret) {
      const key = dk(appId, userId, device.name);
      if (devices.get(key)?.verified) return 'EXISTS';
      devices.set(key, { ...device, verified: false, secret });
      return 'OK';
    },
    async markDeviceVerified(appId, userId, name) {
      const key = dk(appId, userId, name);
      const device = devices.get(key);
      if (!device) return false;
      devices.set(key, { ...device, verified: true });
      return true;
    },
    async removeDevice(appId, userId, name) {
      return devices.delete(dk(appId, userId, name));
    },
    async renameDevice(appId, userId, from, to) {
      const device = devices.get(dk(appId, userId, from));
      if (!device) return 'UNKNOWN_DEVICE';
      if (from === to) return 'OK';
      if (devices.has(dk(appId, userId, to))) return 'EXISTS';
      devices.delete(dk(appId, userId, from));
      devices.set(dk(appId, userId, to), { ...device, name: to });
      return 'OK';
    },
    async attempts(appId, userId) {
      const stored = attemptRecords.get(ak(appId, userId));
      return stored
        ? { record: stored.record, version: stored.version }
        : { record: { failedAt: [], usedCodes: [] }, version: 0 };
    },
    async saveAttempts(appId, userId, record: AttemptRecord, seenVersion, expiresAt) {
      const key = ak(appId, userId);
      if ((attemptRecords.get(key)?.version ?? 0) !== seenVersion) return false;
      attemptRecords.set(key, { record, version: seenVersion + 1, expiresAt });
      return true;
    },
    async removeAttempts(appId, userId) {
      for (const key of [...attemptRecords.keys()])
        if (key.startsWith(`${appId}\u0000${userId}\u0000`)) attemptRecords.delete(key);
    },
  };
}
