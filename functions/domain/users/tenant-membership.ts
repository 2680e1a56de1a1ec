/**
 * A recipe user joining or leaving a tenant: `POST /<t>/recipe/multitenancy/tenant/user` and
 * `POST /<t>/recipe/multitenancy/tenant/user/remove` (docs/users.md "Tenant membership"). The SDK
 * also calls the first inside a sign-in, when a primary user's credentials of another tenant sign
 * it in to this one. One user write each: the login method's tenants change, and the derived
 * items follow (its account infos in the tenant with their uniqueness conditions, a primary
 * user's reservations there, the tenant's user list and counts).
 */
import { BadRequestError } from '#functions/shared/errors.js';
import { requiredString } from '#functions/shared/input.js';
import { READ_AGAIN, type RereadPolicy, reread } from '#functions/shared/rereads.js';
import type { UsersDeps } from './deps.js';
import { resolveUser } from './lookup.js';
import { externalIdOf, type LoginMethodRecord, type UserRecord } from './model.js';
import type { TenantAccountInfo } from './ports.js';
import { writePlan } from './write.js';

const MEMBERSHIP_REREADS: RereadPolicy = {
  attempts: 5,
  exhausted: 'tenant membership change kept conflicting with concurrent changes',
};

/** The body of both routes: `recipeUserId` (`userId` before CDI 4.0), trimmed and non-empty. */
export function parseTenantUserBody(body: Readonly<Record<string, unknown>>, cdi4: boolean): { recipeUserId: string } {
  const recipeUserId = requiredString(body, cdi4 ? 'recipeUserId' : 'userId').trim();
  if (recipeUserId === '') throw new BadRequestError("Field name 'userId' cannot be an empty String");
  return { recipeUserId };
}

type Target = { readonly appId: string; readonly tenantId: string };

/** The user and the login method a SuperTokens recipe user id (or its external id) names. */
async function findMethod(deps: UsersDeps, appId: string, recipeUserId: string) {
  const found = await resolveUser(deps, appId, recipeUserId);
  const method = found?.user.loginMethods.find((lm) => lm.recipeUserId === found.superTokensId);
  return found && method ? { user: found.user, method, superTokensId: found.superTokensId } : undefined;
}

function withTenants(user: UserRecord, method: LoginMethodRecord, tenantIds: string[]): UserRecord {
  return {
    ...user,
    loginMethods: user.loginMethods.map((lm) => (lm === method ? { ...lm, tenantIds } : lm)),
    version: user.version + 1,
  };
}

/** Every account info of a user's login methods, in one tenant (what a primary user reserves there). */
function accountInfosIn(user: UserRecord, tenantId: string): TenantAccountInfo[] {
  return user.loginMethods.flatMap((lm): TenantAccountInfo[] => [
    ...(lm.thirdPartyId !== undefined && lm.thirdPartyUserId !== undefined
      ? [{ tenantId, thirdParty: { id: lm.thirdPartyId, userId: lm.thirdPartyUserId } }]
      : []),
    ...(lm.email !== undefined ? [{ tenantId, email: lm.email }] : []),
    ...(lm.phoneNumber !== undefined ? [{ tenantId, phoneNumber: lm.phoneNumber }] : []),
  ]);
}

/**
 * Why a primary user may not enter the tenant: the first of its account infos another primary
 * user holds there, a third-party login first (the reference's `reason`).
 */
async function associationConflict(deps: UsersDeps, appId: string, user: UserRecord, tenantId: string) {
  const infos = accountInfosIn(user, tenantId);
  const holders = await deps.store.primaryUsersHolding(appId, infos);
  const conflicts = infos
    .map((info, i) => ({ info, holder: holders[i] }))
    .filter(
      (c): c is { info: TenantAccountInfo; holder: string } => c.holder !== undefined && c.holder !== user.userId,
    );
  const first = conflicts.find((c) => 'thirdParty' in c.info) ?? conflicts[0];
  if (!first) return undefined;
  const what = 'thirdParty' in first.info ? 'third party info' : 'email' in first.info ? 'email' : 'phone number';
  return `Another primary user with ${what} already exists: ${first.holder}`;
}

