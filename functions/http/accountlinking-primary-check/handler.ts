import { canCreatePrimaryUser } from '#functions/domain/accountlinking/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { requiredQuery } from '#functions/shared/input.js';
import { linkingTarget } from '#functions/wiring/accountlinking.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `GET /recipe/accountlinking/user/primary/check?recipeUserId=` → `{status:"OK", wasAlreadyAPrimaryUser}` or why not. */
export const handler = httpHandler({
  route: { id: 'accountlinking-primary-check', scope: 'app', exists: 'after-input' },
  input: ({ query }) => requiredQuery(query, 'recipeUserId'),
  run: async (recipeUserId, { appId, config }) =>
    ok(await canCreatePrimaryUser(usersDeps(config), linkingTarget(appId, config), recipeUserId)),
});
