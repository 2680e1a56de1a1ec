import { recipeUserRequest } from '#functions/domain/accountlinking/input.js';
import { createPrimaryUser } from '#functions/domain/accountlinking/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { linkingTarget } from '#functions/wiring/accountlinking.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `POST /recipe/accountlinking/user/primary` `{recipeUserId}` → `{status:"OK", wasAlreadyAPrimaryUser, user}` or why not. */
export const handler = httpHandler({
  route: { id: 'accountlinking-primary', scope: 'app', exists: 'after-input' },
  request: { body: recipeUserRequest },
  input: (_, { body }) => body.recipeUserId,
  run: async (recipeUserId, { appId, config }) =>
    ok(await createPrimaryUser(usersDeps(config), linkingTarget(appId, config), recipeUserId)),
});
