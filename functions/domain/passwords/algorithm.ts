/**
 * The `hashingAlgorithm` values an imported password hash may declare: the reference's three and
 * this core's legacy families, as the import payload names them (functions/contract/import-payload.ts).
 */
import { HASHING_ALGORITHMS, type HashingAlgorithm } from '#functions/contract/import-payload.js';

export { HASHING_ALGORITHMS, type HashingAlgorithm };

/**
 * Maps a user-supplied algorithm name to the enum the way the reference does: surrounding
 * whitespace is ignored and the comparison is case-insensitive (`' Argon2 '` → `ARGON2`,
 * `'pbkdf2'` → `PBKDF2`). Returns undefined for anything else, including the empty string.
 */
export function normaliseHashingAlgorithm(raw: string): HashingAlgorithm | undefined {
  const candidate = raw.trim().toUpperCase();
  return (HASHING_ALGORITHMS as readonly string[]).includes(candidate) ? (candidate as HashingAlgorithm) : undefined;
}
