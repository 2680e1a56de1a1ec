import { createUserIdMapping } from '#functions/domain/users/service.js';
import { BadRequestError, invalidFieldMessage } from '#functions/shared/errors.js';
import { httpHandler, ok } from '#functions/shared/http.js';
import { has, optionalBoolean, requiredString } from '#functions/shared/input.js';
import { usersDeps } from '#functions/storage/user-deps.js';

/** A string or JSON null (→ undefined) field, as the reference's `parseStringOrJSONNullOrThrowError`. */
function optionalStringOrNull(body: Readonly<Record<string, unknown>>, name: string): string | undefined {
  if (!has(body, name) || body[name] === null) return undefined;
  const value = body[name];
  if (typeof value !== 'string') throw new BadRequestError(invalidFieldMessage(name));
  return value;
}

/** `POST /recipe/userid/map` `{superTokensUserId, externalUserId, externalUserIdInfo?, force?}`. */
export const handler = httpHandler({
  routeId: 'userid-map-create',
  scope: 'app',
  run: async ({ appId, body = {} }) => {
    const info = optionalStringOrNull(body, 'externalUserIdInfo');
    const input = {
      superTokensUserId: requiredString(body, 'superTokensUserId'),
      externalUserId: requiredString(body, 'externalUserId'),
      ...(info !== undefined ? { externalUserIdInfo: info } : {}),
      force: optionalBoolean(body, 'force') ?? false,
    };
    return ok(await createUserIdMapping(usersDeps, appId, input));
  },
});
