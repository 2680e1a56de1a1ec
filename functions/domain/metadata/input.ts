/**
 * The requests of the user-metadata routes, as schemas (functions/shared/request-schema.ts): what
 * the handlers parse and the API description shows.
 */
import * as z from 'zod/mini';
import { BadRequestError } from '#functions/shared/errors.js';
import { jsonObject, jsonString, queryString, rule } from '#functions/shared/request-schema.js';
import { jsonDepthExceeds } from '#functions/shared/storable.js';
import { MAX_METADATA_DEPTH, metadataProblemMessage } from './limits.js';
import type { Metadata } from './merge.js';
import { checkUserIdLength } from './user-id.js';

/** `GET /recipe/user/metadata?userId=` query. */
export const metadataQuery = z.object({ userId: queryString() });

/** `PUT /recipe/user/metadata` body: `userId` string, `metadataUpdate` object (both required). */
export const updateMetadataRequest = rule(
  z.object({ userId: jsonString(), metadataUpdate: jsonObject() }),
  ({ userId, metadataUpdate }): UpdateMetadataInput => {
    checkUserIdLength(userId);
    // The merge keeps the stored metadata's depth and takes the update's, so the update's suffices.
    if (jsonDepthExceeds(metadataUpdate, MAX_METADATA_DEPTH)) {
      throw new BadRequestError(metadataProblemMessage('depth', 'User metadata'));
    }
    return { userId, update: metadataUpdate as Metadata };
  },
);

export interface UpdateMetadataInput {
  readonly userId: string;
  readonly update: Metadata;
}

/** `POST /recipe/user/metadata/remove` body: `userId`. */
export const removeMetadataRequest = z.object({ userId: jsonString() });
