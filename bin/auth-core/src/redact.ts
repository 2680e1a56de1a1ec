/**
 * Last line of defence for anything the command prints or writes: password hashes of the formats the
 * core stores (and the sources' prefixed spellings of them; a bare hex digest cannot be told from an
 * id, so converters never quote one), and values the command knows to be secret (the API key, the Firebase signer key), are
 * replaced by `<redacted>` (the core's own marker).
 */
import { displayUrl, UNPARSEABLE_URL } from '../../shared/display-url.js';

// How a URL is shown (shared with the local runtime): the command's modules take it from here.
export { displayUrl, UNPARSEABLE_URL };

export const REDACTED = '<redacted>';

const HASH_PATTERNS: readonly RegExp[] = [
  /\$2[abxy]\$\d{2}\$[./A-Za-z0-9]{53}/g,
  /\$argon2(?:id|i|d)\$[^\s"',\]]+/g,
  /\$f_scrypt\$[^\s"',\]]+/g,
  // The legacy families: their stored forms and the sources' prefixed spellings.
  /\$pbkdf2-sha\d+\$[^\s"',\]]+/g,
  /\b(?:pbkdf2_sha(?:1|256|512)(?:_hex)?|scrypt)\$\d+\$[^\s"',\]]+/g,
  /\$scrypt\$[^\s"',\]]+/g,
  /\$(?:[PHS]|wp\$2[abxy])\$[./0-9A-Za-z$]{20,}/g,
  /\$(?:md5|sha1|sha256|sha512)\$[^\s"',\]]+/g,
  /\b(?:md5|sha1)\$[^\s"',\]$]*\$[0-9a-fA-F]{32,40}\b/g,
  /\{(?:SSHA|SSHA256|SSHA512|SHA|SMD5|MD5)\}[A-Za-z0-9+/]+=*/gi,
];

const secrets = new Set<string>();

/** Registers a value that must never appear in output (ignored when shorter than 4 characters). */
export function registerSecret(value: string | undefined): void {
  if (value !== undefined && value.length >= 4) secrets.add(value);
}

/**
 * Forgets every registered value (a process runs one command; tests run several, each from none).
 * @internal Exported for the tests.
 */
export function forgetSecrets(): void {
  secrets.clear();
}

export function redact(text: string): string {
  let out = text;
  for (const pattern of HASH_PATTERNS) out = out.replace(pattern, REDACTED);
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

/** At most `max` characters of a text from outside (the core's answers), redacted before it is cut. */
export function excerpt(text: string, max: number): string {
  return redact(text).slice(0, max);
}

/** An argument quoted back to the user: shown as a URL (`displayUrl`) when it is or looks like one. */
export function shownArgument(token: string): string {
  if (URL.canParse(token)) return displayUrl(token);
  return token.includes('://') ? UNPARSEABLE_URL : token;
}
