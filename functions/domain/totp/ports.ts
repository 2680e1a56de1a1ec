/** An accepted code, kept (as a digest) until it could no longer be accepted. */
export interface UsedCode {
  readonly codeDigest: string;
  readonly expiresAt: number;
}

/** What one user id's attempts, in every tenant of the app, left behind. */
export interface AttemptRecord {
  /** Times (epoch ms) of the failures since the last accepted code, newest first. */
  readonly failedAt: readonly number[];
  readonly usedCodes: readonly UsedCode[];
}

/** A device as the API shows it (no secret). */
export interface TotpDeviceView {
  readonly name: string;
  readonly period: number;
  readonly skew: number;
  readonly verified: boolean;
}

/** A user id's attempt record (one for all the app's tenants), with the version a conditional save compares. */
export interface StoredAttempts {
  readonly record: AttemptRecord;
  /** 0 when there is none yet. */
  readonly version: number;
}

/** What the TOTP use cases need from storage: the devices and attempt records of one app (functions/storage/totp-store.ts). */
export interface TotpStore {
  listTotpDevices(userId: string): Promise<TotpDeviceView[]>;
  /**
   * The secret of a user id's device in clear (base32), for verifying a code; stored sealed,
   * opened only here. Undefined when the device does not exist. The route that calls it needs
   * `credentials: 'open'` in functions/routes.ts.
   */
  openTotpDeviceSecret(userId: string, deviceName: string): Promise<string | undefined>;
  /**
   * A new unverified device holding `secret` (sealed; the route needs `credentials: 'seal'`), in
   * one conditional write: it replaces an unverified device of the same name, and `EXISTS` (nothing
   * written) when a verified one has the name.
   */
  createTotpDevice(
    userId: string,
    device: { readonly name: string; readonly period: number; readonly skew: number },
    secret: string,
  ): Promise<'OK' | 'EXISTS'>;
  /** Marks a device verified; false when the device is gone. */
  markTotpDeviceVerified(userId: string, deviceName: string): Promise<boolean>;
  /** Deletes a device; whether it existed. */
  removeTotpDevice(userId: string, deviceName: string): Promise<boolean>;
  /** Renames a device (its secret stays as it is); `EXISTS` when the new name is taken. */
  renameTotpDevice(userId: string, from: string, to: string): Promise<'OK' | 'UNKNOWN_DEVICE' | 'EXISTS'>;
  /**
   * The attempt record of a user id (consistent read): one per user of the app, whatever the
   * tenant of the attempt (docs/totp-and-mfa.md "Rate limiting").
   */
  readTotpAttempts(userId: string): Promise<StoredAttempts>;
  /**
   * Replaces the record, on condition that its version is still `seenVersion` (false, nothing
   * written, when another attempt saved first). `expiresAt` (epoch ms): when storage may drop it
   * (DynamoDB's TTL). A record is not read as empty past it: what it holds is judged by time in
   * attempts.ts, and a tenant with a short cooldown must not reset another tenant's count.
   */
  saveTotpAttempts(userId: string, record: AttemptRecord, seenVersion: number, expiresAt: number): Promise<boolean>;
  /** Deletes the user id's attempt record (its last device was removed), and any kept per tenant before. */
  removeTotpAttempts(userId: string): Promise<void>;
}

/** The TOTP devices and attempt records of every app of a table; wiring binds it to the request's app (docs/architecture.md "Stores bound to their app"). */
export interface TotpStores {
  forApp(appId: string): TotpStore;
}
