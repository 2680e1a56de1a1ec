/**
 * The requests of the OAuth2 client routes that name one client, as schemas
 * (functions/shared/request-schema.ts): what the handlers parse and the API description shows. A
 * client's own fields (create, update) are judged by ./service.ts, as the reference's provider does.
 */
import * as z from 'zod/mini';
import { checkIdLength } from '#functions/shared/id-limits.js';
import { jsonString, queryString, rule } from '#functions/shared/request-schema.js';

const withinLimit = (clientId: string) => {
  checkIdLength('oauthClientId', clientId, 'clientId');
  return clientId;
};

/** `GET /recipe/oauth/clients?clientId=`. */
export const clientIdQuery = z.object({ clientId: rule(queryString(), withinLimit) });

/** `POST /recipe/oauth/clients/remove` `{clientId}`. */
export const removeClientRequest = z.object({ clientId: rule(jsonString(), withinLimit) });
