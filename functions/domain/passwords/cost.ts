import { argon2Form } from './argon2.js';
import { parseBcrypt } from './bcrypt.js';
import type { HashPasswordParams } from './hash.js';

/**
 * A stored hash's cost against the app's own hashing settings (`password_hashing_alg`,
 * `bcrypt_log_rounds`, `argon2_*`): what decides whether sign-in upgrades a bcrypt or Argon2 hash,
 * and which verifies cost what the dummy verify of an unknown email costs.
 */

/**
 * Whether a stored bcrypt or Argon2 hash costs less than the app's configured setting of its own
 * family — bcrypt: a cost below `bcrypt_log_rounds`; Argon2: memory × iterations below
 * `argon2_memory_kb` × `argon2_iterations` (the work Argon2 asks of an attacker grows with that
 * product; parallelism splits it without reducing it). Such a hash is replaced after a successful
 * sign-in when the app's upgrade switch is on. False for every other family (Firebase scrypt is
 * kept as imported; the legacy families are upgraded anyway) and for anything not a complete hash.
 */
export function belowConfiguredCost(stored: string, params: HashPasswordParams): boolean {
  const bcrypt = parseBcrypt(stored);
  if (bcrypt) return bcrypt.cost < params.bcryptLogRounds;
  const argon2 = argon2Form.claims(stored) ? argon2Form.read(stored) : undefined;
  if (!argon2 || argon2.problem) return false;
  const { memoryKb, iterations } = argon2.parsed;
  return memoryKb * iterations < params.argon2.memoryKb * params.argon2.iterations;
}

/**
 * Whether verifying `stored` does the work hashing with `params` does (and so the dummy verify of
 * an unknown email): the app's algorithm with exactly its settings — bcrypt at
 * `bcrypt_log_rounds`, or argon2id with the `argon2_*` memory, iterations and parallelism.
 */
export function costsLikeHashing(stored: string, params: HashPasswordParams): boolean {
  if (params.algorithm === 'BCRYPT') return parseBcrypt(stored)?.cost === params.bcryptLogRounds;
  const argon2 = argon2Form.claims(stored) ? argon2Form.read(stored) : undefined;
  if (!argon2 || argon2.problem) return false;
  const { type, memoryKb, iterations, parallelism } = argon2.parsed;
  return (
    type === 'id' &&
    memoryKb === params.argon2.memoryKb &&
    iterations === params.argon2.iterations &&
    parallelism === params.argon2.parallelism
  );
}
