/**
 * User metadata: one JSON object per user id (a user or not), updated by a top-level shallow
 * merge where `null` deletes a key. The requests are parsed by the schemas of ./input.ts (before
 * the app existence check, as the reference orders it).
 */
import { BadRequestError } from '#functions/shared/errors.js';
import { READ_AGAIN, type RereadPolicy, reread } from '#functions/shared/rereads.js';
import type { UpdateMetadataInput } from './input.js';
import { metadataProblem, metadataProblemMessage } from './limits.js';
import { shallowMergeMetadata } from './merge.js';
import type { MetadataStore } from './ports.js';
import { fitsUserId } from './user-id.js';

/** The read-merge-write of a metadata update, read again when a concurrent write got in between. */
const METADATA_MERGE: RereadPolicy = {
  attempts: 10,
  exhausted: 'metadata update kept conflicting with concurrent writes',
  error: Error,
};

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
  return reread(METADATA_MERGE, async () => {
    const current = await store.readUserMetadata(input.userId);
    const metadata = shallowMergeMetadata(current?.metadata ?? {}, input.update);
    const problem = metadataProblem(metadata);
    if (problem) throw new BadRequestError(metadataProblemMessage(problem, 'User metadata'));
    const saved = await store.writeUserMetadata(input.userId, metadata, current?.version);
    return saved ? { status: 'OK', metadata } : READ_AGAIN;
  });
}

/** Deletes the id's metadata (if any) → `{status:"OK"}`. */
export async function removeUserMetadata(store: MetadataStore, input: { userId: string }) {
  if (fitsUserId(input.userId)) await store.deleteUserMetadata(input.userId);
  return { status: 'OK' };
}
