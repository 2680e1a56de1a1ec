/**
 * The user ids a session names (docs/sessions.md "Routes"): stored as the SDK will read them — the
 * primary user id (`sub`) and the recipe user id (`rsub`), each the external id where one is mapped.
 * The user is found as every use case finds a named user (users/lookup.ts).
 */
import { resolveUser } from '../users/lookup.js';
import { externalIdOf } from '../users/model.js';
import type { SessionDeps } from './deps.js';

/**
 * Primary and recipe user ids of `userId` as tokens carry them, and every id of its user (for the
 * lists of linked accounts); an id that names no user is taken as given, as in the reference.
 */
export async function sessionUserIds(deps: SessionDeps, appId: string, userId: string) {
  const found = await resolveUser({ store: deps.users }, appId, userId);
  if (!found) return { primary: userId, recipe: userId, all: [userId] };
  const { user, superTokensId } = found;
  const all = [...new Set([user.userId, ...user.loginMethods.map((lm) => lm.recipeUserId)])].map((id) =>
    externalIdOf(user, id),
  );
  return { primary: externalIdOf(user, user.userId), recipe: externalIdOf(user, superTokensId), all };
}
