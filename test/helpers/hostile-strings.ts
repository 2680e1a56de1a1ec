/**
 * The hostile strings the property-based fuzz tests send in every field: short arbitrary strings
 * (code points, grapheme clusters, raw bytes), long runs of one character, and values known to
 * trip naive code (empty, blank, the key separator `#`, `%`, NUL, a character whose lower case
 * grows, the word `null`).
 */
import fc from 'fast-check';

/** Strings of at most 12 code points, 8 graphemes or 8 bytes, runs of `runs` (char, longest), and `special`. */
export function hostileStrings(
  runs: ReadonlyArray<readonly [char: string, longest: number]>,
  special: readonly string[],
): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.string({ unit: 'grapheme', maxLength: 8 }),
    fc.string({ unit: 'binary', maxLength: 8 }),
    ...runs.map(([char, longest]) => fc.integer({ min: 0, max: longest }).map((n) => char.repeat(n))),
    fc.constantFrom('', ' ', 'a#b', '#', '%', '\u0000', 'null', ...special),
  );
}
