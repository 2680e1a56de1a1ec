/**
 * The requests of the account-linking routes, as schemas (functions/shared/request-schema.ts):
 * what the handlers parse and the API description shows.
 */
import * as z from 'zod/mini';
import { jsonString, queryString } from '#functions/shared/request-schema.js';

/** `POST /recipe/accountlinking/user/primary` and `…/unlink` body: `recipeUserId`. */
export const recipeUserRequest = z.object({ recipeUserId: jsonString() });

/** `GET /recipe/accountlinking/user/primary/check?recipeUserId=`. */
export const recipeUserQuery = z.object({ recipeUserId: queryString() });

/** `POST /recipe/accountlinking/user/link` body. */
export const linkRequest = z.object({ recipeUserId: jsonString(), primaryUserId: jsonString() });

/** `GET /recipe/accountlinking/user/link/check?recipeUserId=&primaryUserId=`. */
export const linkQuery = z.object({ recipeUserId: queryString(), primaryUserId: queryString() });
