/**
 * Signing up and signing in with a passkey (docs/passkeys.md "Sign-up and sign-in"):
 * `POST /<t>/recipe/webauthn/signup` verifies an attestation against registration options and
 * creates a webauthn recipe user of the options' email with its first passkey, in one write;
 * `POST /<t>/recipe/webauthn/signin` verifies an assertion against the passkey it names and
 * records the authenticator's new signature counter.
 */
import { READ_AGAIN, type RereadPolicy, reread } from '#functions/shared/rereads.js';
import type { StoredCredential } from '../users/companions.js';
import { externalIdOf, newRecipeUser, toUserJson } from '../users/model.js';
import { writePlan } from '../users/write.js';
import type { WebauthnDeps } from './deps.js';
import { findOptions } from './options.js';
import type { CredentialInput } from './requests.js';
import { checkCredentialIdAndType, verifyAssertion, verifyRegistration } from './verify.js';

type Target = { readonly tenantId: string };

const OPTIONS_NOT_FOUND = { status: 'OPTIONS_NOT_FOUND_ERROR' } as const;

/**
 * `POST /<t>/recipe/webauthn/signup`: a new, non-primary webauthn user in the path's tenant with
 * the email the registration options were made for, unverified, holding the verified passkey.
 * The user, its email's uniqueness item in the tenant and the passkey are one transaction: a
 * taken email (`EMAIL_ALREADY_EXISTS_ERROR`) or a passkey registered already stores nothing.
 */
export async function signUp(deps: WebauthnDeps, target: Target, input: CredentialInput) {
  const options = await findOptions(deps, input.optionsId);
  if (!options) return OPTIONS_NOT_FOUND;
  const verified = await verifyRegistration(options, input.credential, deps.users.now());
  if (!('ok' in verified)) return verified;
  if (options.email === undefined) {
    return { status: 'INVALID_OPTIONS_ERROR' as const, reason: 'These options were made for a sign-in, not a sign-up' };
  }
  const now = deps.users.now();
  const recipeUserId = deps.users.newId();
  const credential: StoredCredential = {
    id: verified.credentialId,
    recipeUserId,
    relyingPartyId: options.relyingPartyId,
    publicKey: verified.publicKey,
    counter: verified.counter,
    transports: verified.transports,
    createdAt: now,
    updatedAt: now,
  };
  const { user } = newRecipeUser(recipeUserId, now, target.tenantId, {
    recipeId: 'webauthn',
    verified: false,
    email: options.email,
    webauthnCredentialIds: [credential.id],
  });
  const result = await writePlan(
    deps.users.store,
    deps.appId,
    { changes: [{ after: user }] },
    { webauthn: { register: credential } },
  );
  if (!result.ok) {
    const failed = new Set(result.failed.map((e) => e.kind));
    if (failed.has('uniqueEmail')) return { status: 'EMAIL_ALREADY_EXISTS_ERROR' as const };
    if (failed.has('webauthnCredential')) {
      return { status: 'INVALID_CREDENTIALS_ERROR' as const, reason: 'This credential is registered already' };
    }
    throw new Error(`webauthn sign-up write failed: ${[...failed].join(', ')}`);
  }
  return {
    status: 'OK' as const,
    user: toUserJson(user),
    webauthnCredentialId: credential.id,
    relyingPartyId: options.relyingPartyId,
    relyingPartyName: options.relyingPartyName,
    recipeUserId,
  };
}

const SIGN_IN_REREADS: RereadPolicy = {
  attempts: 5,
  exhausted: 'a passkey sign-in kept meeting concurrent uses of the same passkey',
};

/**
 * `POST /<t>/recipe/webauthn/signin`: the user whose passkey signed the options' challenge. The
 * new counter is stored only if the passkey's counter is still the one the verification was
 * judged on; a concurrent sign-in with the same passkey makes this one read and verify again
 * (and a replayed assertion then fails on the counter). With `consumeOptions` (CDI ≥ 5.5, the
 * reference's latest behaviour) the options are deleted in the same transaction, so one set of
 * options signs in once: a replay or a concurrent second use answers `OPTIONS_NOT_FOUND_ERROR`.
 * A failed sign-in consumes nothing.
 */
export async function signIn(deps: WebauthnDeps, input: CredentialInput, consumeOptions: boolean) {
  return reread(SIGN_IN_REREADS, async () => {
    const options = await findOptions(deps, input.optionsId);
    if (!options) return OPTIONS_NOT_FOUND;
    const credentialId = checkCredentialIdAndType(input.credential);
    if (typeof credentialId !== 'string') return credentialId;
    const stored = await deps.store.readPasskey(credentialId);
    if (!stored) return { status: 'CREDENTIAL_NOT_FOUND_ERROR' as const };
    const now = deps.users.now();
    const verified = await verifyAssertion(options, input.credential, stored, now);
    if (!('ok' in verified)) return verified;
    const recorded = await deps.store.recordPasskeySignIn({
      credentialId,
      seenCounter: stored.counter,
      newCounter: verified.newCounter,
      at: now,
      ...(consumeOptions ? { consumeOptions: { id: options.id } } : {}),
    });
    if (recorded === 'CHANGED') return READ_AGAIN;
    const user = await deps.users.store.getUserBySuperTokensId(deps.appId, stored.recipeUserId);
    const method = user?.loginMethods.find(
      (lm) => lm.recipeId === 'webauthn' && lm.recipeUserId === stored.recipeUserId,
    );
    if (!user || !method) return { status: 'UNKNOWN_USER_ID_ERROR' as const };
    return { status: 'OK' as const, user: toUserJson(user), recipeUserId: externalIdOf(user, stored.recipeUserId) };
  });
}
