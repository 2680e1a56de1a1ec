/** Wiring of the users use cases (sign-in/up, users, mappings) for the app of a request. */
import { randomUUID } from 'node:crypto';
import type { EffectiveConfig } from '#functions/config/index.js';
import { hashPassword, needsRehash, verifyPassword } from '#functions/domain/passwords/index.js';
import type { PasswordPorts, UsersDeps } from '#functions/domain/users/service.js';
import { logger } from '#functions/shared/logger.js';
import { appStores } from './stores.js';

export function usersDeps(config: EffectiveConfig): UsersDeps {
  return {
    store: appStores(config).users,
    now: Date.now,
    newId: randomUUID,
    warn: (message, fields) => logger.warn(message, fields),
  };
}

/** The app's `legacy_password_hash_upgrade_enabled` (default on). */
export const LEGACY_HASH_UPGRADE_KEY = 'legacy_password_hash_upgrade_enabled';

/**
 * Hashing with the app's algorithm and costs; verification infers the algorithm from the hash; a
 * legacy hash is upgraded after a successful sign-in unless the app turned that off.
 */
export function passwordPorts(config: EffectiveConfig): PasswordPorts {
  const upgrade = config.values[LEGACY_HASH_UPGRADE_KEY] !== false;
  return {
    needsUpgrade: (stored) => upgrade && needsRehash(stored),
    hash: (plain) =>
      hashPassword(plain, {
        algorithm: config.passwordHashingAlg,
        bcryptLogRounds: config.bcryptLogRounds,
        argon2: config.argon2,
      }),
    verify: async (plain, stored) => {
      const result = await verifyPassword(plain, stored, { firebaseSignerKey: config.firebaseSignerKey });
      if (result.ok) return 'match';
      return result.reason === 'WRONG_PASSWORD' ? 'mismatch' : 'unverifiable';
    },
  };
}
