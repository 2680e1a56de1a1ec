/**
 * How the core shows a credential it holds (an API key, the Firebase signer key, a provider's client
 * secret) where a response must not carry it, and how a client that holds the value recognises it:
 * `sha256:` and the first 16 lowercase hex digits of the SHA-256 of its UTF-8 bytes
 * (docs/security.md "Credentials at rest").
 */
import { createHash } from 'node:crypto';

/** The fingerprint of a credential whose SHA-256 is known (hex), e.g. from its stored digest. */
export function fingerprintOfDigest(sha256Hex: string): string {
  return `sha256:${sha256Hex.slice(0, 16)}`;
}

/** The fingerprint of a credential value. */
export function credentialFingerprint(value: string): string {
  return fingerprintOfDigest(createHash('sha256').update(value, 'utf8').digest('hex'));
}
