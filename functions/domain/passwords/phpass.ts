import { hash as digest } from 'node:crypto';
import { checkBcryptCost, parseBcrypt } from './bcrypt.js';
import { ITOA64, phpassBase64 } from './encoding.js';
import { aboveLimit, belowMinimum, HASH_LIMITS, type ParameterProblem } from './limits.js';
import { compareDigests, type VerifyResult, WRONG_PASSWORD } from './result.js';
import { defineForm, type Verify } from './scheme.js';

/**
 * phpass's portable hashes (`$P$`, phpBB's identical `$H$`: MD5) and Drupal 7's `$S$` (SHA-512):
 * `$X$` + one character giving log2 of the iteration count + an 8-character salt + the encoded
 * digest. hash = H(salt ‖ password), then 2^count times hash = H(hash ‖ password). phpass keeps
 * the 22 characters of the MD5; Drupal keeps the whole string cut to 55 characters.
 */
const PORTABLE_SHAPE = /^\$([PHS])\$([./0-9A-Za-z])([./0-9A-Za-z]{8})([./0-9A-Za-z]+)$/;
const PHPASS_HASH_CHARS = 22;
const DRUPAL_HASH_CHARS = 55 - 12;

export interface ParsedPortable {
  readonly kind: 'phpass' | 'drupal';
  readonly log2: number;
  readonly salt: string;
  /** The whole canonical string (its first 12 characters are the setting). */
  readonly stored: string;
}

function readPortable(text: string): ParsedPortable | undefined {
  const match = PORTABLE_SHAPE.exec(text);
  if (!match) return undefined;
  const [, id, countChar = '', salt = '', encoded = ''] = match;
  const kind = id === 'S' ? 'drupal' : 'phpass';
  if (encoded.length !== (kind === 'drupal' ? DRUPAL_HASH_CHARS : PHPASS_HASH_CHARS)) return undefined;
  // phpBB's `$H$` is phpass's `$P$` under another name.
  const stored = id === 'H' ? `$P$${text.slice(3)}` : text;
  return { kind, log2: ITOA64.indexOf(countChar), salt, stored };
}

function checkPortable({ kind, log2 }: ParsedPortable): ParameterProblem | undefined {
  const limits = kind === 'drupal' ? HASH_LIMITS.drupal : HASH_LIMITS.phpass;
  if (log2 < limits.minLog2) return belowMinimum('log2 iterations', log2, limits.minLog2);
  if (log2 > limits.maxLog2) return aboveLimit('log2 iterations', log2, limits.maxLog2);
  return undefined;
}

function portableDigest(kind: ParsedPortable['kind'], log2: number, salt: string, password: Buffer): Buffer {
  const algorithm = kind === 'drupal' ? 'sha512' : 'md5';
  let value = digest(algorithm, Buffer.concat([Buffer.from(salt, 'latin1'), password]), 'buffer');
  // One buffer reused for hash ‖ password: the loop is the whole cost of the scheme.
  const input = Buffer.alloc(value.length + password.length);
  password.copy(input, value.length);
  for (let i = 2 ** log2; i > 0; i--) {
    value.copy(input, 0);
    value = digest(algorithm, input, 'buffer');
  }
  return value;
}

export const portableForm = defineForm<ParsedPortable>({
  legacy: true,
  claims: (stored) => stored.startsWith('$P$') || stored.startsWith('$S$'),
  parse: readPortable,
  check: checkPortable,
});

export const verifyPortable: Verify<ParsedPortable> = async (
  plain,
  { kind, log2, salt, stored },
): Promise<VerifyResult> => {
  const password = Buffer.from(plain, 'utf8');
  // phpass and Drupal refuse longer passwords (and the loop's cost grows with the length).
  const limits = kind === 'drupal' ? HASH_LIMITS.drupal : HASH_LIMITS.phpass;
  if (password.length > limits.maxPasswordBytes) return WRONG_PASSWORD;
  const encoded = phpassBase64(portableDigest(kind, log2, salt, password));
  const expectedChars = kind === 'drupal' ? DRUPAL_HASH_CHARS : PHPASS_HASH_CHARS;
  const computed = Buffer.from(`${stored.slice(0, 12)}${encoded.slice(0, expectedChars)}`, 'latin1');
  return compareDigests(computed, Buffer.from(stored, 'latin1'));
};

/**
 * WordPress ≥ 6.8: `$wp` + a bcrypt hash of Base64(HMAC-SHA-384(password, key `wp-sha384`)), so
 * bcrypt's 72-byte cut never drops part of a long password. WordPress refuses passwords over
 * 4096 bytes. Stored as `$wp$2y$<cost>$…` (the four bcrypt identifiers are equivalent here: the
 * bcrypt input is 64 ASCII characters).
 */
export interface ParsedWordPress {
  readonly cost: number;
  readonly bcrypt: string;
}

function readWordPress(text: string): ParsedWordPress | undefined {
  if (!text.startsWith('$wp$')) return undefined;
  const bcrypt = text.slice(3);
  const parsed = parseBcrypt(bcrypt);
  return parsed ? { cost: parsed.cost, bcrypt: `$2y${bcrypt.slice(3)}` } : undefined;
}

export const wordPressForm = defineForm<ParsedWordPress>({
  legacy: true,
  claims: (stored) => stored.startsWith('$wp$'),
  parse: readWordPress,
  check: ({ cost }) => checkBcryptCost(cost),
});

/**
 * The `PHPASS` import: `$P$`/`$H$` (WordPress < 6.8, phpBB), Drupal 7 `$S$`, WordPress ≥ 6.8
 * `$wp$2y$…`. Canonical stored forms: `$P$…` (for `$H$` too), `$S$…`, `$wp$2y$…`.
 */
export function importPhpass(text: string): string | undefined {
  if (text.startsWith('$wp$')) {
    const parsed = readWordPress(text);
    return parsed ? `$wp${parsed.bcrypt}` : undefined;
  }
  return readPortable(text)?.stored;
}
