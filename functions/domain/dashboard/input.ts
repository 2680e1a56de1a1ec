/**
 * The requests of the dashboard's sign-in, session and user-removal routes, as schemas
 * (functions/shared/request-schema.ts): what the handlers parse and the API description shows.
 * Strings are trimmed as the reference's `normalizeAndValidateStringParam` does.
 */
import * as z from 'zod/mini';
import { normaliseEmail } from '#functions/contract/emails.js';
import { BadRequestError } from '#functions/shared/errors.js';
import { jsonString, optionalQuery, queryString, rule } from '#functions/shared/request-schema.js';
import { javaTrim } from './rules.js';

/** The reference's `normalizeAndValidateStringParam`: trimmed, and 400 when nothing is left. */
export function nonEmpty(value: string, field: string): string {
  const trimmed = javaTrim(value);
  if (trimmed === '') throw new BadRequestError(`Field name '${field}' cannot be an empty String`);
  return trimmed;
}

export const emailOf = (value: string, field: string) => normaliseEmail(nonEmpty(value, field));

export const EITHER = "Either field 'email' or 'userId' must be present";

/** `POST /recipe/dashboard/signin` body: `email`, `password` (strings, not blank). */
export const signInRequest = z.object({
  email: rule(jsonString(), (email) => emailOf(email, 'email')),
  password: rule(jsonString(), (password) => nonEmpty(password, 'password')),
});

/** `POST /recipe/dashboard/session/verify` body: `sessionId`. */
export const sessionIdRequest = z.object({
  sessionId: rule(jsonString(), (sessionId) => nonEmpty(sessionId, 'sessionId')),
});

/** `DELETE /recipe/dashboard/session?sessionId=`. */
export const sessionIdQuery = z.object({
  sessionId: rule(queryString(), (sessionId) => nonEmpty(sessionId, 'sessionId')),
});

/** `GET /recipe/dashboard/user/sessions?userId=`. */
export const userIdQuery = z.object({ userId: rule(queryString(), (userId) => nonEmpty(userId, 'userId')) });

/** `DELETE /recipe/dashboard/user?userId=` or `?email=`: the user by `userId`, else by `email`. */
export const deleteUserQuery = rule(z.object({ userId: optionalQuery(), email: optionalQuery() }), (query) => {
  if (query.userId !== undefined) return { user: { userId: nonEmpty(query.userId, 'userId') } };
  if (query.email !== undefined) return { user: { email: emailOf(query.email, 'email') } };
  throw new BadRequestError(EITHER);
});
