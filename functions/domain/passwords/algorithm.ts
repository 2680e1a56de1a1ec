/** The `hashingAlgorithm` values an imported password hash may declare (core-api-spec §4.2, §6). */
export type HashingAlgorithm = 'BCRYPT' | 'ARGON2' | 'FIREBASE_SCRYPT';

export const HASHING_ALGORITHMS: readonly HashingAlgorithm[] = ['BCRYPT', 'ARGON2', 'FIREBASE_SCRYPT'];

/**
 * Maps a user-supplied algorithm name to the enum the way the reference does: surrounding
 * whitespace is ignored and the comparison is case-insensitive (`' Argon2 '` → `ARGON2`).
 * Returns undefined for anything else, including the empty string.
 */
export function normaliseHashingAlgorithm(raw: string): HashingAlgorithm | undefined {
  const candidate = raw.trim().toUpperCase();
  return (HASHING_ALGORITHMS as readonly string[]).includes(candidate) ? (candidate as HashingAlgorithm) : undefined;
}
