/**
 * The normalised import user (docs/reference-behaviour.md "Staged user ids", "Validating an import
 * user"), the input of THE import function (./import-user.ts): what `validateImportUser`
 * (functions/domain/bulk-import/validate-user.ts) makes of a user of the wire payload
 * (`WireImportUser`, functions/contract/import-payload.ts), and what the staging store keeps. Key order of every object literal built by the validator follows
 * the reference's serialisation order, so `JSON.stringify` of a user matches the reference's raw data.
 */

import type { HashingAlgorithm } from '#functions/contract/import-payload.js';

export interface ImportUserRole {
  /** Trimmed role name; the role exists in the app. */
  role: string;
  /** Trimmed, lower-cased, existing tenant ids, without duplicates. */
  tenantIds: string[];
}

export interface ImportTotpDevice {
  /** As given (not trimmed). */
  secretKey: string;
  /** Seconds; default 30, always ≥ 1. */
  period: number;
  /** Default 1, always ≥ 0. */
  skew: number;
  /** Trimmed. */
  deviceName?: string;
}

interface ImportLoginMethodBase {
  /** Trimmed, lower-cased, existing tenant ids, without duplicates; never empty in a valid user. */
  tenantIds: string[];
  /** Default false. */
  isVerified: boolean;
  /** Default false; at most one login method of a user is primary. */
  isPrimary: boolean;
  /** Integer ms since epoch (fraction truncated); default = validation time; 0 ≤ value ≤ now. */
  timeJoinedInMSSinceEpoch: number;
  /** Generated UUID v4: the future recipe user id of this login method. */
  superTokensUserId: string;
}

export interface EmailPasswordImportLoginMethod extends ImportLoginMethodBase {
  recipeId: 'emailpassword';
  /** Trimmed and lower-cased. */
  email: string;
  /**
   * Trimmed and format-checked when `hashingAlgorithm` is present. Quirk kept from the reference: a hash
   * without an algorithm (allowed only together with `plainTextPassword`) is stored as given, its
   * format unchecked; but when it is a complete hash of a form sign-in computes, its cost bounds
   * apply (checkUndeclaredHash).
   */
  passwordHash?: string;
  /** Normalised (upper case). */
  hashingAlgorithm?: HashingAlgorithm;
  /** As given (not trimmed). */
  plainTextPassword?: string;
  /** Pending the app's password-migration hook: no hash, no password (docs/password-migration-hook.md). */
  passwordMigration?: 'hook';
}

export interface ThirdPartyImportLoginMethod extends ImportLoginMethodBase {
  recipeId: 'thirdparty';
  /** Trimmed and lower-cased. */
  email: string;
  /** As given. */
  thirdPartyId: string;
  /** As given. */
  thirdPartyUserId: string;
}

/** At least one of `email` and `phoneNumber` is present. */
export interface PasswordlessImportLoginMethod extends ImportLoginMethodBase {
  recipeId: 'passwordless';
  /** Trimmed and lower-cased. */
  email?: string;
  /** As normalisePhoneNumber (functions/contract/phone-numbers.ts) makes it (`+91-9999999999` → `+919999999999`). */
  phoneNumber?: string;
}

export type ImportLoginMethod =
  | EmailPasswordImportLoginMethod
  | ThirdPartyImportLoginMethod
  | PasswordlessImportLoginMethod;

export interface ImportUser {
  /**
   * Staged id = `superTokensUserId` of the primary login method (the one with `isPrimary`; else the one with
   * the smallest `timeJoinedInMSSinceEpoch`, ties → first). Becomes the SuperTokens user id after import.
   */
  id: string;
  /** Trimmed. */
  externalUserId?: string;
  /** Stored as given. */
  userMetadata?: Record<string, unknown>;
  /** `[]` when absent from the input. */
  userRoles: ImportUserRole[];
  /** `[]` when absent from the input. */
  totpDevices: ImportTotpDevice[];
  /** Never empty. */
  loginMethods: ImportLoginMethod[];
}
