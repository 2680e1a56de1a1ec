import type { Argon2Params } from './argon2.js';
import { hashArgon2id } from './argon2-kdf.js';
import { hashBcrypt } from './bcrypt-kdf.js';

/** How plain-text passwords are hashed: the app's `password_hashing_alg` and its cost settings. */
export interface HashPasswordParams {
  readonly algorithm: 'BCRYPT' | 'ARGON2';
  /** `bcrypt_log_rounds` (reference default 11). */
  readonly bcryptLogRounds: number;
  /** `argon2_iterations` (1), `argon2_memory_kb` (87795), `argon2_parallelism` (2). */
  readonly argon2: Argon2Params;
}

/**
 * Hashes a plain-text password the way the reference core stores it: BCRYPT → `$2a$<rounds>$…`,
 * ARGON2 → `$argon2id$v=19$m=…,t=…,p=…$<salt>$<hash>` (16-byte salt, 32-byte hash).
 * Throws PasswordHashingError (without password or hash in the message) on invalid parameters.
 */
export function hashPassword(plain: string, params: HashPasswordParams): Promise<string> {
  return params.algorithm === 'ARGON2' ? hashArgon2id(plain, params.argon2) : hashBcrypt(plain, params.bcryptLogRounds);
}
