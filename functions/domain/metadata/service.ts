/**
 * User metadata: one JSON object per user id (a user or not), updated by a top-level shallow
 * merge where `null` deletes a key. Each use case comes as a `parse…` (request validation,
 * before the app existence check, as the reference orders it) and the use case.
 */
import { BadRequestError, invalidFieldMessage } from '#functions/shared/errors.js';
import { optionalObject, requiredQuery, requiredString } from '#functions/shared/input.js';
import { READ_AGAIN, type RereadPolicy, reread } from '#functions/shared/rereads.js';
import { jsonDepthExceeds } from '#functions/shared/storable.js';
import { MAX_METADATA_DEPTH, metadataProblem, metadataProblemMessage } from './limits.js';
import { type Metadata, shallowMergeMetadata } from './merge.js';
import type { MetadataStore } from './ports.js';
import { checkUserIdLength, fitsUserId } from './user-id.js';

type Body = Readonly<Record<string, unknown>>;
type Query = Readonly<Record<string, string | undefined>>;

/** The read-merge-write of a metadata update, read again when a concurrent write got in between. */
const METADATA_MERGE: RereadPolicy = {
  attempts: 10,
  exhausted: 'metadata update kept conflicting with concurrent writes',
  error: Error,
};

/** `GET /recipe/user/metadata?userId=` query. */
export function parseMetadataQuery(query: Query): { userId: string } {
  return { userId: requiredQuery(query, 'userId') };
}

/** → `{status:"OK", metadata}` (`{}` when nothing is stored). */
export async function getUserMetadata(store: MetadataStore, appId: string, input: { userId: string }) {
  const stored = fitsUserId(input.userId) ? await store.getMetadata(appId, input.userId) : undefined;
  return { status: 'OK', metadata: stored?.metadata ?? {} };
}

export interface UpdateMetadataInput {
  readonly userId: string;
  readonly update: Metadata;
}

/** `PUT /recipe/user/metadata` body: `userId` string, `metadataUpdate` object (both required). */
export function parseUpdateMetadata(body: Body): UpdateMetadataInput {
  const userId = requiredString(body, 'userId');
  const update = optionalObject(body, 'metadataUpdate');
  if (update === undefined) throw new BadRequestError(invalidFieldMessage('metadataUpdate'));
  checkUserIdLength(userId);
  // The merge keeps the stored metadata's depth and takes the update's, so the update's suffices.
  if (jsonDepthExceeds(update, MAX_METADATA_DEPTH)) {
    throw new BadRequestError(metadataProblemMessage('depth', 'User metadata'));
  }
  return { userId, update };
}

/**
 * Shallow-merges the update into the stored metadata (null deletes a key) with an optimistic
 * read-merge-write, retried when a concurrent write got in between → `{status:"OK", metadata}`
 * (the merged result).
 */
export async function updateUserMetadata(store: MetadataStore, appId: string, input: UpdateMetadataInput) {
  return reread(METADATA_MERGE, async () => {
    const current = await store.getMetadata(appId, input.userId);
    const metadata = shallowMergeMetadata(current?.metadata ?? {}, input.update);
    const problem = metadataProblem(metadata);
    if (problem) throw new BadRequestError(metadataProblemMessage(problem, 'User metadata'));
    const saved = await store.saveMetadata(appId, input.userId, metadata, current?.version);
    return saved ? { status: 'OK', metadata } : READ_AGAIN;
  });
}

/** `POST /recipe/user/metadata/remove` body: `userId`. */
export function parseRemoveMetadata(body: Body): { userId: string } {
  return { userId: requiredString(body, 'userId') };
}

/** Deletes the id's metadata (if any) → `{status:"OK"}`. */
export async function removeUserMetadata(store: MetadataStore, appId: string, input: { userId: string }) {
  if (fitsUserId(input.userId)) await store.deleteMetadata(appId, input.userId);
  return { status: 'OK' };
}
