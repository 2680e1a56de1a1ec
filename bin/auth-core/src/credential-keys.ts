/**
 * Tokens and secrets never enter user metadata: the `userMetadata` the command sends is scrubbed of
 * every key that looks like a credential, at any nesting level (inside arrays too), and each dropped
 * key is reported by its path — never its value (docs/migrate-safety.md "Metadata that looks like
 * a credential").
 *
 * The rule, on the key's name only:
 * 1. The name is cut into words at anything that is not a letter or digit, at lower→upper case
 *    changes (`apiKey` → api, key; `APIKey` → api, key) and between letters and digits; words are
 *    lower-cased and the digits dropped.
 * 2. A name is descriptive, and kept, when a word before its last is `has` or `is`, or its last word
 *    is one of DESCRIPTIVE (`password_updated_at`, `totp_enabled`, `token_type`, `hasPassword`,
 *    `user_is_otp_enrolled`): such keys hold dates, flags and kinds, not the credential.
 * 3. Otherwise it looks like a credential when one of its words is in CREDENTIAL_WORDS, its last word
 *    is `key` or `keys` (`api_key`, `privateKey`, `key`; not `key_id`, not `keyboard`), or its words
 *    run together end with one of CREDENTIAL_ENDINGS (`accesstoken`, `clientSecret`, `userpassword`,
 *    `backup_codes`).
 */
import type { JsonObject } from './contract.js';

/** Words that make a key a credential wherever they stand. */
const CREDENTIAL_WORDS: ReadonlySet<string> = new Set([
  'password',
  'passwords',
  'passwd',
  'pwd',
  'passphrase',
  'passcode',
  'secret',
  'secrets',
  'token',
  'tokens',
  'hash',
  'hashes',
  'salt',
  'otp',
  'totp',
  'hotp',
  'credential',
  'credentials',
  'apikey',
  'privatekey',
  'secretkey',
  'accesskey',
]);

/** Endings of the words run together that make a key a credential. */
const CREDENTIAL_ENDINGS: readonly string[] = [
  'token',
  'tokens',
  'secret',
  'secrets',
  'password',
  'passwords',
  'passwd',
  'passphrase',
  'apikey',
  'apikeys',
  'privatekey',
  'secretkey',
  'accesskey',
  'backupcodes',
  'recoverycodes',
  'hash',
];

/** Last words that make a key descriptive (a date, flag or kind about a credential, not the credential). */
const DESCRIPTIVE: ReadonlySet<string> = new Set([
  'at',
  'on',
  'date',
  'time',
  'timestamp',
  'enabled',
  'disabled',
  'verified',
  'required',
  'set',
  'changed',
  'updated',
  'created',
  'expires',
  'expiry',
  'expiration',
  'count',
  'type',
  'length',
  'policy',
  'status',
]);

/** The words of a key's name (rule 1). */
export function keyWords(name: string): string[] {
  return name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z]+/)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}

/** Whether a metadata key's name looks like a credential (rules 2 and 3). */
export function looksLikeCredential(name: string): boolean {
  const words = keyWords(name);
  if (words.length === 0) return false;
  const last = words[words.length - 1] as string;
  if (DESCRIPTIVE.has(last) || words.slice(0, -1).some((w) => w === 'has' || w === 'is')) return false;
  if (words.some((w) => CREDENTIAL_WORDS.has(w))) return true;
  if (last === 'key' || last === 'keys') return true;
  const joined = words.join('');
  return CREDENTIAL_ENDINGS.some((ending) => joined.endsWith(ending));
}

/** Deeper than this, a subtree is dropped whole (the core refuses metadata nested beyond 32 levels). */
const MAX_DEPTH = 64;

const SIMPLE_SEGMENT = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** A key's path as the report shows it: `a.b[0].c`, odd names as `["odd name"]` (cut at 80 characters). */
function pathWith(parent: string, key: string): string {
  const shown = key.length > 80 ? `${key.slice(0, 80)}…` : key;
  if (SIMPLE_SEGMENT.test(shown)) return parent === '' ? shown : `${parent}.${shown}`;
  return `${parent}[${JSON.stringify(shown)}]`;
}

function setOwn(target: JsonObject, key: string, value: unknown): void {
  // `__proto__` from JSON.parse is an own key: keep it one (plain assignment would set the prototype).
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

interface Scrubbed {
  readonly value: unknown;
  readonly changed: boolean;
}

function scrub(value: unknown, path: string, depth: number, dropped: string[]): Scrubbed {
  if (typeof value !== 'object' || value === null) return { value, changed: false };
  if (depth >= MAX_DEPTH) {
    dropped.push(`${path} (nested deeper than ${MAX_DEPTH} levels)`);
    return { value: undefined, changed: true };
  }
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((element, i) => {
      const result = scrub(element, `${path}[${i}]`, depth + 1, dropped);
      changed ||= result.changed;
      return result.value === undefined && result.changed ? null : result.value;
    });
    return changed ? { value: out, changed } : { value, changed: false };
  }
  let changed = false;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value as JsonObject)) {
    const childPath = pathWith(path, key);
    if (looksLikeCredential(key)) {
      dropped.push(childPath);
      changed = true;
      continue;
    }
    const result = scrub(child, childPath, depth + 1, dropped);
    changed ||= result.changed;
    if (result.value === undefined && result.changed) continue;
    setOwn(out, key, result.value);
  }
  return changed ? { value: out, changed } : { value, changed: false };
}

/**
 * `metadata` without the keys that look like credentials, and the paths of those dropped (in the
 * order they appear). The object is returned as it is when nothing is dropped.
 */
export function withoutCredentialKeys(metadata: JsonObject): { metadata: JsonObject; dropped: string[] } {
  const dropped: string[] = [];
  const result = scrub(metadata, '', 0, dropped);
  return { metadata: result.value as JsonObject, dropped };
}
