/**
 * Phone numbers quoted in the report and the state file. A report line already names its user (the
 * record's position, and its id when it has one), so a reason does not need the whole number: all of
 * it but the last two digits is masked (`+*********23`), which still tells two numbers of one user
 * apart and keeps the shape (`+`, separators, length) that explains why a number was refused.
 * Emails stay: they are how the core's messages say which login method conflicts.
 */
import { normalisePhoneNumber } from './contract.js';

/** Fewer digits than this is no phone number: such a value is neither masked nor searched for. */
const MIN_DIGITS = 5;

const isDigit = (ch: string) => ch >= '0' && ch <= '9';
const SEPARATORS = new Set(['+', ' ', '-', '(', ')', '.']);

/** `value` with every character but separators and the last two digits replaced by `*`. */
export function maskPhone(value: string): string {
  const chars = [...value];
  const digits = chars.filter(isDigit).length;
  let keep = digits >= MIN_DIGITS ? 2 : 0;
  const out: string[] = [];
  for (let i = chars.length - 1; i >= 0; i--) {
    const ch = chars[i] as string;
    if (isDigit(ch) && keep > 0) {
      keep -= 1;
      out.push(ch);
    } else out.push(SEPARATORS.has(ch) ? ch : '*');
  }
  return out.reverse().join('');
}

/**
 * The spellings under which a user's phone numbers can come back in a message: as sent, trimmed, and
 * in E.164 as the core normalises them. `methods` are login methods as sent or as the core lists them.
 */
export function phoneSpellings(methods: unknown): string[] {
  if (!Array.isArray(methods)) return [];
  const spellings = new Set<string>();
  for (const method of methods) {
    const phone = (method as { phoneNumber?: unknown } | null)?.phoneNumber;
    if (typeof phone !== 'string') continue;
    for (const form of [phone, phone.trim(), normalisePhoneNumber(phone)]) {
      if ([...form].filter(isDigit).length >= MIN_DIGITS) spellings.add(form);
    }
  }
  // Longest first: a spelling inside another (trimmed inside untrimmed) is masked with it.
  return [...spellings].sort((a, b) => b.length - a.length);
}

/** `text` with each of `spellings` (from `phoneSpellings`) masked. */
export function maskPhones(text: string, spellings: readonly string[]): string {
  let out = text;
  for (const phone of spellings) {
    // Again until none is left: the kept digits and the text after them can spell the number anew
    // (`12312312` → `***12312`). Each pass masks digits, so this ends.
    while (out.includes(phone)) out = out.split(phone).join(maskPhone(phone));
  }
  return out;
}
