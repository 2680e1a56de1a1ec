/**
 * Password hashing and verification (docs/reference-behaviour.md "Password hash formats"; docs/password-hashes.md): import checks of legacy hashes and their
 * canonical stored forms (schemes.ts), bounded costs (limits.ts), hashing of plain-text
 * passwords, and sign-in verification of every stored form.
 */
export { HASHING_ALGORITHMS, type HashingAlgorithm, normaliseHashingAlgorithm } from './algorithm.js';
export { type Argon2Params, checkArgon2Params } from './argon2.js';
export { BCRYPT_MAX_LOG_ROUNDS, BCRYPT_MIN_LOG_ROUNDS } from './bcrypt.js';
export { belowConfiguredCost, costsLikeHashing } from './cost.js';
export { PasswordHashingError } from './errors.js';
export { type FirebaseScryptHash, parseFirebaseScryptHash } from './firebase-scrypt.js';
export {
  checkHashFormat,
  checkUndeclaredHash,
  detectHashingAlgorithm,
  HASH_FORMAT_ERRORS,
  type ImportedHash,
  normaliseImportedHash,
} from './format.js';
export { type HashPasswordParams, hashPassword } from './hash.js';
export { HASH_LIMITS } from './limits.js';
export { MAX_KDF_MEMORY_BYTES, type VerifyFailureReason, type VerifyResult } from './result.js';
export { dummyVerifyPassword, needsRehash, type VerifyPasswordOptions, verifyPassword } from './verify.js';
