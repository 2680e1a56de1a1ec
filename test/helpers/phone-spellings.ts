/**
 * Phone numbers and the ways people write them, for property tests of the one phone rule
 * (functions/contract/phone-numbers.ts): real numbers of every country (libphonenumber-js's example
 * mobile numbers), numbers that parse without being possible (`+1 (555) 0100`), random digits after a
 * real calling code (which may or may not parse) and text that is no number at all; each written
 * with spaces, dashes, dots, parentheses and surrounding whitespace.
 */
import fc from 'fast-check';
import examples from 'libphonenumber-js/examples.mobile.json';
import minMetadata from 'libphonenumber-js/metadata.min.json';

const callingCodeOf = (country: string) =>
  (minMetadata.countries as Record<string, [string, ...unknown[]]>)[country]?.[0] ?? '';

/** Real mobile numbers: calling code and national number, from the library's examples. */
const EXAMPLES = Object.entries(examples as Record<string, string>)
  .map(([country, national]) => ({ callingCode: callingCodeOf(country), national }))
  .filter((n) => n.callingCode !== '');

const CALLING_CODES = [...new Set(EXAMPLES.map((n) => n.callingCode))];

const digits = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });

/** A number: its calling code and national digits (written with a leading `+`), or text that is no number. */
export type PhoneCase =
  | { readonly kind: 'number'; readonly callingCode: string; readonly national: string }
  | { readonly kind: 'text'; readonly text: string };

export const phoneCase: fc.Arbitrary<PhoneCase> = fc.oneof(
  fc.constantFrom(...EXAMPLES).map((n) => ({ kind: 'number' as const, ...n })),
  // North American numbers of 7 digits: they parse, but are not possible (the issue's `+1 (555) 0100`).
  digits(7, 7).map((national) => ({ kind: 'number' as const, callingCode: '1', national })),
  fc
    .tuple(fc.constantFrom(...CALLING_CODES), digits(2, 13))
    .map(([callingCode, national]) => ({ kind: 'number' as const, callingCode, national })),
  fc.stringMatching(/^[a-z][a-z0-9@._-]{0,15}$/).map((text) => ({ kind: 'text' as const, text })),
);

/** How one spelling is written: separators between digit groups, parentheses, surrounding whitespace. */
export interface Style {
  readonly separator: string;
  readonly groups: number;
  readonly parentheses: boolean;
  readonly spaceAfterCode: boolean;
  readonly before: string;
  readonly after: string;
}

const style: fc.Arbitrary<Style> = fc.record({
  separator: fc.constantFrom('', ' ', '-', '.'),
  groups: fc.integer({ min: 1, max: 4 }),
  parentheses: fc.boolean(),
  spaceAfterCode: fc.boolean(),
  before: fc.constantFrom('', ' ', '  ', '\t'),
  after: fc.constantFrom('', ' ', '\n'),
});

/** One way of writing the case (a number keeps its digits and `+`; text keeps its characters). */
export function spell(phone: PhoneCase, how: Style): string {
  if (phone.kind === 'text') return `${how.before}${phone.text}${how.after}`;
  const { national } = phone;
  const size = Math.max(1, Math.ceil(national.length / how.groups));
  const groups: string[] = [];
  for (let i = 0; i < national.length; i += size) groups.push(national.slice(i, i + size));
  if (how.parentheses && groups.length > 1) groups[0] = `(${groups[0]})`;
  const separator = how.separator === '' && how.parentheses ? ' ' : how.separator;
  return `${how.before}+${phone.callingCode}${how.spaceAfterCode ? ' ' : ''}${groups.join(separator)}${how.after}`;
}

/** A case and several spellings of it (the first is the one stored). */
export const phoneSpellings: fc.Arbitrary<{ phone: PhoneCase; spellings: string[] }> = phoneCase.chain((phone) =>
  fc
    .array(style, { minLength: 2, maxLength: 4 })
    .map((styles) => ({ phone, spellings: styles.map((how) => spell(phone, how)) })),
);
