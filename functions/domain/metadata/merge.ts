/** A user's metadata: a JSON object. */
export type Metadata = Record<string, unknown>;

/**
 * The core's shallow merge of a metadata update: every top-level key of `update` replaces the
 * current value, and a `null` value deletes the key. Nested objects are replaced, not merged.
 * Returns a new object; neither input is modified.
 */
export function shallowMergeMetadata(current: Readonly<Metadata>, update: Readonly<Metadata>): Metadata {
  const merged: Metadata = { ...current };
  for (const [key, value] of Object.entries(update)) {
    // Deleting first moves an updated key to the end, as the reference's JSON object does.
    delete merged[key];
    if (value !== null) merged[key] = value;
  }
  return merged;
}
