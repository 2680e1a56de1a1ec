/**
 * What the password-reset, email-verification and account-update use cases are given, and the
 * one rule they share: whose verification state an id and an email name, and where it is kept
 * (docs/password-reset-and-verification.md "Storage").
 */

import type { OneTimeToken, OneTimeTokenKind, VerifiedEmailRef } from '../users/companions.js';
import type { UsersDeps } from '../users/deps.js';
import { resolveUser } from '../users/lookup.js';
import type { LoginMethodRecord, UserRecord } from '../users/model.js';
import type { AccountTokenStore, TokenGroup } from './ports.js';
import { hashOneTimeToken } from './tokens.js';

export interface AccountsDeps {
  /**
   * The app these dependencies serve: `tokens` is bound to it already; the users store is not yet
   * (docs/architecture.md "Stores bound to their app"), and is given this id, never one from a caller.
   */
  readonly appId: string;
  readonly users: UsersDeps;
  readonly tokens: AccountTokenStore;
  /** A fresh token (tokens.ts `newOneTimeToken`). */
  readonly newToken: () => string;
  /** The path tenant's `password_reset_token_lifetime` and `email_verification_token_lifetime` (ms). */
  readonly lifetimes: { readonly passwordResetMs: number; readonly emailVerificationMs: number };
}

/** How many times a write decided on a read is tried again after the read went stale. */
export const WRITE_ATTEMPTS = 5;

/**
 * Where the verification state of (id, email) lives:
 * - `method`: the id names a login method whose email this is; its state is the method's
 *   `verified` flag in the USER item (what every user object shows);
 * - `item`: any other pair: a verified-email item of the owner id exists or not. `user` is the
 *   user the id names, if any (writes check it did not change meanwhile).
 */
export type VerificationPlace =
  | { readonly at: 'method'; readonly user: UserRecord; readonly method: LoginMethodRecord; readonly verified: boolean }
  | {
      readonly at: 'item';
      readonly user: UserRecord | undefined;
      readonly ref: VerifiedEmailRef;
      readonly verified: boolean;
    };

/**
 * The owner of an id: the SuperTokens id it names (a user id, a recipe user id, or the id an
 * external id is mapped to) with its user; an id that names no user owns its state itself.
 */
export async function ownerOf(
  deps: AccountsDeps,
  userId: string,
): Promise<{ ownerId: string; user: UserRecord | undefined }> {
  const found = await resolveUser(deps.users, deps.appId, userId);
  return found ? { ownerId: found.superTokensId, user: found.user } : { ownerId: userId, user: undefined };
}

/** The login method `ownerId` names in `user`, if it has one. */
export const methodOf = (user: UserRecord | undefined, ownerId: string): LoginMethodRecord | undefined =>
  user?.loginMethods.find((lm) => lm.recipeUserId === ownerId);

/**
 * The verification state of (id, email) and where it is kept. An item's state is read between two
 * reads of the user showing the same version, so it agrees with the login methods it was judged
 * against (an email change moves states between the flag and the items in one transaction).
 */
export async function verificationPlace(deps: AccountsDeps, userId: string, email: string): Promise<VerificationPlace> {
  for (let attempt = 0; ; attempt++) {
    const { ownerId, user } = await ownerOf(deps, userId);
    const method = methodOf(user, ownerId);
    if (user && method && method.email === email) return { at: 'method', user, method, verified: method.verified };
    const ref = { ownerId, email };
    const verified = await deps.tokens.isVerifiedEmail(ref);
    if (!user) return { at: 'item', user, ref, verified };
    const again = await ownerOf(deps, userId);
    if (again.user?.version === user.version && again.ownerId === ownerId) return { at: 'item', user, ref, verified };
    if (attempt + 1 >= WRITE_ATTEMPTS) throw new Error('the user kept changing while its verification state was read');
  }
}

/** `user` with the login method `recipeUserId` changed by `change`, one version up. */
export function withMethod(
  user: UserRecord,
  recipeUserId: string,
  change: (method: LoginMethodRecord) => LoginMethodRecord,
): UserRecord {
  return {
    ...user,
    loginMethods: user.loginMethods.map((lm) => (lm.recipeUserId === recipeUserId ? change(lm) : lm)),
    version: user.version + 1,
  };
}

/**
 * Issues a token of `lifetimeMs` for `fields` (kind, owner, the ids and email it is for): stores
 * its hash and its expiry, and gives the token itself, for its owner only.
 */
export async function issueToken(
  deps: AccountsDeps,
  fields: Omit<OneTimeToken, 'hash' | 'expiresAt'>,
  lifetimeMs: number,
): Promise<string> {
  const token = deps.newToken();
  await deps.tokens.storeOneTimeToken({
    ...fields,
    hash: hashOneTimeToken(token),
    expiresAt: deps.users.now() + lifetimeMs,
  });
  return token;
}

/**
 * The first step of consuming a token, shared by both kinds: the stored token with this token's
 * hash, if `accepts` it, and the other tokens of its group (`groupOf`, removed with it). Undefined
 * when no such token is stored, `accepts` refuses it, or its owner-side item is gone: it was
 * revoked (the lookup item may outlive it).
 */
export async function tokenWithGroup(
  tokens: AccountTokenStore,
  kind: OneTimeTokenKind,
  token: string,
  groupOf: (found: OneTimeToken) => TokenGroup,
  accepts: (found: OneTimeToken) => boolean = () => true,
): Promise<{ found: OneTimeToken; others: OneTimeToken[] } | undefined> {
  const found = await tokens.readOneTimeToken(kind, hashOneTimeToken(token));
  if (!found || !accepts(found)) return undefined;
  const group = await tokens.oneTimeTokensOf(groupOf(found));
  if (!group.some((t) => t.hash === found.hash)) return undefined;
  return { found, others: group.filter((t) => t.hash !== found.hash) };
}
