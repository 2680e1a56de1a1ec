import { recipeUserQuery } from '#functions/domain/accountlinking/input.js';
import { canCreatePrimaryUser } from '#functions/domain/accountlinking/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { linkingTarget } from '#functions/wiring/accountlinking.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `GET /recipe/accountlinking/user/primary/check?recipeUserId=` → `{status:"OK", wasAlreadyAPrimaryUser}` or why not. */
export const handler = httpHandler({
  route: { id: 'accountlinking-primary-check', scope: 'app', exists: 'after-input' },
  request: { query: recipeUserQuery },
  input: (_, { query }) => query.recipeUserId,
  run: async (recipeUserId, { appId, config }) =>
    ok(await canCreatePrimaryUser(usersDeps(config), linkingTarget(appId, config), recipeUserId)),
});
