/**
 * Upper bounds on the work a stored hash may ask for (a deliberate difference from the reference
 * core, which has none): every accepted hash verifies in about a second of one core or less, so
 * neither a careless import nor a hostile one can stall sign-in. They start from Ory Kratos's
 * published bounds and are tightened where a verify at Kratos's bound took longer than that;
 * `npm run bench -- --only=7` measures a verify at each bound (the table is in docs/password-hashes.md).
 *
 * A hash beyond a bound is refused at import with a message naming the parameter and its limit;
 * one stored before the bounds existed is never computed at sign-in (the verify reports
 * `HASH_COST_ABOVE_LIMIT`). They live in shared/ (the password module re-exports them) because
 * the configuration keeps the app's own hashing settings inside them too: the core never writes a
 * hash it would refuse to verify.
 */
export const HASH_LIMITS = {
  /** bcrypt cost (log2 rounds); Kratos 15. Cost 14 ≈ 0.9 s here, 15 twice that. */
  bcrypt: { minCost: 4, maxCost: 14 },
  /**
   * Argon2 (Kratos: memory ≤ 1 GiB, iterations ≤ 10, parallelism ≤ 16). Time grows with memory ×
   * iterations (hash-wasm computes the lanes one after another), so that product is bounded at
   * 256 MiB × passes: 512 MiB × 1 pass took ≈ 1.5 s of CPU here, 1 GiB twice that.
   */
  argon2: { maxIterations: 10, maxParallelism: 16, maxMemoryTimesIterationsKiB: 256 * 1024 },
  /**
   * scrypt (Kratos: N ≤ 2^17, r ≤ 8, p ≤ 10). Time grows with N × r × p; N = 2^17, r = 8, p = 1
   * (128 MiB) ≈ 0.3 s here, so the product is bounded at 2^21. p may go to 16 (the published
   * test vectors use 16) since the product bounds its cost anyway.
   */
  scrypt: { maxLogN: 17, maxR: 8, maxP: 16, maxNrp: 2 ** 21 },
  /** Firebase's modified scrypt (p = 1): mem_cost ≤ 17 as Kratos, rounds (r) ≤ 8 as Firebase's own range. */
  firebaseScrypt: { maxMemCost: 17, maxRounds: 8 },
  /**
   * PBKDF2 (Kratos: 10,000,000 iterations). Each block of output costs the iterations again, so
   * iterations × ⌈key length ÷ digest length⌉ is bounded: 1,500,000 for SHA-1 and SHA-2
   * (2,000,000 HMAC-SHA-512 took ≈ 1.1 s of CPU here), 1,000,000 for the slower SHA-3 digests of
   * Kratos's `sha224`/`sha384`.
   */
  pbkdf2: { maxIterationBlocks: 1_500_000, maxIterationBlocksSha3: 1_000_000 },
  /**
   * phpass `$P$`/`$H$` (MD5) and Drupal 7 `$S$` (SHA-512) iteration counts, as log2 (the formats
   * allow 7…30). Each iteration hashes the password again, and phpass accepts passwords up to
   * 4096 bytes, Drupal up to 512: the bounds keep a verify with the longest accepted password
   * near a second.
   */
  phpass: { minLog2: 7, maxLog2: 17, maxPasswordBytes: 4096 },
  drupal: { minLog2: 7, maxLog2: 18, maxPasswordBytes: 512 },
} as const;
