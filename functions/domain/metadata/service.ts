/**
 * User metadata: one JSON object per user id (a user or not), updated by a top-level shallow
 * merge where `null` deletes a key. Each use case comes as a `parse…` (request validation,
 * before the app existence check, as the reference orders it) and the use case.
 */
import { BadRequestError, invalidFieldMessage } from '#functions/shared/errors.js';
import { optionalObject, requiredQuery, requiredString } from '#functions/shared/input.js';
import { type Metadata, shallowMergeMetadata } from './merge.js';
import type { MetadataStore } from './ports.js';
import { checkUserIdLength, fitsUserId } from './user-id.js';

export type { MetadataStore, StoredMetadata } from './ports.js';

type Body = Readonly<Record<string, unknown>>;
type Query = Readonly<Record<string, string | undefined>>;

/**
 * Largest stored metadata (JSON text, bytes). DynamoDB items are limited to 400 KB; the
 * reference has no limit but this core answers 400 instead of failing the write.
 */
export const MAX_METADATA_BYTES = 350_000;
const MAX_ATTEMPTS = 10;

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
  return { userId, update };
}

/**
 * Shallow-merges the update into the stored metadata (null deletes a key) with an optimistic
 * read-merge-write, retried when a concurrent write got in between → `{status:"OK", metadata}`
 * (the merged result).
 */
export async function updateUserMetadata(store: MetadataStore, appId: string, input: UpdateMetadataInput) {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await store.getMetadata(appId, input.userId);
    const metadata = shallowMergeMetadata(current?.metadata ?? {}, input.update);
    if (Buffer.byteLength(JSON.stringify(metadata), 'utf8') > MAX_METADATA_BYTES) {
      throw new BadRequestError(`User metadata is too large. Max size is ${MAX_METADATA_BYTES} bytes.`);
    }
    if (await store.saveMetadata(appId, input.userId, metadata, current?.version)) {
      return { status: 'OK', metadata };
    }
  }
  throw new Error('metadata update kept conflicting with concurrent writes');
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
