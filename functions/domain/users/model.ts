/**
 * The user model the core stores and returns (docs/reference-behaviour.md "The user object"): a *user* is a primary user or a
 * standalone recipe user; it embeds its login methods (recipe users). Pure data and helpers.
 */
const USER_RECIPE_IDS = ['emailpassword', 'thirdparty', 'passwordless', 'webauthn'] as const;
type UserRecipeId = (typeof USER_RECIPE_IDS)[number];

/** Recipe ids the listing/count filters accept. */
export const FILTER_RECIPE_IDS = USER_RECIPE_IDS;

export interface LoginMethodRecord {
  readonly recipeId: UserRecipeId;
  /** The recipe user id (a SuperTokens id, never an external one). */
  readonly recipeUserId: string;
  readonly tenantIds: readonly string[];
  readonly timeJoined: number;
  /** Email verification state of this login method's email. */
  readonly verified: boolean;
  readonly email?: string;
  readonly phoneNumber?: string;
  readonly thirdPartyId?: string;
  readonly thirdPartyUserId?: string;
  /** emailpassword only; never leaves storage except to be verified. */
  readonly passwordHash?: string;
  /**
   * emailpassword only: the password is still with the legacy system, checked through the app's
   * password-migration hook at the first sign-in (docs/password-migration-hook.md); set without a
   * `passwordHash`, and removed when one is stored.
   */
  readonly passwordMigration?: 'hook';
  /**
   * webauthn only: the ids of the passkeys registered to this login method, oldest first. The
   * credentials themselves (public key, signature counter) are items of their own
   * (storage/webauthn-store.ts); this list is what the user object shows and is written in the
   * same transaction as they are (docs/passkeys.md "What is stored").
   */
  readonly webauthnCredentialIds?: readonly string[];
}

interface ExternalIdRecord {
  readonly externalUserId: string;
  readonly externalUserIdInfo?: string;
}

export interface UserRecord {
  /** Primary user id, or the recipe user id of a standalone recipe user. */
  readonly userId: string;
  readonly isPrimaryUser: boolean;
  /** Minimum over the login methods (time-joined normalisation of a linked group). */
  readonly timeJoined: number;
  readonly loginMethods: readonly LoginMethodRecord[];
  /** SuperTokens id (the user id or one of its recipe user ids) → external id mapping. */
  readonly externalIds: Readonly<Record<string, ExternalIdRecord>>;
  /** Optimistic-concurrency version; 0 before the first write. */
  readonly version: number;
}

/**
 * A user signing up (email/password, third party, passwordless): a standalone recipe user of one
 * login method in one tenant, joined `now`, with no external id, before its first write.
 */
export function newRecipeUser(
  userId: string,
  now: number,
  tenantId: string,
  method: Omit<LoginMethodRecord, 'recipeUserId' | 'tenantIds' | 'timeJoined'>,
): { user: UserRecord; method: LoginMethodRecord } {
  const { recipeId, ...fields } = method;
  const record: LoginMethodRecord = {
    recipeId,
    recipeUserId: userId,
    tenantIds: [tenantId],
    timeJoined: now,
    ...fields,
  };
  return {
    user: { userId, isPrimaryUser: false, timeJoined: now, loginMethods: [record], externalIds: {}, version: 1 },
    method: record,
  };
}

/** A field users are searched by (docs/users.md "Searching users"); storage indexes each. */
export type SearchField = 'email' | 'phone' | 'provider';

/** The part of an email after its first `@` (the whole email when it has none): searched too. */
export function emailDomain(email: string): string {
  return email.slice(email.indexOf('@') + 1);
}

/** What a provider search term is matched against: `<thirdPartyId>::<thirdPartyUserId>`. */
export const providerValue = (thirdPartyId: string, thirdPartyUserId: string) => `${thirdPartyId}::${thirdPartyUserId}`;

