/**
 * What linking does to user records, as pure functions (docs/thirdparty-and-account-linking.md):
 * a primary user is one record holding every login method of its group; linking moves a
 * standalone recipe user's only login method (and its external id) into the primary's record,
 * unlinking moves one back out into a standalone record of its own. The storage write derives
 * every item (account infos, reservations, LINK items, list entries, counters) from the records
 * before and after, so these functions only say what the records become.
 */
import type { LoginMethodRecord, UserRecord } from '#functions/domain/users/model.js';
import type { TenantAccountInfo } from '#functions/domain/users/ports.js';

/** Which account info a reservation check is about; it picks the reference's description. */
export type AccountInfoKind = 'email' | 'phoneNumber' | 'thirdParty';

export const CONFLICT_DESCRIPTIONS: Readonly<Record<AccountInfoKind, string>> = {
  email: "This user's email is already associated with another user ID",
  phoneNumber: "This user's phone number is already associated with another user ID",
  thirdParty: "This user's third party login is already associated with another user ID",
};

export interface AccountInfoCheck {
  readonly kind: AccountInfoKind;
  readonly info: TenantAccountInfo;
}

/** The account infos of a login method in a tenant, in the reference's order: email, phone, third party. */
export function accountInfoChecks(lm: LoginMethodRecord, tenantId: string): AccountInfoCheck[] {
  const checks: AccountInfoCheck[] = [];
  if (lm.email !== undefined) checks.push({ kind: 'email', info: { tenantId, email: lm.email } });
  if (lm.phoneNumber !== undefined) {
    checks.push({ kind: 'phoneNumber', info: { tenantId, phoneNumber: lm.phoneNumber } });
  }
  if (lm.thirdPartyId !== undefined && lm.thirdPartyUserId !== undefined) {
    checks.push({
      kind: 'thirdParty',
      info: { tenantId, thirdParty: { id: lm.thirdPartyId, userId: lm.thirdPartyUserId } },
    });
  }
  return checks;
}

const earliest = (methods: readonly LoginMethodRecord[]) => Math.min(...methods.map((lm) => lm.timeJoined));

/** A standalone recipe user made primary: its account infos become reserved in its tenants. */
export function asPrimary(user: UserRecord): UserRecord {
  return { ...user, isPrimaryUser: true, version: user.version + 1 };
}

/**
 * `recipe` (a standalone recipe user) linked under `primary`: one record with both groups' login
 * methods and external ids; it joined when its oldest login method did (time-joined normalisation).
 */
export function linked(primary: UserRecord, recipe: UserRecord): UserRecord {
  const loginMethods = [...primary.loginMethods, ...recipe.loginMethods];
  return {
    ...primary,
    loginMethods,
    externalIds: { ...primary.externalIds, ...recipe.externalIds },
    timeJoined: Math.min(primary.timeJoined, earliest(recipe.loginMethods)),
    version: primary.version + 1,
  };
}

/**
 * The primary user without the login method `recipeUserId`; undefined when none would remain.
 * `keepExternalId`: the removed id's mapping stays with the group (the primary's own id, which
 * the group keeps).
 */
export function without(primary: UserRecord, recipeUserId: string, keepExternalId: boolean): UserRecord | undefined {
  const loginMethods = primary.loginMethods.filter((lm) => lm.recipeUserId !== recipeUserId);
  if (loginMethods.length === 0) return undefined;
  const externalIds = keepExternalId
    ? primary.externalIds
    : Object.fromEntries(Object.entries(primary.externalIds).filter(([id]) => id !== recipeUserId));
  return { ...primary, loginMethods, externalIds, timeJoined: earliest(loginMethods), version: primary.version + 1 };
}

/** A login method taken out of its primary user: a standalone recipe user again, with its external id. */
export function standalone(primary: UserRecord, method: LoginMethodRecord): UserRecord {
  const mapping = primary.externalIds[method.recipeUserId];
  return {
    userId: method.recipeUserId,
    isPrimaryUser: false,
    timeJoined: method.timeJoined,
    loginMethods: [method],
    externalIds: mapping ? { [method.recipeUserId]: mapping } : {},
    version: 1,
  };
}

/** A primary user with a single login method, its own, made a standalone recipe user again. */
export function asRecipeUser(user: UserRecord): UserRecord {
  return { ...user, isPrimaryUser: false, version: user.version + 1 };
}
