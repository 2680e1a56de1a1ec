/**
 * Third-party sign-in-up (`POST /<t>/recipe/signinup`), with the reference core's rules
 * (docs/thirdparty-and-account-linking.md): a third-party login is found by (thirdPartyId,
 * thirdPartyUserId) in the tenant — created when there is none, a new standalone recipe user —
 * and its email follows the provider's: when it changed, the login method's email is rewritten,
 * and if the user is primary (or linked under one) the new email must not be held by another
 * primary user in any of its tenants (`EMAIL_CHANGE_NOT_ALLOWED_ERROR`). `email.isVerified`
 * marks that email verified; an unverified sign-in never unverifies it.
 *
 * Uniqueness is the write's: the third-party id's uniqueness item and the primary user's
 * reservations are conditional writes in the transaction that creates or rewrites the user, so
 * two sign-ins of one new third-party user at once create one user.
 */

import { normaliseEmail } from '#functions/contract/emails.js';
import { recipeAllowed } from '#functions/domain/multitenancy/factors.js';
import type { TenantRecord } from '#functions/domain/multitenancy/tenant.js';
import type { UsersDeps } from '#functions/domain/users/deps.js';
import {
  externalIdOf,
  type LoginMethodRecord,
  newRecipeUser,
  toUserJson,
  type UserJson,
  type UserRecord,
} from '#functions/domain/users/model.js';
import { writePlan } from '#functions/domain/users/write.js';
import { cdiAtLeast } from '#functions/shared/cdi.js';
import { BackpressureError, BadRequestError, ForbiddenError, invalidFieldMessage } from '#functions/shared/errors.js';
import { checkIdLength } from '#functions/shared/id-limits.js';
import { optionalBoolean, optionalObject, requiredString } from '#functions/shared/input.js';

export interface SignInUpInput {
  readonly thirdPartyId: string;
  readonly thirdPartyUserId: string;
  /** As sent; normalised (trimmed, lower-cased) by the use case. */
  readonly email: string;
  readonly isVerified: boolean;
}

