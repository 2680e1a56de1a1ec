/**
 * User metadata: one JSON object per user id (a user or not), updated by a top-level shallow
 * merge where `null` deletes a key. The requests are parsed by the schemas of ./input.ts (before
 * the app existence check, as the reference orders it).
 */
import { BadRequestError } from '#functions/shared/errors.js';
import type { UpdateMetadataInput } from './input.js';
import { metadataProblem, metadataProblemMessage } from './limits.js';
import { shallowMergeMetadata } from './merge.js';
import type { MetadataStore } from './ports.js';
import { fitsUserId } from './user-id.js';

const MAX_ATTEMPTS = 10;

/** → `{status:"OK", metadata}` (`{}` when nothing is stored). */
export async function getUserMetadata(store: MetadataStore, input: { userId: string }) {
  const stored = fitsUserId(input.userId) ? await store.readUserMetadata(input.userId) : undefined;
  return { status: 'OK', metadata: stored?.metadata ?? {} };
}

/**
 * Shallow-merges the update into the stored metadata (null deletes a key) with an optimistic
 * read-merge-write, retried when a concurrent write got in between → `{status:"OK", metadata}`
 * (the merged result).
 */
export async function updateUserMetadata(store: MetadataStore, input: UpdateMetadataInput) {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await store.readUserMetadata(input.userId);
    const metadata = shallowMergeMetadata(current?.metadata ?? {}, input.update);
    const problem = metadataProblem(metadata);
    if (problem) throw new BadRequestError(metadataProblemMessage(problem, 'User metadata'));
    if (await store.writeUserMetadata(input.userId, metadata, current?.version)) {
      return { status: 'OK', metadata };
    }
  }
  throw new Error('metadata update kept conflicting with concurrent writes');
}

/** Deletes the id's metadata (if any) → `{status:"OK"}`. */
export async function removeUserMetadata(store: MetadataStore, input: { userId: string }) {
  if (fitsUserId(input.userId)) await store.deleteUserMetadata(input.userId);
  return { status: 'OK' };
}
