/**
 * Wiring of the OAuth2 client use cases for the app of a request: its clients (the store of its
 * table, bound to it), the app's `oauth_provider_enabled` switch, the clock and the system's
 * secure randomness.
 */
import { randomInt, randomUUID } from 'node:crypto';
import type { EffectiveConfig } from '#functions/config/index.js';
import type { OAuthClientDeps } from '#functions/domain/oauth-clients/service.js';
import { oauthClientStoreOf } from './stores.js';
import { appTable } from './tables.js';

export function oauthClientDeps(config: EffectiveConfig, appId: string): OAuthClientDeps {
  return {
    store: oauthClientStoreOf(appTable(config)).forApp(appId),
    enabled: config.oauthProviderEnabled,
    now: Date.now,
    uuid: randomUUID,
    randomInt: (max) => randomInt(max),
  };
}