interface LoginMethodJson {
  recipeId: UserRecipeId;
  recipeUserId: string;
  tenantIds: string[];
  email?: string;
  phoneNumber?: string;
  thirdParty?: { id: string; userId: string };
  webauthn?: { credentialIds: string[] };
  verified: boolean;
  timeJoined: number;
}

/** The user object of CDI 5.4 (`AuthRecipeUserInfo`); optional keys are omitted, never null. */
export interface UserJson {
  id: string;
  isPrimaryUser: boolean;
  tenantIds: string[];
  timeJoined: number;
  emails: string[];
  phoneNumbers: string[];
  thirdParty: { id: string; userId: string }[];
  webauthn: { credentialIds: string[] };
  loginMethods: LoginMethodJson[];
}

function unique<T>(values: Iterable<T>, key: (v: T) => string = String): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const v of values) {
    const k = key(v);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(v);
  }
  return out;
}

/** Tenants of a user: the union of its login methods' tenants, in first-seen order. */
export function userTenantIds(user: Pick<UserRecord, 'loginMethods'>): string[] {
  return unique(user.loginMethods.flatMap((lm) => lm.tenantIds));
}

/** Bit of a recipe in a recipe-combination mask (1, 2, 4, 8). */
export function recipeBit(recipeId: string): number {
  const index = (USER_RECIPE_IDS as readonly string[]).indexOf(recipeId);
  return index < 0 ? 0 : 1 << index;
}

/** Which recipes a user has login methods of, as a mask (1 … 15). */
export function recipeMask(user: Pick<UserRecord, 'loginMethods'>): number {
  return user.loginMethods.reduce((mask, lm) => mask | recipeBit(lm.recipeId), 0);
}

/**
 * A login method's verification state as the user object shows it: its email's state, and true
 * for a passwordless login method without an email (a phone number only), as in the reference.
 */
function isVerified(lm: Pick<LoginMethodRecord, 'recipeId' | 'email' | 'verified'>): boolean {
  return lm.verified || (lm.recipeId === 'passwordless' && lm.email === undefined);
}

export function externalIdOf(user: UserRecord, superTokensId: string): string {
  return user.externalIds[superTokensId]?.externalUserId ?? superTokensId;
}

/** The CDI user object; ids are replaced by their external ids where mapped. */
export function toUserJson(user: UserRecord): UserJson {
  const methods = [...user.loginMethods].sort((a, b) => a.timeJoined - b.timeJoined);
  const loginMethods = methods.map((lm): LoginMethodJson => {
    const json: LoginMethodJson = {
      recipeId: lm.recipeId,
      recipeUserId: externalIdOf(user, lm.recipeUserId),
      tenantIds: [...lm.tenantIds],
      verified: isVerified(lm),
      timeJoined: lm.timeJoined,
    };
    if (lm.email !== undefined) json.email = lm.email;
    if (lm.phoneNumber !== undefined) json.phoneNumber = lm.phoneNumber;
    if (lm.thirdPartyId !== undefined && lm.thirdPartyUserId !== undefined) {
      json.thirdParty = { id: lm.thirdPartyId, userId: lm.thirdPartyUserId };
    }
    if (lm.recipeId === 'webauthn') json.webauthn = { credentialIds: [...(lm.webauthnCredentialIds ?? [])] };
    return json;
  });
  return {
    id: externalIdOf(user, user.userId),
    isPrimaryUser: user.isPrimaryUser,
    tenantIds: userTenantIds(user),
    timeJoined: user.timeJoined,
    emails: unique(methods.flatMap((lm) => (lm.email === undefined ? [] : [lm.email]))),
    phoneNumbers: unique(methods.flatMap((lm) => (lm.phoneNumber === undefined ? [] : [lm.phoneNumber]))),
    thirdParty: unique(
      loginMethods.flatMap((lm) => (lm.thirdParty ? [lm.thirdParty] : [])),
      (tp) => `${tp.id}\u0000${tp.userId}`,
    ),
    webauthn: { credentialIds: unique(loginMethods.flatMap((lm) => lm.webauthn?.credentialIds ?? [])) },
    loginMethods,
  };
}
