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
 * or when it has a single login method; else only the named recipe user's login method. Deletes
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
    const removedIds = removeAll ? [user.userId, ...user.loginMethods.map((lm) => lm.recipeUserId)] : [superTokensId];
    const after: UserRecord | undefined = removeAll
      ? undefined
      : {
          ...user,
          loginMethods: user.loginMethods.filter((lm) => lm.recipeUserId !== superTokensId),
          externalIds: Object.fromEntries(Object.entries(user.externalIds).filter(([id]) => id !== superTokensId)),
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