export type SignInUpAnswer =
  | { status: 'OK'; createdNewUser: boolean; user: UserJson; recipeUserId: string }
  | { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR'; reason: string };

const EMAIL_CHANGE_NOT_ALLOWED_REASON = 'Email already associated with another primary user.';
const NOT_ENABLED_MESSAGE = 'ThirdParty login not enabled for tenant';

/**
 * The body `{thirdPartyId, thirdPartyUserId, email: {id, isVerified}}` with the reference's parser
 * messages; `email.isVerified` exists from CDI 4.0 (before it, sign-ins never verify). Ids longer
 * than a key can hold are refused (`Field name '…' is too long. Max length is ….`), and so is a
 * `#` in the thirdPartyId, which separates it from the user id in the third-party key.
 */
export function parseSignInUp(body: Readonly<Record<string, unknown>>, cdiVersion: string): SignInUpInput {
  const thirdPartyId = requiredString(body, 'thirdPartyId');
  const thirdPartyUserId = requiredString(body, 'thirdPartyUserId');
  const emailObject = optionalObject(body, 'email');
  if (emailObject === undefined) throw new BadRequestError(invalidFieldMessage('email'));
  const email = requiredString(emailObject, 'id');
  let isVerified = false;
  if (cdiAtLeast(cdiVersion, '4.0')) {
    const flag = optionalBoolean(emailObject, 'isVerified');
    if (flag === undefined) throw new BadRequestError(invalidFieldMessage('isVerified'));
    isVerified = flag;
  }
  checkIdLength('thirdPartyId', thirdPartyId);
  checkIdLength('thirdPartyUserId', thirdPartyUserId);
  checkIdLength('email', email.trim());
  if (thirdPartyId.includes('#')) throw new BadRequestError("Field name 'thirdPartyId' cannot contain '#'");
  return { thirdPartyId, thirdPartyUserId, email, isVerified };
}

/**
 * Whether the tenant lets third-party logins in at this CDI version: always from 5.1; before, as
 * the tenant's legacy switch and first factors say (403 `ThirdParty login not enabled for tenant`).
 */
function assertThirdPartyEnabled(tenant: TenantRecord, cdiVersion: string): void {
  if (!recipeAllowed(tenant, 'thirdParty', cdiVersion)) throw new ForbiddenError(NOT_ENABLED_MESSAGE);
}

/** Rounds of "find, else create" / "rewrite" lost to concurrent writes before giving up (503). */
const ATTEMPTS = 5;

const isLogin = (lm: LoginMethodRecord, tenantId: string, input: SignInUpInput) =>
  lm.recipeId === 'thirdparty' &&
  lm.thirdPartyId === input.thirdPartyId &&
  lm.thirdPartyUserId === input.thirdPartyUserId &&
  lm.tenantIds.includes(tenantId);

/** The user holding this third-party login in the tenant, and the login method itself. */
async function findLogin(
  deps: UsersDeps,
  target: { appId: string; tenantId: string },
  input: SignInUpInput,
): Promise<{ user: UserRecord; method: LoginMethodRecord } | undefined> {
  const [owners = []] = await deps.store.usersByAccountInfo(target.appId, target.tenantId, {
    thirdParty: { id: input.thirdPartyId, userId: input.thirdPartyUserId },
  });
  for (const user of owners) {
    const method = user.loginMethods.find((lm) => isLogin(lm, target.tenantId, input));
    if (method) return { user, method };
  }
  return undefined;
}

const ok = (createdNewUser: boolean, user: UserRecord, recipeUserId: string): SignInUpAnswer => ({
  status: 'OK',
  createdNewUser,
  user: toUserJson(user),
  recipeUserId: externalIdOf(user, recipeUserId),
});

export interface SignInUpTarget {
  readonly appId: string;
  readonly tenantId: string;
  /** The path's tenant (its legacy switches matter below CDI 5.1). */
  readonly tenant: TenantRecord;
  readonly cdiVersion: string;
}

/** `POST /<t>/recipe/signinup`. */
export async function thirdPartySignInUp(
  deps: UsersDeps,
  target: SignInUpTarget,
  input: SignInUpInput,
): Promise<SignInUpAnswer> {
  assertThirdPartyEnabled(target.tenant, target.cdiVersion);
  const email = normaliseEmail(input.email);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const found = await findLogin(deps, target, input);
    if (!found) {
      const created = await createLogin(deps, target, input, email);
      if (created) return created;
      continue; // created by a concurrent sign-in meanwhile: found next round
    }
    const { user, method } = found;
    const emailChanged = method.email !== email;
    // An unverified sign-in never unverifies; a changed email is verified only if the provider says so.
    const verified = input.isVerified || (!emailChanged && method.verified);
    if (!emailChanged && verified === method.verified) return ok(false, user, method.recipeUserId);
    const after: UserRecord = {
      ...user,
      loginMethods: user.loginMethods.map((lm) => (lm === method ? { ...lm, email, verified } : lm)),
      version: user.version + 1,
    };
    const result = await writePlan(deps.store, target.appId, { changes: [{ before: user, after }] });
    if (result.ok) return ok(false, after, method.recipeUserId);
    const userChanged = result.failed.some((e) => e.kind === 'user');
    if (!userChanged && result.failed.some((e) => e.kind === 'primaryAccountInfo')) {
      return { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR', reason: EMAIL_CHANGE_NOT_ALLOWED_REASON };
    }
    // The user changed since it was read: read again.
  }
  throw new BackpressureError('conflict', 'third-party sign-in-up kept conflicting with concurrent changes');
}

/** A new standalone recipe user with this third-party login; undefined when the login was taken meanwhile. */
async function createLogin(
  deps: UsersDeps,
  target: { appId: string; tenantId: string },
  input: SignInUpInput,
  email: string,
): Promise<SignInUpAnswer | undefined> {
  const userId = deps.newId();
  const { user } = newRecipeUser(userId, deps.now(), target.tenantId, {
    recipeId: 'thirdparty',
    verified: input.isVerified,
    email,
    thirdPartyId: input.thirdPartyId,
    thirdPartyUserId: input.thirdPartyUserId,
  });
  const result = await writePlan(deps.store, target.appId, { changes: [{ after: user }] });
  return result.ok ? ok(true, user, userId) : undefined;
}
