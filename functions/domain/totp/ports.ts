/** A device as the API shows it (no secret). */
export interface TotpDeviceView {
  readonly name: string;
  readonly period: number;
  readonly skew: number;
  readonly verified: boolean;
}

/** What the TOTP use cases need from storage. */
export interface TotpStore {
  listTotpDevices(appId: string, userId: string): Promise<TotpDeviceView[]>;
  /**
   * The secret of a user id's device in clear (base32, as imported), for verifying a code; stored
   * sealed, opened only here. Undefined when the device does not exist. The route that calls it
   * needs `credentials: 'open'` in functions/routes.ts.
   */
  deviceSecret(appId: string, userId: string, deviceName: string): Promise<string | undefined>;
}
