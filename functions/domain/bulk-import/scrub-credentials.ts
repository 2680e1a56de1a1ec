/**
 * Credentials of a staged user and their removal from free text: error messages stored on a
 * staged row or written to a log never carry a password, a hash or a TOTP secret (docs/import-pipeline.md,
 * invariant 5), whatever error text a dependency produced.
 */
import type { ImportUser } from '../import/types.js';

/**
 * What stands for a credential in any message that quotes input (a deliberate difference from the
 * reference, which echoes them): the values of `plainTextPassword`, `passwordHash` and TOTP
 * `secretKey`.
 */
export const SECRET_MARKER = '<redacted>';

/** Every credential string the user carries (plain-text passwords, hashes, TOTP secrets). */
function userSecrets(user: ImportUser | undefined): string[] {
  if (!user) return [];
  const out: string[] = [];
  for (const lm of user.loginMethods ?? []) {
    if (lm.recipeId !== 'emailpassword') continue;
    if (lm.plainTextPassword) out.push(lm.plainTextPassword);
    if (lm.passwordHash) out.push(lm.passwordHash);
  }
  for (const d of user.totpDevices ?? []) if (d.secretKey) out.push(d.secretKey);
  // Longest first, so a secret that contains another is removed whole.
  return out.filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
}

/** `text` with every credential of `user` replaced by a fixed marker. */
export function scrubSecrets(text: string, user: ImportUser | undefined): string {
  let out = text;
  for (const secret of userSecrets(user)) out = out.split(secret).join(SECRET_MARKER);
  return out;
}

/** A short, credential-free description of an unexpected error (kept as a row's `lastError`). */
export function describeError(error: unknown, user: ImportUser | undefined): string {
  const text =
    error instanceof Error ? `${error.name}: ${error.message}` : typeof error === 'string' ? error : 'unknown error';
  return scrubSecrets(text, user).slice(0, 500);
}
