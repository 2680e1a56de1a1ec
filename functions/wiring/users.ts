/**
 * Wiring of the users use cases (sign-in/up, users, mappings) for the app of a request: the app's
 * user store. Password hashing and verification are wired apart (passwords.ts), so the routes
 * that never see a password do not carry the hashing libraries.
 */
import { randomUUID } from 'node:crypto';
import type { EffectiveConfig } from '#functions/config/index.js';
import type { UsersDeps } from '#functions/domain/users/deps.js';
import { logger } from '#functions/shared/logger.js';
import { userStoreOf } from './stores.js';
import { appTable } from './tables.js';

export function usersDeps(config: EffectiveConfig): UsersDeps {
  return {
    store: userStoreOf(appTable(config)),
    now: Date.now,
    newId: randomUUID,
    warn: (message, fields) => logger.warn(message, fields),
  };
}
