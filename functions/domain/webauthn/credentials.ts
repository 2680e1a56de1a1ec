/**
 * The passkeys of a webauthn login method (docs/passkeys.md "The passkeys of a user"): reading one,
 * listing them, removing one (registering a further one: credential-register.ts, which carries the
 * verifier). The login method's list of credential ids and the passkey items change together, in
 * one write. A recipe user id may be given as its external id, as everywhere in the core.
 */
import { READ_AGAIN, type RereadPolicy, reread } from '#functions/shared/rereads.js';
import { withMethod } from '../accounts/deps.js';
import { canonicalCredentialId, isCredentialIdShape } from '../users/credential-ids.js';
import { resolveUser } from '../users/lookup.js';
import type { LoginMethodRecord, UserRecord } from '../users/model.js';
import { writePlan } from '../users/write.js';
import type { WebauthnDeps } from './deps.js';

const CREDENTIAL_NOT_FOUND = { status: 'CREDENTIAL_NOT_FOUND_ERROR' } as const;

/** The webauthn login method a recipe user id (or its external id) names, with its user and internal id. */
export async function webauthnMethodOf(
  deps: WebauthnDeps,
  recipeUserId: string,
): Promise<{ user: UserRecord; method: LoginMethodRecord; ownerId: string } | undefined> {
  const found = await resolveUser(deps.users, deps.appId, recipeUserId);
  if (!found) return undefined;
  const method = found.user.loginMethods.find(
    (lm) => lm.recipeUserId === found.superTokensId && lm.recipeId === 'webauthn',
  );
  return method ? { user: found.user, method, ownerId: found.superTokensId } : undefined;
}

/** The internal id a recipe user id stands for (itself when it names no user). */
async function internalIdOf(deps: WebauthnDeps, recipeUserId: string): Promise<string> {
  return (await resolveUser(deps.users, deps.appId, recipeUserId))?.superTokensId ?? recipeUserId;
}

/** `GET /recipe/webauthn/user/credential?recipeUserId=&webauthnCredentialId=`: one passkey of the login method. */
export async function getCredential(
  deps: WebauthnDeps,
  input: { readonly recipeUserId: string; readonly credentialId: string },
) {
  if (!isCredentialIdShape(input.credentialId)) return CREDENTIAL_NOT_FOUND;
  const [ownerId, stored] = await Promise.all([
    internalIdOf(deps, input.recipeUserId),
    deps.store.readPasskey(canonicalCredentialId(input.credentialId)),
  ]);
  if (!stored || stored.recipeUserId !== ownerId) return CREDENTIAL_NOT_FOUND;
  return {
    status: 'OK' as const,
    webauthnCredentialId: stored.id,
    recipeUserId: input.recipeUserId,
    relyingPartyId: stored.relyingPartyId,
    createdAt: stored.createdAt,
    updatedAt: stored.updatedAt,
  };
}

/** `GET /recipe/webauthn/user/credential/list?recipeUserId=`: the login method's passkeys, oldest first (none for an unknown id). */
export async function listCredentials(deps: WebauthnDeps, recipeUserId: string) {
  const found = await webauthnMethodOf(deps, recipeUserId);
  const ids = found?.method.webauthnCredentialIds ?? [];
  const stored = found ? await deps.store.readPasskeys(ids) : [];
  return {
    status: 'OK' as const,
    credentials: stored
      .filter((c) => c.recipeUserId === found?.ownerId)
      .map((c) => ({
        webauthnCredentialId: c.id,
        recipeUserId,
        relyingPartyId: c.relyingPartyId,
        createdAt: c.createdAt,
      })),
  };
}

const REMOVE_REREADS: RereadPolicy = {
  attempts: 5,
  exhausted: 'removing a passkey kept meeting concurrent changes of its user',
};

/**
 * `DELETE /recipe/webauthn/user/credential/remove?recipeUserId=&webauthnCredentialId=`: the
 * passkey and its id in the login method's list, together. The last passkey may go too (the user
 * then signs in another way, or recovers the account).
 */
export async function removeCredential(
  deps: WebauthnDeps,
  input: { readonly recipeUserId: string; readonly credentialId: string },
) {
  if (!isCredentialIdShape(input.credentialId)) return CREDENTIAL_NOT_FOUND;
  const credentialId = canonicalCredentialId(input.credentialId);
  return reread(REMOVE_REREADS, async () => {
    const found = await webauthnMethodOf(deps, input.recipeUserId);
    if (!found || !(found.method.webauthnCredentialIds ?? []).includes(credentialId)) return CREDENTIAL_NOT_FOUND;
    const after = withMethod(found.user, found.ownerId, (lm) => ({
      ...lm,
      webauthnCredentialIds: (lm.webauthnCredentialIds ?? []).filter((id) => id !== credentialId),
    }));
    const result = await writePlan(
      deps.users.store,
      deps.appId,
      { changes: [{ before: found.user, after }] },
      { webauthn: { remove: { credentialId, recipeUserId: found.ownerId } } },
    );
    if (result.ok) return { status: 'OK' as const };
    const failed = new Set(result.failed.map((e) => e.kind));
    if (failed.has('webauthnCredential')) return CREDENTIAL_NOT_FOUND;
    if ([...failed].every((kind) => kind === 'user')) return READ_AGAIN;
    throw new Error(`passkey removal failed: ${[...failed].join(', ')}`);
  });
}
