/**
 * Password-reset and email-verification tokens: their form and the hash they are kept as.
 *
 * The reference core's tokens are the Base64 text of the hex text of 48 random bytes: 128
 * characters of `[A-Za-z0-9]` (Base64 of hex digits never yields `+`, `/` or `=`), URL-safe as
 * they are, carrying 384 random bits. Tokens here have that same form. Only their SHA-256 is
 * stored.
 */
import { createHash, randomBytes } from 'node:crypto';

/**
 * Length of every token (the reference's).
 * @internal Exported for test/unit/account-tokens.test.ts, which checks every token has the reference's length.
 */
export const TOKEN_LENGTH = 128;

/** A fresh token: Base64 of the hex of 48 bytes from the system's CSPRNG. */
export function newOneTimeToken(): string {
  return Buffer.from(randomBytes(48).toString('hex'), 'utf8').toString('base64');
}

/** What is stored of a token: its SHA-256, hex. */
export function hashOneTimeToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
