/**
 * Wiring of the password-reset, account-update and email-verification use cases for the request's
 * app and tenant: the app's user store and token store (bound to the app), and the tenant's token
 * lifetimes.
 * Hashing a new password is wired apart (passwords.ts): only `PUT /recipe/user` carries it.
 */
import type { EffectiveConfig } from '#functions/config/index.js';
import type { AccountsDeps } from '#functions/domain/accounts/deps.js';
import { newOneTimeToken } from '#functions/domain/accounts/tokens.js';
import { accountTokenStoreOf } from './stores.js';
import { appTable } from './tables.js';
import { usersDeps } from './users.js';

const lifetime = (config: EffectiveConfig, key: string, fallback: number): number => {
  const value = config.values[key];
  return typeof value === 'number' && value > 0 ? value : fallback;
};

export function accountsDeps(config: EffectiveConfig, appId: string): AccountsDeps {
  return {
    appId,
    users: usersDeps(config),
    tokens: accountTokenStoreOf(appTable(config)).forApp(appId),
    newToken: newOneTimeToken,
    lifetimes: {
      passwordResetMs: lifetime(config, 'password_reset_token_lifetime', 3_600_000),
      emailVerificationMs: lifetime(config, 'email_verification_token_lifetime', 86_400_000),
    },
  };
}
