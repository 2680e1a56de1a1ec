/**
 * The request bodies and queries of the password-reset, account-update and email-verification
 * endpoints, with the reference's parser rules and messages, in its order (a field is read where
 * the reference reads it), plus this core's id length limits: schemas
 * (functions/shared/request-schema.ts) the handlers parse and the API description shows, and the
 * account update's reader (its field is named by the CDI version).
 */

import * as z from 'zod/mini';
import { normaliseEmail } from '#functions/contract/emails.js';
import { BadRequestError } from '#functions/shared/errors.js';
import { checkIdLength } from '#functions/shared/id-limits.js';
import { optionalString, requiredString } from '#functions/shared/input.js';
import { jsonString, queryString, rule, shownAs, stringOrIgnored } from '#functions/shared/request-schema.js';
import type { UpdateUserInput } from './update-user.js';

type Body = Readonly<Record<string, unknown>>;

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

/** A body's user id (SuperTokens or external), within the limit of 128. */
const userIdSchema = () =>
  rule(jsonString(), (userId) => {
    checkIdLength('userId', userId);
    return userId;
  });

/**
 * `POST /<t>/recipe/user/password/reset/token`: `userId`; `email` (CDI ≥ 4.0) is read only once
 * the user is found, so a missing email of an unknown user answers `UNKNOWN_USER_ID_ERROR`.
 */
export const resetTokenRequest = z.object({
  userId: userIdSchema(),
  email: rule(stringOrIgnored(), (email) => (email === undefined ? undefined : emailWithin(email))),
});

/** `POST /<t>/recipe/user/password/reset/token/consume` `{token}`; the `method` the SDK sends is not read. */
export const tokenRequest = z.object({
  token: jsonString(),
  method: z.optional(shownAs({ const: 'token' }, z.unknown())),
});

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
export const userEmailRequest = rule(
  z.object({ userId: userIdSchema(), email: rule(jsonString(), emailWithin) }),
  ({ userId, email }) => ({ userId, email: normaliseEmail(email) }),
);

/** `POST /<t>/recipe/user/email/verify` `{method:"token", token}`: the method is checked once both are read. */
export const verifyEmailRequest = rule(
  z.object({ method: shownAs({ const: 'token' }, jsonString()), token: jsonString() }),
  ({ method, token }) => {
    if (method !== 'token') throw new BadRequestError('Unsupported method for email verification');
    return token;
  },
);

/** `GET /recipe/user/email/verify?userId=&email=`: the email as given (the reference does not normalise it here). */
export const isVerifiedQuery = rule(z.object({ userId: queryString(), email: queryString() }), (query) => {
  checkIdLength('userId', query.userId);
  checkIdLength('email', query.email);
  return query;
});
