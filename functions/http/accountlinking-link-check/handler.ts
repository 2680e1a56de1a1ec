import { linkQuery } from '#functions/domain/accountlinking/input.js';
import { canLinkAccounts } from '#functions/domain/accountlinking/service.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { linkingTarget } from '#functions/wiring/accountlinking.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `GET /recipe/accountlinking/user/link/check?recipeUserId=&primaryUserId=` → `{status:"OK", accountsAlreadyLinked}` or why not. */
export const handler = httpHandler({
  route: { id: 'accountlinking-link-check', scope: 'app', exists: 'after-input' },
  request: { query: linkQuery },
  run: async (input, { appId, config }) =>
    ok(await canLinkAccounts(usersDeps(config), linkingTarget(appId, config), input)),
});
