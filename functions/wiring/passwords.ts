/**
 * Wiring of password hashing and verification for the users use cases (sign-in, sign-up): the
 * app's algorithm and costs, and its sealed Firebase signer key, opened only to verify a Firebase
 * hash. Only the routes that hash or verify a password import it (and carry the hashing libraries).
 */
import type { EffectiveConfig } from '#functions/config/index.js';
import { UnreadableSecretError } from '#functions/domain/credentials/ports.js';
import {
  belowConfiguredCost,
  costsLikeHashing,
  dummyVerifyPassword,
  type HashPasswordParams,
  hashPassword,
  needsRehash,
  verifyPassword,
} from '#functions/domain/passwords/index.js';
import { RecentDurations } from '#functions/domain/passwords/timing.js';
import type { PasswordPorts } from '#functions/domain/users/deps.js';
import { logger } from '#functions/shared/logger.js';
import { openSignerKey } from '#functions/storage/tenant-credentials.js';
import { credentialsEnvelope } from './credentials.js';

const FIREBASE_HASH_PREFIX = '$f_scrypt$';

/**
 * The app's Firebase signer key in clear, opened only to verify a Firebase hash (its stored form
 * is sealed, functions/config/credential-values.ts). One that can never be opened verifies nothing: the
 * sign-in answers as for an app without a signer key.
 */
async function signerKeyOf(config: EffectiveConfig): Promise<string | undefined> {
  if (!config.firebaseSignerKey) return undefined;
  try {
    return await openSignerKey(config.firebaseSignerKey, credentialsEnvelope);
  } catch (error) {
    if (!(error instanceof UnreadableSecretError)) throw error;
    logger.warn('the app firebase signer key cannot be decrypted; set it again', {
      appId: config.firebaseSignerKey.appId,
      reason: error.reason,
    });
    return undefined;
  }
}

/**
 * The app's `legacy_password_hash_upgrade_enabled` (default on). It also covers bcrypt and Argon2
 * hashes below the app's cost: one switch for "sign-in may rewrite an imported hash" (kept under
 * its first name so configurations that set it keep meaning what they meant).
 */
const LEGACY_HASH_UPGRADE_KEY = 'legacy_password_hash_upgrade_enabled';

/**
 * The measured durations of the dummy verify in this execution environment, per hashing setting
 * (one sign-in function serves every app; each app's failures are held to its own setting's
 * dummy). Fed by every dummy verify and by every verify that costs the same (a hash of the app's
 * algorithm at its settings: most successful sign-ins), so the floor follows the load the
 * function is under.
 */
const dummyDurations = new Map<string, RecentDurations>();

function durationsOf(params: HashPasswordParams): RecentDurations {
  const key =
    params.algorithm === 'BCRYPT'
      ? `BCRYPT:${params.bcryptLogRounds}`
      : `ARGON2:${params.argon2.memoryKb}:${params.argon2.iterations}:${params.argon2.parallelism}`;
  let durations = dummyDurations.get(key);
  if (!durations) {
    durations = new RecentDurations();
    dummyDurations.set(key, durations);
  }
  return durations;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Hashing with the app's algorithm and costs; verification infers the algorithm from the hash; a
 * legacy hash, and a bcrypt or Argon2 hash below the app's configured cost, is upgraded after a
 * successful sign-in unless the app turned that off.
 */
export function passwordPorts(config: EffectiveConfig): PasswordPorts {
  const upgrade = config.values[LEGACY_HASH_UPGRADE_KEY] !== false;
  const params: HashPasswordParams = {
    algorithm: config.passwordHashingAlg,
    bcryptLogRounds: config.bcryptLogRounds,
    argon2: config.argon2,
  };
  const durations = durationsOf(params);
  return {
    needsUpgrade: (stored) => upgrade && (needsRehash(stored) || belowConfiguredCost(stored, params)),
    hash: (plain) => hashPassword(plain, params),
    verify: async (plain, stored) => {
      const firebaseSignerKey = stored.startsWith(FIREBASE_HASH_PREFIX) ? await signerKeyOf(config) : undefined;
      const started = performance.now();
      const result = await verifyPassword(plain, stored, { firebaseSignerKey });
      if (costsLikeHashing(stored, params)) durations.add(performance.now() - started);
      if (result.ok) return 'match';
      switch (result.reason) {
        case 'WRONG_PASSWORD':
          return 'mismatch';
        case 'HASH_COST_ABOVE_LIMIT':
          return 'over-limit';
        default:
          return 'unverifiable';
      }
    },
    dummyVerify: async (plain) => {
      const started = performance.now();
      await dummyVerifyPassword(plain, params);
      durations.add(performance.now() - started);
    },
    timing: { now: () => performance.now(), sleep, floorMs: () => durations.median() },
  };
}
