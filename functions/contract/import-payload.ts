/**
 * The import payload as it travels on the wire (docs/import-payload.md): one user of
 * `POST /bulk-import/users` (`{"users":[…]}`, also with `?dryRun=true`) and of
 * `POST /bulk-import/import`, as `npx auth-core migrate` builds it and the core reads it. The core
 * validates a user into its normalised form (functions/domain/import/types.ts), with the
 * normalisers of this folder; the names and enumerations here are the ones it accepts.
 */

/** Recipes a login method can belong to; matched exactly (case-sensitive). */
export const IMPORT_RECIPE_IDS = ['emailpassword', 'thirdparty', 'passwordless'] as const;
export type ImportRecipeId = (typeof IMPORT_RECIPE_IDS)[number];

/**
 * The `hashingAlgorithm` values an imported password hash may declare (docs/password-hashes.md):
 * the reference's three and this core's legacy families. The core also accepts them in any case and
 * surrounded by whitespace; the command sends them as written here.
 */
export const HASHING_ALGORITHMS = [
  'BCRYPT',
  'ARGON2',
  'FIREBASE_SCRYPT',
  'PBKDF2',
  'SCRYPT',
  'PHPASS',
  'MD5',
  'SHA1',
  'SHA256',
  'SHA512',
  'LDAP',
] as const;
export type HashingAlgorithm = (typeof HASHING_ALGORITHMS)[number];

/** Users one staging request may carry (`You can only add 10000 users at a time.` above it). */
export const MAX_USERS_PER_STAGING_REQUEST = 10_000;

export interface WireLoginMethod {
  recipeId: ImportRecipeId;
  /** Default `["public"]` (PUBLIC_TENANT_ID in tenants.ts). */
  tenantIds?: string[];
  isVerified?: boolean;
  isPrimary?: boolean;
  timeJoinedInMSSinceEpoch?: number;
  /** Stored as normaliseEmail (emails.ts) makes it. */
  email?: string;
  passwordHash?: string;
  hashingAlgorithm?: HashingAlgorithm;
  plainTextPassword?: string;
  /** `"hook"`: no hash; the password is checked by the app's password-migration hook at first sign-in. */
  passwordMigration?: 'hook';
  thirdPartyId?: string;
  thirdPartyUserId?: string;
  /** Stored as normalisePhoneNumber (phone-numbers.ts) makes it. */
  phoneNumber?: string;
}

export interface WireTotpDevice {
  secretKey: string;
  period?: number;
  skew?: number;
  deviceName?: string;
}

export interface WireUserRole {
  role: string;
  tenantIds: string[];
}

/** One user of the import payload, as sent. */
export interface WireImportUser {
  externalUserId?: string;
  userMetadata?: Record<string, unknown>;
  userRoles?: WireUserRole[];
  totpDevices?: WireTotpDevice[];
  loginMethods: WireLoginMethod[];
}
