/**
 * An in-memory TotpStores (functions/domain/totp/ports.ts) with the same conditional semantics as
 * the DynamoDB one, for unit tests of the TOTP use cases. Secrets are kept as given (no sealing).
 * Every app's store shares the maps below, keyed `<appId>\0<userId>\0<device name>` (devices) and
 * `<appId>\0<userId>\0` (attempt records), so a test can look inside.
 */
import type { AttemptRecord, StoredAttempts, TotpDeviceView, TotpStore } from '#functions/domain/totp/ports.js';

interface Device extends TotpDeviceView {
  readonly secret: string;
}

interface MemoryMaps {
  readonly devices: Map<string, Device>;
  readonly attemptRecords: Map<string, StoredAttempts & { expiresAt: number }>;
  /** How many times each device's secret was asked for. */
  readonly secretReads: Map<string, number>;
}

/** One app's store, with the maps every app's store shares. */
export interface MemoryTotpStore extends TotpStore, MemoryMaps {}

export interface MemoryTotpStores extends MemoryMaps {
  forApp(appId: string): MemoryTotpStore;
}

export function memoryTotpStore(): MemoryTotpStores {
  const maps: MemoryMaps = { devices: new Map(), attemptRecords: new Map(), secretReads: new Map() };
  return { ...maps, forApp: (appId) => memoryAppTotpStore(maps, appId) };
}

function memoryAppTotpStore(maps: MemoryMaps, appId: string): MemoryTotpStore {
  const { devices, attemptRecords, secretReads } = maps;
  const dk = (userId: string, name: string) => `${appId}\u0000${userId}\u0000${name}`;
  const ak = (userId: string) => `${appId}\u0000${userId}\u0000`;
  const of = (userId: string) =>
    [...devices.entries()].filter(([k]) => k.startsWith(`${appId}\u0000${userId}\u0000`)).map(([, d]) => d);
  return {
    ...maps,
    async listTotpDevices(userId) {
      return of(userId)
        .map(({ name, period, skew, verified }) => ({ name, period, skew, verified }))
        .sort((a, b) => (a.name < b.name ? -1 : 1));
    },
    async openTotpDeviceSecret(userId, name) {
      const key = dk(userId, name);
      secretReads.set(key, (secretReads.get(key) ?? 0) + 1);
      return devices.get(key)?.secret;
    },
    async createTotpDevice(userId, device, secret) {
      const key = dk(userId, device.name);
      if (devices.get(key)?.verified) return 'EXISTS';
      devices.set(key, { ...device, verified: false, secret });
      return 'OK';
    },
    async markTotpDeviceVerified(userId, name) {
      const key = dk(userId, name);
      const device = devices.get(key);
      if (!device) return false;
      devices.set(key, { ...device, verified: true });
      return true;
    },
    async removeTotpDevice(userId, name) {
      return devices.delete(dk(userId, name));
    },
    async renameTotpDevice(userId, from, to) {
      const device = devices.get(dk(userId, from));
      if (!device) return 'UNKNOWN_DEVICE';
      if (from === to) return 'OK';
      if (devices.has(dk(userId, to))) return 'EXISTS';
      devices.delete(dk(userId, from));
      devices.set(dk(userId, to), { ...device, name: to });
      return 'OK';
    },
    async readTotpAttempts(userId) {
      const stored = attemptRecords.get(ak(userId));
      return stored
        ? { record: stored.record, version: stored.version }
        : { record: { failedAt: [], usedCodes: [] }, version: 0 };
    },
    async saveTotpAttempts(userId, record: AttemptRecord, seenVersion, expiresAt) {
      const key = ak(userId);
      if ((attemptRecords.get(key)?.version ?? 0) !== seenVersion) return false;
      attemptRecords.set(key, { record, version: seenVersion + 1, expiresAt });
      return true;
    },
    async removeTotpAttempts(userId) {
      attemptRecords.delete(ak(userId));
    },
  };
}
