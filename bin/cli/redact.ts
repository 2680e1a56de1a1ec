/**
 * Last line of defence for anything the command prints or writes: password hashes of the formats the
 * core stores (and the sources' prefixed spellings of them; a bare hex digest cannot be told from an
 * id, so converters never quote one), and values the command knows to be secret (the API key, the Firebase signer key), are
 * replaced by `<redacted>` (the core's own marker).
 */
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

/** Forgets every registered value (a process runs one command; tests run several, each from none). */
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

/** What is shown in place of a URL that does not parse (it is not echoed: it may hold a credential). */
export const UNPARSEABLE_URL = '<unparseable URL>';

/**
 * A URL as it may be shown: without user name and password, query string and fragment (any of which
 * may carry a credential); `<unparseable URL>` when it does not parse.
 */
export function displayUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return UNPARSEABLE_URL;
  }
  parsed.username = '';
  parsed.password = '';
  parsed.search = '';
  parsed.hash = '';
  return parsed.toString().replace(/\/$/, '');
}

/** An argument quoted back to the user: shown as a URL (`displayUrl`) when it is or looks like one. */
export function shownArgument(token: string): string {
  if (URL.canParse(token)) return displayUrl(token);
  return token.includes('://') ? UNPARSEABLE_URL : token;
}
