/**
 * Finding users: by id (a SuperTokens user or recipe-user id, or an external id) for `GET /user/id`
 * and the use cases that act on a named user, and by account info for `GET /<t>/users/by-accountinfo`.
 */
import { normaliseEmail } from '#functions/contract/emails.js';
import { normalisePhoneNumber } from '#functions/contract/phone-numbers.js';
import { BadRequestError } from '#functions/shared/errors.js';
import { canonicalCredentialId, isCredentialIdShape } from './credential-ids.js';
import type { UsersDeps } from './deps.js';
import { toUserJson, type UserRecord } from './model.js';
import type { UserStore } from './ports.js';

/**
 * The user a SuperTokens id (user or recipe user) or, failing that, an external id names.
 * Returns the user and the SuperTokens id the input stood for. The one such lookup: the session
 * use cases find the user a session names with it too.
 */
export async function resolveUser(
  deps: { readonly store: Pick<UserStore, 'getUserBySuperTokensId' | 'getMappingByExternalId'> },
  appId: string,
  userId: string,
): Promise<{ user: UserRecord; superTokensId: string } | undefined> {
  const direct = await deps.store.getUserBySuperTokensId(appId, userId);
  if (direct) return { user: direct, superTokensId: userId };
  const mapping = await deps.store.getMappingByExternalId(appId, userId);
  if (!mapping) return undefined;
  const user = await deps.store.getUserBySuperTokensId(appId, mapping.superTokensUserId);
  return user ? { user, superTokensId: mapping.superTokensUserId } : undefined;
}

/** `GET /user/id`: `{status:"OK", user}` or `UNKNOWN_USER_ID_ERROR`. */
export async function getUser(deps: UsersDeps, appId: string, userId: string) {
  const found = await resolveUser(deps, appId, userId);
  return found ? { status: 'OK', user: toUserJson(found.user) } : { status: 'UNKNOWN_USER_ID_ERROR' };
}

export interface AccountInfoInput {
  readonly email?: string;
  readonly phoneNumber?: string;
  readonly thirdPartyId?: string;
  readonly thirdPartyUserId?: string;
  readonly webauthnCredentialId?: string;
  readonly doUnionOfAccountInfo: boolean;
}

/**
 * `GET /<t>/users/by-accountinfo`: users matching all (or, with union, any) of the given infos; a
 * passkey id finds its user whatever the tenant, as in the reference.
 */
export async function usersByAccountInfo(
  deps: UsersDeps,
  target: { appId: string; tenantId: string },
  input: AccountInfoInput,
) {
  if ((input.thirdPartyId === undefined) !== (input.thirdPartyUserId === undefined)) {
    throw new BadRequestError(
      "If 'thirdPartyId' is provided, 'thirdPartyUserId' must also be provided, and vice versa",
    );
  }
  // A passkey id that cannot be one (not base64url, too long) finds no user and is not looked up.
  const passkey = input.webauthnCredentialId;
  const passkeyShaped = passkey === undefined || isCredentialIdShape(passkey);
  if (!passkeyShaped && !input.doUnionOfAccountInfo) return { status: 'OK', users: [] };
  const query = {
    ...(input.email !== undefined ? { email: normaliseEmail(input.email) } : {}),
    ...(input.phoneNumber !== undefined ? { phoneNumber: normalisePhoneNumber(input.phoneNumber) } : {}),
    ...(input.thirdPartyId !== undefined && input.thirdPartyUserId !== undefined
      ? { thirdParty: { id: input.thirdPartyId, userId: input.thirdPartyUserId } }
      : {}),
    ...(passkey !== undefined && passkeyShaped ? { webauthnCredentialId: canonicalCredentialId(passkey) } : {}),
  };
  const lists = await deps.store.usersByAccountInfo(target.appId, target.tenantId, query);
  const byId = new Map<string, UserRecord>();
  for (const list of lists) for (const user of list) byId.set(user.userId, user);
  let ids = [...byId.keys()];
  if (!input.doUnionOfAccountInfo) {
    ids = ids.filter((id) => lists.every((list) => list.some((u) => u.userId === id)));
  }
  const users = ids
    .map((id) => byId.get(id) as UserRecord)
    .sort((a, b) => a.timeJoined - b.timeJoined || a.userId.localeCompare(b.userId));
  return { status: 'OK', users: users.map(toUserJson) };
}
