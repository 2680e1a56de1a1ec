/**
 * `POST /recipe/webauthn/user/credential/register` (docs/passkeys.md "The passkeys of a user"): a
 * further passkey for a webauthn login method, its id added to the method's list in the same write.
 */
import { READ_AGAIN, type RereadPolicy, reread } from '#functions/shared/rereads.js';
import { withMethod } from '../accounts/deps.js';
import type { StoredCredential } from '../users/companions.js';
import { writePlan } from '../users/write.js';
import { webauthnMethodOf } from './credentials.js';
import type { WebauthnDeps } from './deps.js';
import { findOptions } from './options.js';
import type { CredentialInput } from './requests.js';
import { verifyRegistration } from './verify.js';

const UNKNOWN_USER = { status: 'UNKNOWN_USER_ID_ERROR' } as const;

const REGISTER_REREADS: RereadPolicy = {
  attempts: 5,
  exhausted: 'registering a passkey kept meeting concurrent changes of its user',
};

/**
 * `POST /recipe/webauthn/user/credential/register`: a further passkey for the webauthn login
 * method `recipeUserId`, verified against registration options made in any tenant of the app.
 * `CREDENTIAL_ALREADY_EXISTS_ERROR` when the app holds a passkey with its id already;
 * `UNKNOWN_USER_ID_ERROR` when the id names no webauthn login method.
 */
export async function registerCredential(
  deps: WebauthnDeps,
  input: CredentialInput & { readonly recipeUserId: string },
) {
  const options = await findOptions(deps, input.optionsId);
  if (!options) return { status: 'OPTIONS_NOT_FOUND_ERROR' as const };
  const verified = await verifyRegistration(options, input.credential, deps.users.now());
  if (!('ok' in verified)) return verified;
  return reread(REGISTER_REREADS, async () => {
    const found = await webauthnMethodOf(deps, input.recipeUserId);
    if (!found) return UNKNOWN_USER;
    const now = deps.users.now();
    const credential: StoredCredential = {
      id: verified.credentialId,
      recipeUserId: found.ownerId,
      relyingPartyId: options.relyingPartyId,
      publicKey: verified.publicKey,
      counter: verified.counter,
      transports: verified.transports,
      createdAt: now,
      updatedAt: now,
    };
    const after = withMethod(found.user, found.ownerId, (lm) => ({
      ...lm,
      webauthnCredentialIds: [...(lm.webauthnCredentialIds ?? []), credential.id],
    }));
    const result = await writePlan(
      deps.users.store,
      deps.appId,
      { changes: [{ before: found.user, after }] },
      { webauthn: { register: credential } },
    );
    if (!result.ok) {
      const failed = new Set(result.failed.map((e) => e.kind));
      if (failed.has('webauthnCredential')) return { status: 'CREDENTIAL_ALREADY_EXISTS_ERROR' as const };
      if ([...failed].every((kind) => kind === 'user')) return READ_AGAIN;
      throw new Error(`passkey registration failed: ${[...failed].join(', ')}`);
    }
    return {
      status: 'OK' as const,
      webauthnCredentialId: credential.id,
      recipeUserId: input.recipeUserId,
      email: options.email ?? null,
      relyingPartyId: options.relyingPartyId,
      relyingPartyName: options.relyingPartyName,
    };
  });
}
