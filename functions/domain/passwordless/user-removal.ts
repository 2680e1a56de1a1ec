/**
 * Removing a user also revokes the passwordless sign-ins in flight for its email and phone number
 * (the reference deletes the devices of a removed passwordless user's contacts in each of its
 * tenants), so a code sent before the removal cannot sign the user up again, and deletes the
 * passkeys of its webauthn login methods (docs/passkeys.md "What goes with what").
 */

import type { UsersDeps } from '#functions/domain/users/deps.js';
import { resolveUser } from '#functions/domain/users/lookup.js';
import { removeUser } from '#functions/domain/users/removal.js';
import type { WebauthnStore } from '#functions/domain/webauthn/ports.js';
import { removeCredentialsOf } from '#functions/domain/webauthn/user-removal.js';
import { removeDevicesOfLoginMethods } from './devices.js';
import type { PasswordlessStore } from './ports.js';

export interface UserRemovalDeps {
  readonly users: UsersDeps;
  readonly passwordless: PasswordlessStore;
  readonly webauthn: WebauthnStore;
}

/**
 * `POST /user/remove`: the devices of the passwordless login methods and the passkeys of the
 * webauthn login methods about to go (all of the user's, or the named recipe user's), then the
 * user (functions/domain/users/removal.ts `removeUser`). Those first: an interrupted removal
 * leaves the user, and removing again finishes it.
 */
export async function removeUserAndItsCodes(
  deps: UserRemovalDeps,
  appId: string,
  input: { userId: string; removeAllLinkedAccounts: boolean },
): Promise<{ status: 'OK' }> {
  const found = await resolveUser(deps.users, appId, input.userId);
  if (found) {
    const { user, superTokensId } = found;
    const removeAll = input.removeAllLinkedAccounts || user.loginMethods.length === 1;
    const removed = user.loginMethods.filter((lm) => removeAll || lm.recipeUserId === superTokensId);
    await removeDevicesOfLoginMethods(
      deps.passwordless,
      appId,
      removed.filter((lm) => lm.recipeId === 'passwordless'),
    );
    await removeCredentialsOf({ store: deps.webauthn }, removed);
  }
  return removeUser(deps.users, appId, input);
}
