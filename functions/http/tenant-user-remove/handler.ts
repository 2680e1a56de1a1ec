import { disassociateUserFromTenant, parseTenantUserBody } from '#functions/domain/users/tenant-membership.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { cdiAtLeast } from '#functions/shared/cdi.js';
import { checkIdLength } from '#functions/shared/id-limits.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `POST /<t>/recipe/multitenancy/tenant/user/remove` `{recipeUserId}` (`userId` before CDI 4.0) → `{status:"OK", wasAssociated}`. */
export const handler = httpHandler({
  route: { id: 'tenant-user-remove', scope: 'tenant', exists: 'after-input' },
  input: ({ body = {}, cdiVersion }) => {
    const input = parseTenantUserBody(body, cdiAtLeast(cdiVersion, '4.0'));
    checkIdLength('userId', input.recipeUserId);
    return input;
  },
  run: async (input, { appId, tenantId, config }) =>
    ok(await disassociateUserFromTenant(usersDeps(config), { appId, tenantId }, input)),
});
