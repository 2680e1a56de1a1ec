/**
 * Email verification (CDI 5.4, docs/password-reset-and-verification.md): create a token, verify
 * with it, is-verified, revoke tokens, unverify. The state is per (user id, email): for the email
 * of the login method the id names it is that method's `verified` flag (what every user object
 * shows, imported users' `isVerified` included); for any other pair it is a verified-email item.
 */

import type { AccountWrites } from '../users/companions.js';
import type { CompanionWrites, UserWritePlan } from '../users/ports.js';
import { writePlan } from '../users/write.js';
import {
  type AccountsDeps,
  issueToken,
  ownerOf,
  tokenWithGroup,
  type VerificationPlace,
  verificationPlace,
  WRITE_ATTEMPTS,
  withMethod,
} from './deps.js';

/** Whether (id, email) is verified (`GET /recipe/user/email/verify`). The email is taken as given. */
export async function isEmailVerified(deps: AccountsDeps, input: { userId: string; email: string }) {
  const place = await verificationPlace(deps, input.userId, input.email);
  return { status: 'OK', isVerified: place.verified };
}

/**
 * `POST /<t>/recipe/user/email/verify/token`: a new token for (id, email) in the tenant, or
 * `EMAIL_ALREADY_VERIFIED_ERROR`. The id need not be a user's (the reference keeps the
 * verification state of any id).
 */
export async function createEmailVerificationToken(
  deps: AccountsDeps,
  target: { tenantId: string },
  input: { userId: string; email: string },
): Promise<{ status: 'OK'; token: string } | { status: 'EMAIL_ALREADY_VERIFIED_ERROR' }> {
  const place = await verificationPlace(deps, input.userId, input.email);
  if (place.verified) return { status: 'EMAIL_ALREADY_VERIFIED_ERROR' };
  const ownerId = place.at === 'method' ? place.method.recipeUserId : place.ref.ownerId;
  const token = await issueToken(
    deps,
    { kind: 'emailVerification', ownerId, userId: input.userId, email: input.email, tenantId: target.tenantId },
    deps.lifetimes.emailVerificationMs,
  );
  return { status: 'OK', token };
}

const INVALID_TOKEN = { status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' } as const;

/** Deleted with a consumed token in one transaction at most; any more are deleted after it. */
const DISCARD_IN_WRITE = 40;

/**
 * `POST /<t>/recipe/user/email/verify` `{method:"token", token}`: consumes the token — with every
 * other token of its (id, email) in the tenant — and marks the email verified, in one
 * transaction whose conditional delete of the token decides between concurrent uses. An expired
 * token is deleted with the others and refused, as in the reference. Answers the id the token was
 * created for and its email.
 */
export async function verifyEmail(
  deps: AccountsDeps,
  target: { tenantId: string },
  token: string,
): Promise<{ status: 'OK'; userId: string; email: string } | typeof INVALID_TOKEN> {
  const live = await tokenWithGroup(
    deps.tokens,
    'emailVerification',
    token,
    (found) => ({ kind: 'emailVerification', ownerId: found.ownerId, tenantId: target.tenantId, email: found.email }),
    (found) => found.tenantId === target.tenantId,
  );
  if (!live) return INVALID_TOKEN;
  const { found, others } = live;
  const inWrite = others.slice(0, DISCARD_IN_WRITE);
  const consumption: AccountWrites = { consume: found, discard: inWrite };
  const expired = found.expiresAt < deps.users.now();
  const outcome = expired
    ? (await writePlan(deps.users.store, deps.appId, { changes: [] }, { account: consumption })).ok
      ? 'done'
      : 'gone'
    : await setVerified(deps, found.userId, found.email, true, consumption);
  if (outcome === 'gone') return INVALID_TOKEN;
  if (others.length > inWrite.length) await deps.tokens.removeOneTimeTokens(others.slice(DISCARD_IN_WRITE));
  if (expired) return INVALID_TOKEN;
  return { status: 'OK', userId: found.userId, email: found.email };
}

/**
 * `POST /<t>/recipe/user/email/verify/token/remove`: deletes every token of (id, email) in the
 * tenant (the tokens created with the id itself or with another id of the same owner).
 */
export async function revokeEmailVerificationTokens(
  deps: AccountsDeps,
  target: { tenantId: string },
  input: { userId: string; email: string },
): Promise<{ status: 'OK' }> {
  const { ownerId } = await ownerOf(deps, input.userId);
  const tokens = await deps.tokens.oneTimeTokensOf({
    kind: 'emailVerification',
    ownerId,
    tenantId: target.tenantId,
    email: input.email,
  });
  await deps.tokens.removeOneTimeTokens(tokens);
  return { status: 'OK' };
}

/** `POST /recipe/user/email/verify/remove`: (id, email) is no longer verified. */
export async function unverifyEmail(
  deps: AccountsDeps,
  input: { userId: string; email: string },
): Promise<{ status: 'OK' }> {
  await setVerified(deps, input.userId, input.email, false, undefined);
  return { status: 'OK' };
}

/**
 * Sets the state of (id, email) where it is kept, with `also` (a token consumption) in the same
 * transaction. 'gone' when the token to consume was used or revoked meanwhile (nothing written).
 * A write whose read went stale (the user or the item changed) is decided again.
 */
async function setVerified(
  deps: AccountsDeps,
  userId: string,
  email: string,
  verified: boolean,
  also: AccountWrites | undefined,
): Promise<'done' | 'gone'> {
  for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
    const place = await verificationPlace(deps, userId, email);
    if (place.verified === verified && !also) return 'done';
    const { plan, companions } = planFor(place, verified, also);
    const result = await writePlan(deps.users.store, deps.appId, plan, companions);
    if (result.ok) return 'done';
    if (result.failed.some((e) => e.kind === 'oneTimeToken')) return 'gone';
    if (!result.failed.every((e) => e.kind === 'user' || e.kind === 'verifiedEmail')) {
      throw new Error(`verification write failed: ${result.failed.map((e) => e.kind).join(', ')}`);
    }
  }
  throw new Error('the verification state kept changing while it was being written');
}

/** The write that gives (id, email) the state `verified` where `place` says it is kept. */
function planFor(
  place: VerificationPlace,
  verified: boolean,
  also: AccountWrites | undefined,
): { plan: UserWritePlan; companions?: CompanionWrites } {
  if (place.at === 'method') {
    const { user, method } = place;
    const changes =
      place.verified === verified
        ? []
        : [{ before: user, after: withMethod(user, method.recipeUserId, (lm) => ({ ...lm, verified })) }];
    return { plan: { changes }, ...(also ? { companions: { account: also } } : {}) };
  }
  const account: AccountWrites = {
    ...also,
    ...(verified ? { verify: [place.ref] } : { unverify: [place.ref] }),
    // The pair was judged not to be a login method's email on this version of the user.
    ...(place.user ? { userUnchanged: { userId: place.user.userId, version: place.user.version } } : {}),
  };
  return { plan: { changes: [] }, companions: { account } };
}
