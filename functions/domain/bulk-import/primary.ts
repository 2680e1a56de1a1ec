/** The primary login method of an import user, and fresh ids for a re-staged user. */
import type { ImportLoginMethod, ImportUser } from '../import/types.js';

/**
 * The primary login method: the one with `isPrimary`; if none, the one with the smallest
 * `timeJoinedInMSSinceEpoch` (ties → first). `loginMethods` must not be empty.
 */
export function getPrimaryLoginMethod<T extends Pick<ImportLoginMethod, 'isPrimary' | 'timeJoinedInMSSinceEpoch'>>(
  loginMethods: readonly T[],
): T {
  let oldest = loginMethods[0];
  if (oldest === undefined) throw new RangeError('a user has at least one login method');
  for (const lm of loginMethods) {
    if (lm.isPrimary) return lm;
    if (lm.timeJoinedInMSSinceEpoch < oldest.timeJoinedInMSSinceEpoch) oldest = lm;
  }
  return oldest;
}

/**
 * A copy of the user with fresh `superTokensUserId`s and the staged id recomputed (staging-insert retry after
 * an id collision: docs/import-pipeline.md "Staged ids").
 */
export function withFreshIds(user: ImportUser, newId: () => string): ImportUser {
  const loginMethods = user.loginMethods.map((lm) => ({ ...lm, superTokensUserId: newId() }));
  return { ...user, id: getPrimaryLoginMethod(loginMethods).superTokensUserId, loginMethods };
}
