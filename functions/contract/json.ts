/**
 * A JSON object as parsed from a body or a file (an import user, an SDK's session payload, a
 * provider's export record), and the test that a parsed value is one: shared by the core and the
 * command, which read the same payloads.
 */
export type JsonObject = Record<string, unknown>;

/** An object, not null, not an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
