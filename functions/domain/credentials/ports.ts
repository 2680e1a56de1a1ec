/**
 * Credentials at rest (docs/security.md "Credentials at rest"): staged credentials and app secrets are sealed with AES-256-GCM
 * under a data key that table readers do not have. The data key comes from a key provider — the
 * stack's credentials KMS key on AWS, a key file locally — which hands out a fresh data key with
 * its wrapped (encrypted) form, and later unwraps that form again, for the same context only.
 */

/**
 * What a data key is bound to: the KMS encryption context on AWS, the associated data of the local
 * key's wrapping. A wrapped key given another context does not unwrap. Always names the app.
 */
export interface KeyContext {
  /**
   * What the key seals: `staged-credentials` (bulk-import rows), `app-secret` (coreConfig values,
   * third-party provider secrets), `totp-secret` (imported TOTP devices' secrets) or `signing-key`
   * (the private parts of an app's token signing keys, docs/sessions.md).
   */
  readonly purpose: 'staged-credentials' | 'app-secret' | 'totp-secret' | 'signing-key';
  readonly appId: string;
}

export interface DataKeyProvider {
  /**
   * A fresh 256-bit data key and its wrapped form (safe to store beside what it seals). Throws a
   * KeyServiceUnavailableError when the key service does not answer for now, a
   * {@link KeyServiceRefusedError} when it refuses the credentials key for good.
   */
  generateDataKey(context: KeyContext): Promise<{ readonly plaintext: Uint8Array; readonly wrapped: Uint8Array }>;
  /**
   * The data key of a wrapped form made for the same context. Throws {@link UnreadableSecretError}
   * when it can never be unwrapped (another key, altered bytes, another context, a key the service
   * refuses to use), a KeyServiceUnavailableError (functions/shared/errors.ts) when the key service
   * does not answer for now (throttling, an outage, an unreadable key file) — worth retrying later.
   */
  unwrapDataKey(wrapped: Uint8Array, context: KeyContext): Promise<Uint8Array>;
}

/**
 * Why a sealed value can never be opened:
 * - `other-key`: it was sealed under a key this core does not have (a replaced or lost local key
 *   file, another provider);
 * - `altered`: its bytes, its data key or its binding (app, row) are not the ones it was sealed
 *   with — tampered with, or moved to another row or app;
 * - `key-missing`: the item holding its wrapped data key is gone;
 * - `key-refused`: the key service refuses to unwrap it with the credentials key — the key is
 *   disabled, scheduled for deletion or deleted, or this function may not use it (KMS answers that
 *   are not outages: see functions/storage/crypto/kms-keys.ts).
 */
export type UnreadableReason = 'other-key' | 'altered' | 'key-missing' | 'key-refused';

/** A sealed value that will never open (not worth a retry); the message names no secret. */
export class UnreadableSecretError extends Error {
  constructor(
    readonly reason: UnreadableReason,
    message: string,
  ) {
    super(message);
    this.name = 'UnreadableSecretError';
  }
}

/**
 * The key service refuses to make data keys with the credentials key — it is disabled, scheduled
 * for deletion or deleted, or this function may not use it — so sealing cannot succeed until an
 * operator acts: a 500 from a route (logged with the service's error name), and the import of a
 * staged user that needs sealing fails. The message names the service's error, never a key.
 */
export class KeyServiceRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyServiceRefusedError';
  }
}
