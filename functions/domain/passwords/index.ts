/**
 * Password hashing and verification (core-api-spec §6): format checks for imported hashes,
 * hashing of plain-text passwords, and sign-in verification of BCrypt, Argon2 and Firebase
 * scrypt hashes.
 */
export { HASHING_ALGORITHMS, type HashingAlgorithm, normaliseHashingAlgorithm } from './algorithm.js';
export type { Argon2Params } from './argon2.js';
export { BCRYPT_MAX_LOG_ROUNDS, BCRYPT_MIN_LOG_ROUNDS } from './bcrypt.js';
export { PasswordHashingError } from './errors.js';
export {
  checkHashFormat,
  detectHashingAlgorithm,
  type FirebaseScryptHash,
  HASH_FORMAT_ERRORS,
  parseFirebaseScryptHash,
} from './format.js';
export { type HashPasswordParams, hashPassword } from './hash.js';
export { MAX_KDF_MEMORY_BYTES, type VerifyFailureReason, type VerifyResult } from './result.js';
export { type VerifyPasswordOptions, verifyPassword } from './verify.js';
