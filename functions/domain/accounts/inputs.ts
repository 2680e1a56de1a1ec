/**
 * The request bodies and queries of the password-reset, account-update and email-verification
 * endpoints, read with the reference's parser rules and messages, in its order (a field is read
 * where the reference reads it), plus this core's id length limits.
 */

import { normaliseEmail } from '#functions/contract/emails.js';
import { BadRequestError } from '#functions/shared/errors.js';
import { checkIdLength } from '#functions/shared/id-limits.js';
import { has, optionalString, requiredQuery, requiredString } from '#functions/shared/input.js';
import type { CreateResetTokenInput } from './password-reset.js';
import type { UpdateUserInput } from './update-user.js';

type Body = Readonly<Record<string, unknown>>;
type Query = Readonly<Record<string, string | undefined>>;

/** A user id of any kind (SuperTokens or external): both share the limit of 128. */
function userIdField(body: Body, name: string): string {
  const userId = requiredString(body, name);
  checkIdLength('userId', userId, name);
  return userId;
}

function emailWithin(email: string): string {
  checkIdLength('email', email.trim());
  return email;
}

/**
 * `POST /<t>/recipe/user/password/reset/token`: `userId`; `email` (CDI ≥ 4.0) is read only once
 * the user is found, so a missing email of an unknown user answers `UNKNOWN_USER_ID_ERROR`.
 */
export function parseResetTokenBody(body: Body, cdiAtLeast4: boolean): CreateResetTokenInput {
  const userId = userIdField(body, 'userId');
  const raw = has(body, 'email') ? body.email : undefined;
  const email = typeof raw === 'string' ? emailWithin(raw) : undefined;
  return { userId, email, legacy: !cdiAtLeast4 };
}

/** `POST /<t>/recipe/user/password/reset/token/consume` `{token}`. */
export function parseTokenBody(body: Body): string {
  return requiredString(body, 'token');
}

/**
 * `PUT /recipe/user`: `recipeUserId` (`userId` before CDI 4.0), optional `email` and `password`
 * (JSON null is not a string), at least one of them; the email normalised.
 */
export function parseUpdateUserBody(body: Body, cdiAtLeast4: boolean): UpdateUserInput {
  const recipeUserId = userIdField(body, cdiAtLeast4 ? 'recipeUserId' : 'userId');
  const email = optionalString(body, 'email');
  const password = optionalString(body, 'password');
  if (email === undefined && password === undefined) {
    throw new BadRequestError('You have to provide either email or password.');
  }
  return {
    recipeUserId,
    ...(email !== undefined ? { email: normaliseEmail(emailWithin(email)) } : {}),
    ...(password !== undefined ? { password } : {}),
  };
}

/** `{userId, email}` of the email-verification token, revoke and unverify bodies; the email normalised. */
export function parseUserEmailBody(body: Body): { userId: string; email: string } {
  const userId = userIdField(body, 'userId');
  const email = emailWithin(requiredString(body, 'email'));
  return { userId, email: normaliseEmail(email) };
}

/** `POST /<t>/recipe/user/email/verify` `{method:"token", token}`. */
export function parseVerifyEmailBody(body: Body): string {
  const method = requiredString(body, 'method');
  const token = requiredString(body, 'token');
  if (method !== 'token') throw new BadRequestError('Unsupported method for email verification');
  return token;
}

/** `GET /recipe/user/email/verify?userId=&email=`: the email as given (the reference does not normalise it here). */
export function parseIsVerifiedQuery(query: Query): { userId: string; email: string } {
  const userId = requiredQuery(query, 'userId');
  const email = requiredQuery(query, 'email');
  checkIdLength('userId', userId);
  checkIdLength('email', email);
  return { userId, email };
}
