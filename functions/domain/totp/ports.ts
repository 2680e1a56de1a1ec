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
}
