/** `POST /user/remove`: a whole user or one of its login methods, with everything kept for it. */
import { READ_AGAIN, type RereadPolicy, reread } from '#functions/shared/rereads.js';
import type { UsersDeps } from './deps.js';
import { resolveUser } from './lookup.js';
import { externalIdOf, type UserRecord } from './model.js';
import { writePlan } from './write.js';

const USER_REMOVAL_REREADS: RereadPolicy = {
  attempts: 5,
  exhausted: 'user removal kept conflicting with concurrent changes',
};

/**
 * `POST /user/remove`. The whole user (all linked login methods) when `removeAllLinkedAccounts`
 * or when it has a single login method; else only the named recipe user's login method (the user
 * keeps its id, and its time joined becomes its earliest remaining login method's). Deletes
 * the user's items, account infos, mappings and counters in one transaction, then the roles,
 * metadata and TOTP devices of the removed ids. Unknown ids are not an error.
 */
export async function removeUser(
  deps: UsersDeps,
  appId: string,
  input: { userId: string; removeAllLinkedAccounts: boolean },
): Promise<{ status: 'OK' }> {
  return reread(USER_REMOVAL_REREADS, async () => {
    const found = await resolveUser(deps, appId, input.userId);
    if (!found) return { status: 'OK' };
    const { user, superTokensId } = found;
    const removeAll = input.removeAllLinkedAccounts || user.loginMethods.length === 1;
    // The primary user's own login method goes, the user stays under its id: the id keeps its
    // external id, metadata, roles and sessions, which the other login methods share (as in the
    // reference).
    const keepsId = !removeAll && superTokensId === user.userId;
    const removedIds = removeAll
      ? [user.userId, ...user.loginMethods.map((lm) => lm.recipeUserId)]
      : keepsId
        ? []
        : [superTokensId];
    const remaining = user.loginMethods.filter((lm) => lm.recipeUserId !== superTokensId);
    const after: UserRecord | undefined = removeAll
      ? undefined
      : {
          ...user,
          loginMethods: remaining,
          // The user joined when its earliest remaining login method did (the reference's rule).
          timeJoined: Math.min(...remaining.map((lm) => lm.timeJoined)),
          externalIds: keepsId
            ? user.externalIds
            : Object.fromEntries(Object.entries(user.externalIds).filter(([id]) => id !== superTokensId)),
          version: user.version + 1,
        };
    const dataIds = [...new Set(removedIds)].flatMap((id) => [
      id,
      ...(user.externalIds[id] ? [externalIdOf(user, id)] : []),
    ]);
    // User data first: an interrupted removal leaves the user, and removing again finishes it.
    await deps.store.purgeUserIdData(appId, dataIds);
    const result = await writePlan(deps.store, appId, { changes: [{ before: user, ...(after ? { after } : {}) }] });
    // The user changed since it was read (version guard): read again and retry.
    return result.ok ? { status: 'OK' } : READ_AGAIN;
  });
}
