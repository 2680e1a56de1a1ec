/** Wiring of the users use cases (sign-in/up, users, mappings) for the app of a request. */
import { randomUUID } from 'node:crypto';
import type { EffectiveConfig } from '#functions/config/index.js';
import {
  dummyVerifyPassword,
  type HashPasswordParams,
  hashPassword,
  verifyPassword,
} from '#functions/domain/passwords/index.js';
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

/** Hashing with the app's algorithm and costs; verification infers the algorithm from the hash. */
export function passwordPorts(config: EffectiveConfig): PasswordPorts {
  const params: HashPasswordParams = {
    algorithm: config.passwordHashingAlg,
    bcryptLogRounds: config.bcryptLogRounds,
    argon2: config.argon2,
  };
  return {
    hash: (plain) => hashPassword(plain, params),
    verify: async (plain, stored) => {
      const result = await verifyPassword(plain, stored, { firebaseSignerKey: config.firebaseSignerKey });
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
      await dummyVerifyPassword(plain, params);
    },
  };
}
