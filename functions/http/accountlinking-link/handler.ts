import { linkRequest } from '#functions/domain/accountlinking/input.js';
import { linkAccounts } from '#functions/domain/accountlinking/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { linkingDeps, linkingTarget } from '#functions/wiring/accountlinking.js';

/** `POST /recipe/accountlinking/user/link` `{recipeUserId, primaryUserId}` → `{status:"OK", accountsAlreadyLinked, user}` or why not. */
export const handler = httpHandler({
  route: { id: 'accountlinking-link', scope: 'app', exists: 'after-input' },
  request: { body: linkRequest },
  run: async (input, { appId, config }) =>
    ok(await linkAccounts(linkingDeps(config), linkingTarget(appId, config), input)),
});
