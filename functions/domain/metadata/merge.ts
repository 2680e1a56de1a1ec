/** A user's metadata: a JSON object. */
export type Metadata = Record<string, unknown>;

/**
 * Largest stored metadata (JSON text, UTF-8 bytes). DynamoDB items are limited to 400 KB; the
 * item holds the text and a few small attributes. Checked on input (limits.ts) and on the merged
 * result wherever metadata is merged (the metadata API, the import's write).
 */
export const MAX_METADATA_BYTES = 350_000;

/** The message for metadata beyond {@link MAX_METADATA_BYTES}, `<subject>` as the field is named (`userMetadata`). */
export const metadataSizeMessage = (subject: string): string =>
  `${subject} is too large. Max size is ${MAX_METADATA_BYTES} bytes.`;

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
    // A key named `__proto__` is data like any other (an assignment would set the prototype).
    if (value !== null)
      Object.defineProperty(merged, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return merged;
}
