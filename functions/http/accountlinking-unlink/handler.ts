import { recipeUserRequest } from '#functions/domain/accountlinking/input.js';
import { unlinkAccount } from '#functions/domain/accountlinking/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { linkingDeps } from '#functions/wiring/accountlinking.js';

/** `POST /recipe/accountlinking/user/unlink` `{recipeUserId}` → `{status:"OK", wasRecipeUserDeleted, wasLinked}`. */
export const handler = httpHandler({
  route: { id: 'accountlinking-unlink', scope: 'app', exists: 'after-input' },
  request: { body: recipeUserRequest },
  input: (_, { body }) => body.recipeUserId,
  run: async (recipeUserId, { appId, config }) => ok(await unlinkAccount(linkingDeps(config), appId, recipeUserId)),
});
