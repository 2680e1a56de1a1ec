/**
 * Wiring of the TOTP use cases for the app and tenant of a request: the app's store of devices and
 * attempt records (bound to the app), the tenant's rate limits, the app's `mfa_enabled` switch,
 * the clock and the system's secure randomness.
 */
import { randomBytes } from 'node:crypto';
import type { EffectiveConfig } from '#functions/config/index.js';
import type { TotpLimits } from '#functions/domain/totp/attempts.js';
import type { TotpDeps } from '#functions/domain/totp/service.js';
import { totpStoreOf } from './stores.js';
import { appTable } from './tables.js';

/** The tenant's `totp_max_attempts` and `totp_rate_limit_cooldown_sec` (the reference's defaults: 5, 900 s). */
function totpLimits(config: EffectiveConfig): TotpLimits {
  const attempts = config.values.totp_max_attempts;
  const cooldown = config.values.totp_rate_limit_cooldown_sec;
  return {
    maxAttempts: typeof attempts === 'number' ? attempts : 5,
    cooldownMs: (typeof cooldown === 'number' ? cooldown : 900) * 1000,
  };
}

export function totpDeps(config: EffectiveConfig, appId: string): TotpDeps {
  return {
    store: totpStoreOf(appTable(config)).forApp(appId),
    limits: totpLimits(config),
    mfaEnabled: config.mfaEnabled,
    now: Date.now,
    randomBytes: (size) => randomBytes(size),
  };
}
