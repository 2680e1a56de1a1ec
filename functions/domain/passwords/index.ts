/**
 * Password hashing and verification (docs/reference-behaviour.md "Password hash formats"; docs/password-hashes.md): import checks of legacy hashes and their
 * canonical stored forms (schemes.ts), bounded costs (limits.ts), hashing of plain-text
 * passwords, and sign-in verification of every stored form.
 */
export type { HashingAlgorithm } from './algorithm.js';

export { belowConfiguredCost, costsLikeHashing } from './cost.js';

export { normaliseImportedHash } from './format.js';
export { type HashPasswordParams, hashPassword } from './hash.js';
export { HASH_LIMITS } from './limits.js';
export { dummyVerifyPassword, needsRehash, verifyPassword } from './verify.js';
