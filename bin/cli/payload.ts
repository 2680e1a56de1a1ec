/**
 * The core's import payload (README "The import payload", core-api-spec §4.2) as the command
 * builds it. Converters create these objects with a fixed key order, so the JSON of a chunk is
 * byte-identical from one run to the next (the Idempotency-Key replay needs that).
 */

import type { HashingAlgorithm } from '#functions/domain/passwords/algorithm.js';

export type RecipeId = 'emailpassword' | 'thirdparty' | 'passwordless';

/** The `hashingAlgorithm` values the core accepts (README "Password hashes"). */
export type { HashingAlgorithm };

export interface LoginMethod {
  recipeId: RecipeId;
  tenantIds?: string[];
  isVerified?: boolean;
  isPrimary?: boolean;
  timeJoinedInMSSinceEpoch?: number;
  email?: string;
  passwordHash?: string;
  hashingAlgorithm?: HashingAlgorithm;
  plainTextPassword?: string;
  thirdPartyId?: string;
  thirdPartyUserId?: string;
  phoneNumber?: string;
}

export interface TotpDevice {
  secretKey: string;
  period?: number;
  skew?: number;
  deviceName?: string;
}

export interface UserRole {
  role: string;
  tenantIds: string[];
}

export interface ImportUser {
  externalUserId?: string;
  userMetadata?: Record<string, unknown>;
  userRoles?: UserRole[];
  totpDevices?: TotpDevice[];
  loginMethods: LoginMethod[];
}

/** What a converter makes of one source record. */
export type Conversion =
  | {
      readonly ok: true;
      readonly user: ImportUser;
      /** The record's id in the source (also the external user id for provider exports). */
      readonly sourceId: string | undefined;
      /**
       * Second factors of the user that cannot be carried (one message each, never a secret): the user
       * goes in without them, and the report says so.
       */
      readonly factorsLeftBehind: readonly string[];
    }
  | { readonly ok: false; readonly sourceId: string | undefined; readonly reasons: string[] };

export function converted(
  user: ImportUser,
  sourceId: string | undefined,
  factorsLeftBehind: readonly string[] = [],
): Conversion {
  return { ok: true, user, sourceId, factorsLeftBehind };
}

export function rejected(sourceId: string | undefined, ...reasons: string[]): Conversion {
  return { ok: false, sourceId, reasons };
}
