/**
 * Wiring of the session use cases (docs/sessions.md): the session store and the signing keys of
 * the request's app table, with one key ring per table and execution environment (its caches are
 * the environment's), the user store for the ids tokens carry, and the app's session settings.
 */
import type { EffectiveConfig } from '#functions/config/index.js';
import type { SessionDeps } from '#functions/domain/sessions/deps.js';
import { KeyRing } from '#functions/domain/sessions/key-ring.js';
import type { SigningKeyStore } from '#functions/domain/sessions/ports.js';
import type { Table } from '#functions/storage/kit/index.js';
import { createSigningKeyStore } from '#functions/storage/sessions/signing-key-store.js';
import { credentialsEnvelope } from './credentials.js';
import { sessionStoreOf, userStoreOf } from './stores.js';
import { appTable } from './tables.js';

const keyRings = new Map<string, KeyRing>();

export const signingKeyStoreOf = (table: Table): SigningKeyStore => createSigningKeyStore(table, credentialsEnvelope);

/** The key ring of a table (one per execution environment: it holds the key caches). */
const keyRingOf = (table: Table): KeyRing => {
  let ring = keyRings.get(table.name);
  if (!ring) {
    ring = new KeyRing(signingKeyStoreOf(table));
    keyRings.set(table.name, ring);
  }
  return ring;
};

export function sessionDeps(config: EffectiveConfig): SessionDeps {
  const table = appTable(config);
  return {
    sessions: sessionStoreOf(table),
    keys: keyRingOf(table),
    users: userStoreOf(table),
    settings: config.sessions,
    now: Date.now,
  };
}
