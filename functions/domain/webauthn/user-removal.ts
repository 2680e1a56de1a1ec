/**
 * The passkeys that go with a user removal (docs/passkeys.md "What goes with what"). A module of
 * its own, needing only the passkey store: the removal's bundles carry neither the verifier nor
 * the passkey routes' code.
 */
import type { LoginMethodRecord } from '../users/model.js';
import type { WebauthnDeps } from './deps.js';

/**
 * The passkeys of the webauthn login methods a user removal takes away (`POST /user/remove`),
 * deleted before the user: an interrupted removal leaves the user, and removing again finishes.
 */
export async function removeCredentialsOf(
  deps: Pick<WebauthnDeps, 'store'>,
  methods: readonly LoginMethodRecord[],
): Promise<void> {
  const ids = methods.flatMap((lm) => (lm.recipeId === 'webauthn' ? (lm.webauthnCredentialIds ?? []) : []));
  if (ids.length > 0) await deps.store.removePasskeys(ids);
}
