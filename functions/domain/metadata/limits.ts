/**
 * What user metadata may hold, wherever it enters: `PUT /recipe/user/metadata`, the single import
 * and staging (and again in the import worker). The reference has no limits (it fails on a row
 * too large for its column); this core answers 400 instead.
 */
import { jsonBytes, jsonDepthExceeds } from '#functions/shared/storable.js';
import { MAX_METADATA_BYTES, metadataSizeMessage } from './merge.js';

/**
 * Deepest nesting of metadata (the metadata object itself is level 1): far deeper than profile
 * data needs, and shallow enough that every walk of it (serialising, merging, logging) is safe.
 */
export const MAX_METADATA_DEPTH = 32;

export type MetadataProblem = 'depth' | 'size';

/** Why metadata cannot be stored (depth first: measuring the size walks the whole value), or undefined. */
export function metadataProblem(metadata: Readonly<Record<string, unknown>>): MetadataProblem | undefined {
  if (jsonDepthExceeds(metadata, MAX_METADATA_DEPTH)) return 'depth';
  if (jsonBytes(metadata) > MAX_METADATA_BYTES) return 'size';
  return undefined;
}

/** The messages, with `<subject>` as the field's name in them (`User metadata`, `userMetadata`). */
export function metadataProblemMessage(problem: MetadataProblem, subject: string): string {
  return problem === 'depth'
    ? `${subject} is nested too deeply. Max depth is ${MAX_METADATA_DEPTH}.`
    : metadataSizeMessage(subject);
}
