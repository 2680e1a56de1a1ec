/**
 * The longest ids this core accepts, in characters (UTF-16 code units, as `String.length` counts
 * them; each is at most 3 bytes of UTF-8). Every one of them becomes part of a DynamoDB key, and
 * DynamoDB refuses a partition key over 2,048 bytes and a sort key over 1,024 bytes: with every
 * id at its limit the longest key the core builds stays well inside both (the table of keys and
 * their worst-case sizes is in docs/security.md "Hostile input", and a unit test builds each
 * key at the limits). An id over its limit is refused with a 400 where it enters — path, query or
 * body — before anything is read or written.
 *
 * Where the reference core has a limit (its SQL columns), the limit is the reference's.
 */
import { BadRequestError } from './errors.js';

export const ID_LIMITS = {
  /** `[a-z0-9-]`; the reference's `app_id VARCHAR(64)`. */
  appId: 64,
  /** `[a-z0-9-]`; the reference's `tenant_id VARCHAR(64)`. */
  tenantId: 64,
  /** A SuperTokens user id or recipe user id, and any user id metadata, roles and TOTP devices are kept for. */
  userId: 128,
  externalUserId: 128,
  role: 255,
  /** The reference's import check (`email … is too long. Max length is 256.` fires above 255). */
  email: 255,
  phoneNumber: 256,
  thirdPartyId: 28,
  thirdPartyUserId: 256,
  totpDeviceName: 256,
  /** An OAuth2 client's id; the reference's provider keeps it in a `VARCHAR(255)`. */
  oauthClientId: 255,
  /** A staged user's id (this core generates UUIDs; pagination tokens carry them). */
  stagedId: 64,
  /** Not a key: kept in the user's item, and limited so that item stays far below 400 KB. */
  externalUserIdInfo: 1024,
} as const;

export type IdKind = keyof typeof ID_LIMITS;

/** `Field name '<field>' is too long. Max length is <max>.` (the reference's wording for roles and user ids). */
function tooLongMessage(field: string, max: number): string {
  return `Field name '${field}' is too long. Max length is ${max}.`;
}

/** Whether a value fits the limit of its kind. */
function fitsIdLimit(kind: IdKind, value: string): boolean {
  return value.length <= ID_LIMITS[kind];
}

/** 400 `Field name '<field>' is too long. Max length is <max>.` when the value is over its kind's limit. */
export function checkIdLength(kind: IdKind, value: string, field: string = kind): void {
  if (!fitsIdLimit(kind, value)) throw new BadRequestError(tooLongMessage(field, ID_LIMITS[kind]));
}
