/**
 * Wiring of the passwordless use cases for the app and tenant of a request: the app's store of
 * devices and codes, the tenant's code settings, the clock and the system's secure randomness.
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { EffectiveConfig } from '#functions/config/index.js';
import type { PasswordlessDeps } from '#functions/domain/passwordless/deps.js';
import type { PasswordlessSettings } from '#functions/domain/passwordless/model.js';
import type { UserRemovalDeps } from '#functions/domain/passwordless/user-removal.js';
import { passwordlessStoreOf, webauthnStoreOf } from './stores.js';
import { appTable } from './tables.js';
import { usersDeps } from './users.js';

/** The tenant's `passwordless_code_lifetime` (ms) and `passwordless_max_code_input_attempts` (the reference's defaults). */
function passwordlessSettings(config: EffectiveConfig): PasswordlessSettings {
  const lifetime = config.values.passwordless_code_lifetime;
  const attempts = config.values.passwordless_max_code_input_attempts;
  return {
    codeLifetimeMs: typeof lifetime === 'number' ? lifetime : 900_000,
    maxCodeInputAttempts: typeof attempts === 'number' ? attempts : 5,
  };
}

export function passwordlessDeps(config: EffectiveConfig): PasswordlessDeps {
  return {
    store: passwordlessStoreOf(appTable(config)),
    settings: passwordlessSettings(config),
    now: Date.now,
    newId: randomUUID,
    randomBytes: (size) => randomBytes(size),
    randomDigit: () => randomInt(10),
  };
}

/** A user removal that also revokes the passwordless codes and deletes the passkeys of the removed login methods. */
export function userRemovalDeps(config: EffectiveConfig, appId: string): UserRemovalDeps {
  const table = appTable(config);
  return {
    users: usersDeps(config),
    passwordless: passwordlessStoreOf(table),
    webauthn: webauthnStoreOf(table).forApp(appId),
  };
}
