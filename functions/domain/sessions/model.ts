/**
 * Sessions and signing keys as the domain sees them (docs/sessions.md). Only hashes of refresh
 * tokens are kept; private key material appears here only as the store hands it back opened.
 */

import type { JsonObject } from '#functions/contract/json.js';

/** A JSON object as the SDK sends it (access-token payload, session data). */
export type { JsonObject };

/** One session: what the core keeps between a sign-in and its end (refresh-token expiry or revocation). */
export interface SessionRecord {
  readonly handle: string;
  readonly tenantId: string;
  /** The primary user id (its external id where one is mapped): the access token's `sub`. */
  readonly userId: string;
  /** The recipe user id the session was created for (external id where mapped): `rsub`. */
  readonly recipeUserId: string;
  /** SHA-256 (hex) of SHA-256 (hex) of the current refresh token; never the token itself. */
  readonly refreshTokenHash2: string;
  readonly userDataInJWT: JsonObject;
  readonly userDataInDatabase: JsonObject;
  /** Epoch ms when the session ends unless refreshed: the current refresh token's expiry. */
  readonly expiresAt: number;
  readonly createdAt: number;
  /** Access tokens of this session are signed with the static key. */
  readonly useStaticKey: boolean;
}

/**
 * Whether a session (or its list entry) that ends at `expiresAt` still lives at `now`: it does up to
 * and including its last millisecond. An expired session is absent wherever a session is read,
 * though its item stays until DynamoDB's TTL removes it.
 */
export const isLive = (expiresAt: number, now: number): boolean => expiresAt >= now;

/** `d-…` dynamic (rotating) RS256 keys, the `s-…` static RS256 key, the refresh-token key. */
export type SigningKeyKind = 'dynamic' | 'static' | 'refresh';

/** An RSA public key as a JWK (RFC 7517): what the JWKS shows. */
export interface PublicJwk {
  readonly kty: 'RSA';
  readonly n: string;
  readonly e: string;
}

/** A key as stored: public part in clear, private part sealed (opened only by the routes that sign). */
export interface StoredSigningKey {
  readonly kid: string;
  readonly kind: SigningKeyKind;
  /** Dynamic keys: 1, 2, … — one per rotation; the store refuses a second key of a generation. */
  readonly generation: number;
  readonly createdAt: number;
  /** Absent for the refresh-token key (symmetric). */
  readonly publicJwk?: PublicJwk;
  /** The private part as the store keeps it (sealed); only `SigningKeyStore.open` reads it. */
  readonly sealed: Uint8Array;
}

/** A new key, with its private part in clear, for the store to seal and write once. */
export interface NewSigningKey {
  readonly kid: string;
  readonly kind: SigningKeyKind;
  readonly generation: number;
  readonly createdAt: number;
  readonly publicJwk?: PublicJwk;
  /** PKCS#8 DER of an RSA private key, or the 32 bytes of the refresh-token key. */
  readonly secret: Uint8Array;
  /** Epoch ms after which no token it signed can still be valid: the store lets the item expire then. */
  readonly expiresAt?: number;
}