export type AssociateAnswer =
  | { status: 'OK'; wasAlreadyAssociated: boolean }
  | { status: 'UNKNOWN_USER_ID_ERROR' }
  | { status: 'EMAIL_ALREADY_EXISTS_ERROR' }
  | { status: 'PHONE_NUMBER_ALREADY_EXISTS_ERROR' }
  | { status: 'THIRD_PARTY_USER_ALREADY_EXISTS_ERROR' }
  | { status: 'ASSOCIATION_NOT_ALLOWED_ERROR'; reason: string };

/**
 * Adds the tenant to a recipe user's login method. A primary (or linked) user must not meet
 * another primary user's account info in the tenant (`ASSOCIATION_NOT_ALLOWED_ERROR`, checked
 * first, as the reference does); the login method's email, phone number or third-party login must
 * be free among the tenant's users of its recipe (`…_ALREADY_EXISTS_ERROR`).
 */
export async function associateUserToTenant(
  deps: UsersDeps,
  target: Target,
  input: { recipeUserId: string },
): Promise<AssociateAnswer> {
  return reread(MEMBERSHIP_REREADS, async () => {
    const found = await findMethod(deps, target.appId, input.recipeUserId);
    if (!found) return { status: 'UNKNOWN_USER_ID_ERROR' } as const;
    const { user, method } = found;
    if (method.tenantIds.includes(target.tenantId)) return { status: 'OK', wasAlreadyAssociated: true } as const;
    const after = withTenants(user, method, [...method.tenantIds, target.tenantId]);
    const result = await writePlan(deps.store, target.appId, { changes: [{ before: user, after }] });
    if (result.ok) return { status: 'OK', wasAlreadyAssociated: false } as const;
    const kinds = new Set(result.failed.map((e) => e.kind));
    if (kinds.has('primaryAccountInfo')) {
      const reason = await associationConflict(deps, target.appId, after, target.tenantId);
      if (reason) return { status: 'ASSOCIATION_NOT_ALLOWED_ERROR', reason } as const;
      return READ_AGAIN;
    }
    if (kinds.has('uniqueThirdParty')) return { status: 'THIRD_PARTY_USER_ALREADY_EXISTS_ERROR' } as const;
    if (kinds.has('uniqueEmail')) return { status: 'EMAIL_ALREADY_EXISTS_ERROR' } as const;
    if (kinds.has('uniquePhone')) return { status: 'PHONE_NUMBER_ALREADY_EXISTS_ERROR' } as const;
    // The user changed since it was read (its version guard): read it again.
    return READ_AGAIN;
  });
}

/**
 * Takes the tenant from a recipe user's login method, after deleting what is kept under its id
 * (its external id when it has one) for that tenant: role assignments, email-verification tokens,
 * TOTP attempt records and sessions there. `wasAssociated` is true when the user was in the
 * tenant or had any of that there. A user may be left in no tenant.
 */
export async function disassociateUserFromTenant(
  deps: UsersDeps,
  target: Target,
  input: { recipeUserId: string },
): Promise<{ status: 'OK'; wasAssociated: boolean } | { status: 'UNKNOWN_USER_ID_ERROR' }> {
  const found = await findMethod(deps, target.appId, input.recipeUserId);
  if (!found) return { status: 'UNKNOWN_USER_ID_ERROR' };
  const dataIds = new Set([externalIdOf(found.user, found.superTokensId), found.superTokensId]);
  let hadData = false;
  for (const id of dataIds) {
    hadData = (await deps.store.purgeUserIdTenantData(target.appId, id, target.tenantId)) || hadData;
  }
  return reread(MEMBERSHIP_REREADS, async () => {
    const again = await findMethod(deps, target.appId, input.recipeUserId);
    if (!again) return { status: 'UNKNOWN_USER_ID_ERROR' } as const;
    const { user, method } = again;
    if (!method.tenantIds.includes(target.tenantId)) return { status: 'OK', wasAssociated: hadData } as const;
    const after = withTenants(
      user,
      method,
      method.tenantIds.filter((t) => t !== target.tenantId),
    );
    const result = await writePlan(deps.store, target.appId, { changes: [{ before: user, after }] });
    return result.ok ? ({ status: 'OK', wasAssociated: true } as const) : READ_AGAIN;
  });
}
