import { linkAccounts } from '#functions/domain/accountlinking/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { requiredString } from '#functions/shared/input.js';
import { linkingDeps, linkingTarget } from '#functions/wiring/accountlinking.js';

/** `POST /recipe/accountlinking/user/link` `{recipeUserId, primaryUserId}` → `{status:"OK", accountsAlreadyLinked, user}` or why not. */
export const handler = httpHandler({
  route: { id: 'accountlinking-link', scope: 'app', exists: 'after-input' },
  input: ({ body = {} }) => ({
    recipeUserId: requiredString(body, 'recipeUserId'),
    primaryUserId: requiredString(body, 'primaryUserId'),
  }),
  run: async (input, { appId, config }) =>
    ok(await linkAccounts(linkingDeps(config), linkingTarget(appId, config), input)),
});
