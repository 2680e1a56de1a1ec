/**
 * Request-level validation for the two bulk-import entry points (docs/reference-behaviour.md "Staging users", "Importing one user") and the
 * success body of `POST /bulk-import/users`. Pure; per-user rules live in validate-user.ts.
 */
import { MAX_USERS_PER_STAGING_REQUEST } from '#functions/contract/import-payload.js';
import { checkTimeLeft } from '#functions/shared/call-budget.js';
import { BadRequestError, JsonBadRequestError } from '#functions/shared/errors.js';
import type { ImportUser } from '../import/types.js';
import { type ImportValidationContext, validateImportUser } from './validate-user.js';

/** 400 text (plain) when `users` is missing or not an array. */
export const USERS_FIELD_INVALID_MESSAGE = "Field name 'users' is invalid in JSON input";

/** 400 JSON body when more than {@link MAX_USERS_PER_STAGING_REQUEST} users are sent. */
export const TOO_MANY_USERS_ERROR_BODY: Readonly<{ error: string }> = Object.freeze({
  error: 'You can only add 10000 users at a time.',
});

/** `error` of the 400 JSON body listing invalid users. */
export const INVALID_USERS_ERROR_MESSAGE =
  'Data has missing or invalid fields. Please check the users field for more details.';

/** 200 body for an empty `users` array (no `users` key). */
export const EMPTY_STAGING_RESPONSE_BODY: Readonly<{ status: 'OK' }> = Object.freeze({ status: 'OK' });

interface InvalidUserEntry {
  /** Position in the request's `users` array. */
  index: number;
  /** In evaluation order. */
  errors: string[];
}

/** `{"error":"Data has missing or invalid fields. …","users":[{"index":i,"errors":[…]}]}`. */
interface InvalidUsersErrorBody {
  error: string;
  users: InvalidUserEntry[];
}

/** `{"errors":[…]}` of `POST /bulk-import/import`. */
interface SingleImportErrorBody {
  errors: string[];
}

export type StagingBodyPrecheck =
  | { kind: 'usersFieldInvalid'; message: string }
  | { kind: 'empty' }
  | { kind: 'tooManyUsers'; body: { error: string } }
  | { kind: 'ok'; users: unknown[] };

/**
 * The checks of "Staging users" (docs/reference-behaviour.md) that precede the app/tenant checks, in order: `users` missing / not an array → 400 text
 * {@link USERS_FIELD_INVALID_MESSAGE}; empty → 200 {@link EMPTY_STAGING_RESPONSE_BODY}; more than 10000 → 400
 * JSON {@link TOO_MANY_USERS_ERROR_BODY}. The body itself must already be a JSON object.
 */
export function precheckStagingBody(body: unknown): StagingBodyPrecheck {
  const users =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as { users?: unknown }).users : undefined;
  if (!Array.isArray(users)) return { kind: 'usersFieldInvalid', message: USERS_FIELD_INVALID_MESSAGE };
  if (users.length === 0) return { kind: 'empty' };
  if (users.length > MAX_USERS_PER_STAGING_REQUEST) return { kind: 'tooManyUsers', body: TOO_MANY_USERS_ERROR_BODY };
  return { kind: 'ok', users };
}

/**
 * The users of a `POST /bulk-import/users` body after the checks that precede the app checks:
 * `[]` for an empty list (answered 200 for any app); the core's 400 otherwise.
 */
export function stagingUsersOf(body: unknown): unknown[] {
  const precheck = precheckStagingBody(body);
  switch (precheck.kind) {
    case 'usersFieldInvalid':
      throw new BadRequestError(precheck.message);
    case 'tooManyUsers':
      throw new JsonBadRequestError(precheck.body);
    case 'empty':
      return [];
    case 'ok':
      return precheck.users;
  }
}

/** Users validated between two looks at the request's time. */
const VALIDATION_TIME_CHECK_EVERY = 500;

export type StagingRequestValidation = { ok: true; users: ImportUser[] } | { ok: false; body: InvalidUsersErrorBody };

