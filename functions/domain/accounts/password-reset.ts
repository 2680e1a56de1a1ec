/**
 * Password-reset tokens (CDI 5.4, docs/password-reset-and-verification.md): the SDK creates one
 * for a user and an email, mails the link, and consumes it when the user submits a new password;
 * the password itself is then set with `PUT /recipe/user` (update-user.ts). Tokens belong to the
 * app (any tenant consumes them), are single-use, and consuming one removes every other reset
 * token of the same user id.
 */
import { BadRequestError, invalidFieldMessage } from '#functions/shared/errors.js';
import type { AccountWrites } from '../users/companions.js';
import { resolveUser } from '../users/lookup.js';
import { externalIdOf } from '../users/model.js';
import { writePlan } from '../users/write.js';
import { type AccountsDeps, issueToken, tokenWithGroup } from './deps.js';

export interface CreateResetTokenInput {
  readonly userId: string;
  /** The `email` field: a string, or undefined when missing or not a string (checked after the user). */
  readonly email: string | undefined;
  /** CDI < 4.0 callers send no email: the user's only login method gives it. */
  readonly legacy: boolean;
}

const UNKNOWN_USER = { status: 'UNKNOWN_USER_ID_ERROR' } as const;

/**
 * `POST /<t>/recipe/user/password/reset/token`: a token for a user (any of its ids: user id,
 * recipe user id or external id) and an email, or `UNKNOWN_USER_ID_ERROR`. As in the reference,
 * the user need not have an email/password login method (the SDK then creates one when the token
 * is used) and the email is stored as given; the token lives for the path tenant's
 * `password_reset_token_lifetime`.
 */
export async function createPasswordResetToken(
  deps: AccountsDeps,
  input: CreateResetTokenInput,
): Promise<{ status: 'OK'; token: string } | typeof UNKNOWN_USER> {
  const found = await resolveUser(deps.users, deps.appId, input.userId);
  if (!found) return UNKNOWN_USER;
  let email: string;
  if (input.legacy) {
    const [only, ...more] = found.user.loginMethods;
    if (more.length > 0) throw new BadRequestError('Please use CDI version >= 4.0');
    if (only?.recipeId !== 'emailpassword' || only.email === undefined) return UNKNOWN_USER;
    email = only.email;
  } else {
    if (input.email === undefined) throw new BadRequestError(invalidFieldMessage('email'));
    email = input.email;
  }
  const token = await issueToken(
    deps,
    { kind: 'passwordReset', ownerId: found.superTokensId, userId: found.superTokensId, email },
    deps.lifetimes.passwordResetMs,
  );
  return { status: 'OK', token };
}

const INVALID_TOKEN = { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' } as const;
/** Deleted with a consumed token in one transaction at most; any more are deleted after it. */
const DISCARD_IN_WRITE = 45;

/**
 * `POST /<t>/recipe/user/password/reset/token/consume`: `{status:"OK", userId, email}` — the user
 * id the token was made for (its external id when it has one) and the email given then — or
 * `RESET_PASSWORD_INVALID_TOKEN_ERROR`. The token and every other reset token of that user id
 * are deleted in one transaction whose conditional delete of this token decides between
 * concurrent uses; an expired token is deleted with them and refused.
 */
export async function consumePasswordResetToken(
  deps: AccountsDeps,
  token: string,
): Promise<{ status: 'OK'; userId: string; email: string } | typeof INVALID_TOKEN> {
  const live = await tokenWithGroup(deps.tokens, 'passwordReset', token, (found) => ({
    kind: 'passwordReset',
    ownerId: found.ownerId,
  }));
  if (!live) return INVALID_TOKEN;
  const { found, others } = live;
  const consumption: AccountWrites = { consume: found, discard: others.slice(0, DISCARD_IN_WRITE) };
  const result = await writePlan(deps.users.store, deps.appId, { changes: [] }, { account: consumption });
  if (!result.ok) {
    if (result.failed.some((e) => e.kind === 'oneTimeToken')) return INVALID_TOKEN;
    throw new Error(`reset token consumption failed: ${result.failed.map((e) => e.kind).join(', ')}`);
  }
  if (others.length > DISCARD_IN_WRITE) await deps.tokens.removeOneTimeTokens(others.slice(DISCARD_IN_WRITE));
  if (found.expiresAt < deps.users.now()) return INVALID_TOKEN;
  const user = await deps.users.store.getUserBySuperTokensId(deps.appId, found.userId);
  return { status: 'OK', userId: user ? externalIdOf(user, found.userId) : found.userId, email: found.email };
}
