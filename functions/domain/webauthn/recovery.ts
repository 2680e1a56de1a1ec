/**
 * Account recovery (docs/passkeys.md "Recovery"): a user who lost every passkey is mailed a link
 * by the SDK; its token lets the user register a new passkey. `POST /<t>/recipe/webauthn/user/recover/token`
 * makes a token for a user id and an email, `GET /<t>/recipe/webauthn/user/recover` shows whose it
 * is, `POST …/recover/token/consume` uses it up. Tokens belong to the tenant they were made in,
 * live for the tenant's `webauthn_recover_account_token_lifetime`, and are kept as their SHA-256
 * only (one-time tokens of the accounts store, kind `webauthnRecovery`).
 */
import { tokenWithGroup } from '../accounts/deps.js';
import { hashOneTimeToken } from '../accounts/tokens.js';
import type { OneTimeToken } from '../users/companions.js';
import { resolveUser } from '../users/lookup.js';
import { externalIdOf, toUserJson } from '../users/model.js';
import { writePlan } from '../users/write.js';
import type { WebauthnDeps } from './deps.js';

type Target = { readonly tenantId: string };

const INVALID_TOKEN = { status: 'RECOVER_ACCOUNT_TOKEN_INVALID_ERROR' } as const;

/**
 * `POST /<t>/recipe/webauthn/user/recover/token` `{email, userId}`: a token for the user the id
 * names (user id, recipe user id or external id) and the email, or `UNKNOWN_USER_ID_ERROR`. The
 * token is the reference's form: 32 random bytes, base64url without padding.
 */
export async function createRecoverAccountToken(
  deps: WebauthnDeps,
  target: Target,
  input: { readonly email: string; readonly userId: string },
) {
  const found = await resolveUser(deps.users, deps.appId, input.userId);
  if (!found) return { status: 'UNKNOWN_USER_ID_ERROR' as const };
  const token = Buffer.from(deps.randomBytes(32)).toString('base64url');
  await deps.tokens.storeOneTimeToken({
    kind: 'webauthnRecovery',
    hash: hashOneTimeToken(token),
    ownerId: found.superTokensId,
    userId: found.superTokensId,
    email: input.email,
    tenantId: target.tenantId,
    expiresAt: deps.users.now() + deps.recoverTokenLifetimeMs,
  });
  return { status: 'OK' as const, token };
}

/** The live token of this tenant with this value, and the other tokens of its user, tenant and email. */
function liveToken(deps: WebauthnDeps, target: Target, token: string) {
  const now = deps.users.now();
  return tokenWithGroup(
    deps.tokens,
    'webauthnRecovery',
    token,
    (found) => ({ kind: 'webauthnRecovery', ownerId: found.ownerId, tenantId: target.tenantId, email: found.email }),
    (found) => found.tenantId === target.tenantId && found.expiresAt >= now,
  );
}

/** Deleted with a consumed token in one transaction at most; any more are deleted after it. */
const DISCARD_IN_WRITE = 45;

/**
 * `POST /<t>/recipe/webauthn/user/recover/token/consume` `{token}`: `{status:"OK", userId, email}`
 * (the user id the token was made for, its external id when it has one) or
 * `RECOVER_ACCOUNT_TOKEN_INVALID_ERROR`. The token and the other tokens of the same user, tenant
 * and email go in one transaction whose conditional delete of this token decides between
 * concurrent uses; an expired token is refused and left to its expiry.
 */
export async function consumeRecoverAccountToken(deps: WebauthnDeps, target: Target, token: string) {
  const live = await liveToken(deps, target, token);
  if (!live) return INVALID_TOKEN;
  const { found, others } = live;
  const result = await writePlan(
    deps.users.store,
    deps.appId,
    { changes: [] },
    { account: { consume: found, discard: others.slice(0, DISCARD_IN_WRITE) } },
  );
  if (!result.ok) {
    if (result.failed.some((e) => e.kind === 'oneTimeToken')) return INVALID_TOKEN;
    throw new Error(`recovery token consumption failed: ${result.failed.map((e) => e.kind).join(', ')}`);
  }
  if (others.length > DISCARD_IN_WRITE) await deps.tokens.removeOneTimeTokens(others.slice(DISCARD_IN_WRITE));
  return { status: 'OK' as const, userId: await externalUserIdOf(deps, found), email: found.email };
}

async function externalUserIdOf(deps: WebauthnDeps, token: OneTimeToken): Promise<string> {
  const user = await deps.users.store.getUserBySuperTokensId(deps.appId, token.userId);
  return user ? externalIdOf(user, token.userId) : token.userId;
}

/**
 * `GET /<t>/recipe/webauthn/user/recover?token=`: the user of a live token (not consumed), and the
 * recipe user id of its webauthn login method in this tenant (`null` when it has none there: the
 * recovery then signs the user up with a passkey).
 */
export async function userOfRecoverAccountToken(deps: WebauthnDeps, target: Target, token: string) {
  const live = await liveToken(deps, target, token);
  if (!live) return INVALID_TOKEN;
  const user = await deps.users.store.getUserBySuperTokensId(deps.appId, live.found.userId);
  if (!user) return INVALID_TOKEN;
  const method = user.loginMethods.findLast(
    (lm) => lm.recipeId === 'webauthn' && lm.tenantIds.includes(target.tenantId),
  );
  return {
    status: 'OK' as const,
    recipeUserId: method ? externalIdOf(user, method.recipeUserId) : null,
    user: toUserJson(user),
  };
}