/**
 * Validates every user of a `POST /bulk-import/users` body (docs/reference-behaviour.md "Staging users"), as
 * {@link stagingUsersOf} hands them over (the body's checks are behind them). All-or-nothing: either every user
 * is valid (normalised users in request order) or the 400 JSON body listing only the invalid users.
 * `externalUserId` must be unique across all users of the request, invalid ones included (first occurrence
 * wins). Throws `BudgetExhaustedError` when the request's time runs out on the way (nothing was written).
 */
export function validateStagingRequest(
  rawUsers: readonly unknown[],
  ctx: ImportValidationContext,
): StagingRequestValidation {
  const seenExternalUserIds = new Set<string>();
  const users: ImportUser[] = [];
  const invalid: InvalidUserEntry[] = [];
  for (let index = 0; index < rawUsers.length; index++) {
    // 10,000 users take a while on a busy core: the request's time is checked as they go.
    if (index % VALIDATION_TIME_CHECK_EVERY === VALIDATION_TIME_CHECK_EVERY - 1) checkTimeLeft('validating the users');
    const result = validateImportUser(rawUsers[index], ctx, { seenExternalUserIds, staging: true });
    if (result.ok) users.push(result.user);
    else invalid.push({ index, errors: result.errors });
  }
  if (invalid.length > 0) return { ok: false, body: { error: INVALID_USERS_ERROR_MESSAGE, users: invalid } };
  return { ok: true, users };
}

export type SingleImportValidation = { ok: true; user: ImportUser } | { ok: false; body: SingleImportErrorBody };

/** Validates the body of `POST /bulk-import/import` (docs/reference-behaviour.md "Importing one user"): one user object; errors as `{"errors":[…]}`. */
export function validateSingleImport(body: unknown, ctx: ImportValidationContext): SingleImportValidation {
  const result = validateImportUser(body, ctx);
  return result.ok ? { ok: true, user: result.user } : { ok: false, body: { errors: result.errors } };
}

// ------------------------------------------------------------------------------------------------
// Success body of POST /bulk-import/users

type StagedLoginMethodSummary =
  | { recipeId: 'emailpassword'; userId: string; tenants: string[]; email: string }
  | {
      recipeId: 'thirdparty';
      userId: string;
      tenants: string[];
      email: string;
      thirdpartyId: string;
      thirdpartyUserId: string;
    }
  | { recipeId: 'passwordless'; userId: string; tenants: string[]; email: string | null; phoneNumber: string | null };

interface StagedUserSummary {
  /** `externalUserId` when given, else the staged id. */
  userId: string;
  loginMethods: StagedLoginMethodSummary[];
}

export interface StagingSuccessBody {
  status: 'OK';
  users: StagedUserSummary[];
}

/**
 * `{"status":"OK","users":[{"userId":…,"loginMethods":[{"recipeId","userId","tenants","email",…}]}]}` in
 * request order. thirdparty entries add `thirdpartyId`/`thirdpartyUserId` (lower-case "p"); passwordless
 * entries always carry `email` and `phoneNumber` (null when absent).
 */
export function buildStagingSuccessBody(users: readonly ImportUser[]): StagingSuccessBody {
  return {
    status: 'OK',
    users: users.map((user) => ({
      userId: user.externalUserId ?? user.id,
      loginMethods: user.loginMethods.map((lm): StagedLoginMethodSummary => {
        const userId = lm.superTokensUserId;
        const tenants = lm.tenantIds;
        switch (lm.recipeId) {
          case 'emailpassword':
            return { recipeId: lm.recipeId, userId, tenants, email: lm.email };
          case 'thirdparty':
            return {
              recipeId: lm.recipeId,
              userId,
              tenants,
              email: lm.email,
              thirdpartyId: lm.thirdPartyId,
              thirdpartyUserId: lm.thirdPartyUserId,
            };
          default:
            return {
              recipeId: lm.recipeId,
              userId,
              tenants,
              email: lm.email ?? null,
              phoneNumber: lm.phoneNumber ?? null,
            };
        }
      }),
    })),
  };
}
