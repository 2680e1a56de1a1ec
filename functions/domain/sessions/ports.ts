/**
 * The ports of the sessions use cases (docs/sessions.md): the session store and the signing-key
 * store, implemented under functions/storage/.
 */
import type { JsonObject, NewSigningKey, SessionRecord, StoredSigningKey } from './model.js';

export interface SessionStore {
  /** Writes a new session (its handle is fresh: never overwrites). */
  create(appId: string, session: SessionRecord): Promise<void>;
  /**
   * The session by handle (consistent read) as stored, expired or not (until DynamoDB's TTL removes
   * it); undefined when absent. The use cases read it through `liveSession` (live-session.ts).
   */
  get(appId: string, handle: string): Promise<SessionRecord | undefined>;
  /**
   * Moves the session to a new current refresh token, only if its current one is still
   * `expectedHash2` (optimistic: two concurrent rotations never both apply). False otherwise.
   */
  rotate(
    appId: string,
    handle: string,
    expectedHash2: string,
    next: { refreshTokenHash2: string; expiresAt: number; useStaticKey: boolean },
  ): Promise<boolean>;
  /** Replaces session data and/or the access-token payload of a stored session; false when it does not exist. */
  update(
    appId: string,
    handle: string,
    changes: { userDataInDatabase?: JsonObject; userDataInJWT?: JsonObject },
  ): Promise<boolean>;
  /** Deletes these sessions; answers the handles that existed (in the order given). */
  remove(appId: string, handles: readonly string[]): Promise<string[]>;
  /** Handles of the live sessions (`isLive`, model.ts) of a user id (as stored: external where mapped), in one tenant or all. */
  handlesOfUser(appId: string, userId: string, tenantId: string | undefined): Promise<string[]>;
}

export interface SigningKeyStore {
  /** Every key of the app (a few items: one query). */
  list(appId: string): Promise<StoredSigningKey[]>;
  /**
   * Seals the key's private part and writes it unless its slot is taken (a dynamic key of the
   * same generation, the static key, the refresh-token key): false when another writer was first.
   */
  add(appId: string, key: NewSigningKey): Promise<boolean>;
  /** The private part in clear (PKCS#8 DER, or the refresh-token key's bytes). */
  open(appId: string, key: StoredSigningKey): Promise<Uint8Array>;
}
