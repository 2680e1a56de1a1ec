/**
 * The passkeys of a webauthn login method (docs/passkeys.md "The passkeys of a user"): registering a further
 * one (`POST /recipe/webauthn/user/credential/register`), reading one, listing them, removing one.
 * The login method's list of credential ids and the passkey items change together, in one write.
 * A recipe user id may be given as its external id, as everywhere in the core.
 */
import { READ_AGAIN, type RereadPolicy, reread } from '#functions/shared/rereads.js';
import { withMethod } from '../accounts/deps.js';
import { resolveUser } from '../users/lookup.js';
import type { LoginMethodRecord, UserRecord } from '../users/model.js';
import { writePlan } from '../users/write.js';
import { canonicalCredentialId, isCredentialIdShape } from './credential-ids.js';
import type { WebauthnDeps } from './deps.js';
import type { StoredCredential } from './model.js';
import { findOptions } from './options.js';
import type { CredentialInput } from './requests.js';
import { verifyRegistration } from './verify.js';

const UNKNOWN_USER = { status: 'UNKNOWN_USER_ID_ERROR' } as const;
const CREDENTIAL_NOT_FOUND = { status: 'CREDENTIAL_NOT_FOUND_ERROR' } as const;

/** The webauthn login method a recipe user id (or its external id) names, with its user and internal id. */
async function webauthnMethodOf(
  deps: WebauthnDeps,
  appId: string,
  recipeUserId: string,
): Promise<{ user: UserRecord; method: LoginMethodRecord; ownerId: string } | undefined> {
  const found = await resolveUser(deps.users, appId, recipeUserId);
  if (!found) return undefined;
  const method = found.user.loginMethods.find(
    (lm) => lm.recipeUserId === found.superTokensId && lm.recipeId === 'webauthn',
  );
  return method ? { user: found.user, method, ownerId: found.superTokensId } : undefined;
}

/** The internal id a recipe user id stands for (itself when it names no user). */
async function internalIdOf(deps: WebauthnDeps, appId: string, recipeUserId: string): Promise<string> {
  return (await resolveUser(deps.users, appId, recipeUserId))?.superTokensId ?? recipeUserId;
}

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
  appId: string,
  input: CredentialInput & { readonly recipeUserId: string },
) {
  const options = await findOptions(deps, appId, input.optionsId);
  if (!options) return { status: 'OPTIONS_NOT_FOUND_ERROR' as const };
  const verified = await verifyRegistration(options, input.credential, deps.users.now());
  if (!('ok' in verified)) return verified;
  return reread(REGISTER_REREADS, async () => {
    const found = await webauthnMethodOf(deps, appId, input.recipeUserId);
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
      appId,
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

/** `GET /recipe/webauthn/user/credential?recipeUserId=&webauthnCredentialId=`: one passkey of the login method. */
export async function getCredential(
  deps: WebauthnDeps,
  appId: string,
  input: { readonly recipeUserId: string; readonly credentialId: string },
) {
  if (!isCredentialIdShape(input.credentialId)) return CREDENTIAL_NOT_FOUND;
  const [ownerId, stored] = await Promise.all([
    internalIdOf(deps, appId, input.recipeUserId),
    deps.store.getCredential(appId, canonicalCredentialId(input.credentialId)),
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
export async function listCredentials(deps: WebauthnDeps, appId: string, recipeUserId: string) {
  const found = await webauthnMethodOf(deps, appId, recipeUserId);
  const ids = found?.method.webauthnCredentialIds ?? [];
  const stored = found ? await deps.store.getCredentials(appId, ids) : [];
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
  appId: string,
  input: { readonly recipeUserId: string; readonly credentialId: string },
) {
  if (!isCredentialIdShape(input.credentialId)) return CREDENTIAL_NOT_FOUND;
  const credentialId = canonicalCredentialId(input.credentialId);
  return reread(REMOVE_REREADS, async () => {
    const found = await webauthnMethodOf(deps, appId, input.recipeUserId);
    if (!found || !(found.method.webauthnCredentialIds ?? []).includes(credentialId)) return CREDENTIAL_NOT_FOUND;
    const after = withMethod(found.user, found.ownerId, (lm) => ({
      ...lm,
      webauthnCredentialIds: (lm.webauthnCredentialIds ?? []).filter((id) => id !== credentialId),
    }));
    const result = await writePlan(
      deps.users.store,
      appId,
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

/**
 * The passkeys of the webauthn login methods a user removal takes away (`POST /user/remove`),
 * deleted before the user: an interrupted removal leaves the user, and removing again finishes.
 */
export async function removeCredentialsOf(
  deps: Pick<WebauthnDeps, 'store'>,
  appId: string,
  methods: readonly LoginMethodRecord[],
): Promise<void> {
  const ids = methods.flatMap((lm) => (lm.recipeId === 'webauthn' ? (lm.webauthnCredentialIds ?? []) : []));
  if (ids.length > 0) await deps.store.removeCredentials(appId, ids);
}
