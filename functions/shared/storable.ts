/**
 * What a value stored as DynamoDB attributes (not as JSON text) may hold. DynamoDB refuses an item
 * above 400 KB, nesting beyond 32 levels, a map key that is empty and a number whose magnitude is
 * above 9.99e125 or below 1e-130; the document client refuses, before sending, any number beyond
 * ±(2^53 − 1), which it could not read back exactly. Validation refuses such values where they
 * enter, with a message that names the field and never the value.
 */

/** The largest magnitude the document client writes (Number.MAX_SAFE_INTEGER). */
const MAX_STORABLE_NUMBER = Number.MAX_SAFE_INTEGER;
/** The smallest non-zero magnitude DynamoDB stores. */
const MIN_STORABLE_MAGNITUDE = 1e-130;

/** The rule of {@link isStorableNumber} in words, for messages. */
export const STORABLE_NUMBER_RULE = `between -${MAX_STORABLE_NUMBER} and ${MAX_STORABLE_NUMBER}, and 0 or at least ${MIN_STORABLE_MAGNITUDE} in magnitude`;

/** A finite number the document client writes and DynamoDB stores and returns unchanged. */
export function isStorableNumber(value: number): boolean {
  if (!Number.isFinite(value)) return false;
  const magnitude = Math.abs(value);
  return magnitude <= MAX_STORABLE_NUMBER && (magnitude === 0 || magnitude >= MIN_STORABLE_MAGNITUDE);
}

export type JsonShapeProblem = 'depth' | 'number' | 'emptyKey';

/**
 * Why parsed JSON cannot be stored as DynamoDB attributes, or undefined: nested deeper than
 * `maxDepth` (a scalar is 0 levels deep, an object or array 1 more than its deepest member), a
 * number outside {@link isStorableNumber}, or an object key that is the empty string. Depth wins
 * over the others; measured without recursion, so a document thousands of levels deep is safe.
 */
export function jsonShapeProblem(value: unknown, maxDepth: number): JsonShapeProblem | undefined {
  let other: JsonShapeProblem | undefined;
  const stack: [unknown, number][] = [[value, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, depth] = next;
    if (typeof node === 'number') {
      if (!isStorableNumber(node)) other ??= 'number';
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    if (depth + 1 > maxDepth) return 'depth';
    if (Array.isArray(node)) {
      for (const member of node) stack.push([member, depth + 1]);
      continue;
    }
    for (const [key, member] of Object.entries(node)) {
      if (key === '') other ??= 'emptyKey';
      stack.push([member, depth + 1]);
    }
  }
  return other;
}

/**
 * Whether parsed JSON is nested deeper than `max` (depth as in {@link jsonShapeProblem}), for
 * values kept as JSON text, where only the depth matters.
 */
export const jsonDepthExceeds = (value: unknown, max: number): boolean => jsonShapeProblem(value, max) === 'depth';

/** UTF-8 bytes of a value's JSON text. */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
