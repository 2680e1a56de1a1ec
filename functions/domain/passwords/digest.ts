import { hash as computeDigest } from 'node:crypto';
import { base64Padded, decodeBase64, decodeHex } from './encoding.js';
import { compareDigests, type VerifyResult } from './result.js';
import { defineForm, type Verify } from './scheme.js';

/**
 * Plain message digests, unsalted or salted, in one stored form — Kratos's:
 * `$<md5|sha1|sha256|sha512>$pf=<Base64 template>$<Base64 salt>$<Base64 digest>`, where the
 * template is the digest's input with `{SALT}` and `{PASSWORD}` standing for the salt and the
 * password bytes (`{PASSWORD}` alone when unsalted, `{SALT}{PASSWORD}` for a salt before it, …).
 * The LDAP schemes, Django's legacy salted hashes and bare hex or Base64 digests all convert to it.
 */
const DIGESTS = { md5: 16, sha1: 20, sha256: 32, sha512: 64 } as const;
export type DigestName = keyof typeof DIGESTS;

/** Templates are short (`{SALT}{PASSWORD}` is 16 bytes); salts are at most 64 bytes. */
const MAX_TEMPLATE_BYTES = 128;
const MAX_SALT_BYTES = 64;
const PASSWORD_MARK = Buffer.from('{PASSWORD}');
const SALT_MARK = Buffer.from('{SALT}');

export interface ParsedDigest {
  readonly digest: DigestName;
  readonly template: Buffer;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

/** How many times `mark` occurs in `template`, reading left to right without overlaps. */
function occurrences(template: Buffer, mark: Buffer): number {
  let count = 0;
  for (let at = template.indexOf(mark); at !== -1; at = template.indexOf(mark, at + mark.length)) count++;
  return count;
}

function valid(parsed: ParsedDigest): ParsedDigest | undefined {
  const { digest, template, salt, hash } = parsed;
  if (hash.length !== DIGESTS[digest] || salt.length > MAX_SALT_BYTES) return undefined;
  if (template.length > MAX_TEMPLATE_BYTES || occurrences(template, PASSWORD_MARK) !== 1) return undefined;
  return parsed;
}

function canonicalDigest({ digest, template, salt, hash }: ParsedDigest): string {
  return `$${digest}$pf=${base64Padded(template)}$${base64Padded(salt)}$${base64Padded(hash)}`;
}

const KRATOS_SHAPE = /^\$(md5|sha1|sha256|sha512)\$pf=([^$]+)\$([^$]*)\$([^$]+)$/;
/** Kratos's unsalted `$md5$<Base64 digest>` (accepted for every digest here). */
const KRATOS_UNSALTED_SHAPE = /^\$(md5|sha1|sha256|sha512)\$([^$]+)$/;

function readKratos(text: string): ParsedDigest | undefined {
  const match = KRATOS_SHAPE.exec(text);
  if (match) {
    const [, digest, templateText = '', saltText = '', hashText = ''] = match;
    const template = decodeBase64(templateText);
    const salt = decodeBase64(saltText);
    const hash = decodeBase64(hashText);
    if (!template || !salt || !hash) return undefined;
    return valid({ digest: digest as DigestName, template, salt, hash });
  }
  const unsalted = KRATOS_UNSALTED_SHAPE.exec(text);
  const hash = unsalted && decodeBase64(unsalted[2] ?? '');
  return unsalted && hash ? unsaltedOf(unsalted[1] as DigestName, hash) : undefined;
}

function unsaltedOf(digest: DigestName, hash: Buffer): ParsedDigest | undefined {
  return valid({ digest, template: PASSWORD_MARK, salt: Buffer.alloc(0), hash });
}

/** Django's legacy `sha1$<salt>$<hex>` / `md5$<salt>$<hex>`: digest of salt ‖ password, the salt as text. */
const DJANGO_SHAPE = /^(md5|sha1)\$([^$]*)\$([0-9a-fA-F]+)$/;

function readDjango(digest: DigestName, text: string): ParsedDigest | undefined {
  const match = DJANGO_SHAPE.exec(text);
  if (!match || match[1] !== digest) return undefined;
  const hash = decodeHex(match[3] ?? '');
  const salt = Buffer.from(match[2] ?? '', 'utf8');
  return hash ? valid({ digest, template: Buffer.from('{SALT}{PASSWORD}'), salt, hash }) : undefined;
}

/** A bare digest: hex (either case) or Base64 (± padding) of exactly the digest's size. */
function readBare(digest: DigestName, text: string): ParsedDigest | undefined {
  const hash = text.length === DIGESTS[digest] * 2 ? decodeHex(text) : decodeBase64(text);
  return hash ? unsaltedOf(digest, hash) : undefined;
}

/**
 * The `MD5`, `SHA1`, `SHA256` and `SHA512` imports: a bare hex or Base64 digest, Kratos's
 * `$<alg>$pf=…$<salt>$<hash>` (or `$<alg>$<hash>`), Django's `sha1$…` / `md5$…`. The digest named
 * in a prefixed form must be the declared one.
 */
export function importDigest(digest: DigestName, text: string): string | undefined {
  let parsed: ParsedDigest | undefined;
  if (text.startsWith('$')) {
    parsed = readKratos(text);
    if (parsed && parsed.digest !== digest) parsed = undefined;
  } else if (text.startsWith(`${digest}$`)) {
    parsed = readDjango(digest, text);
  } else {
    parsed = readBare(digest, text);
  }
  return parsed ? canonicalDigest(parsed) : undefined;
}

/**
 * RFC 2307-style LDAP values: `{SSHA}`, `{SSHA256}`, `{SSHA512}`, `{SMD5}` hold
 * Base64(digest(password ‖ salt) ‖ salt), `{SHA}` and `{MD5}` Base64(digest(password)). The scheme
 * name is case-insensitive, as LDAP servers read it.
 */
const LDAP_SCHEMES: Readonly<Record<string, { digest: DigestName; salted: boolean }>> = {
  SSHA: { digest: 'sha1', salted: true },
  SSHA256: { digest: 'sha256', salted: true },
  SSHA512: { digest: 'sha512', salted: true },
  SMD5: { digest: 'md5', salted: true },
  SHA: { digest: 'sha1', salted: false },
  MD5: { digest: 'md5', salted: false },
};
const LDAP_SHAPE = /^\{([A-Za-z0-9]+)\}(.+)$/;

/**
 * The `LDAP` import; stored in the digest form with the template `{PASSWORD}{SALT}`. The stored
 * (`$<digest>$pf=…`) form is accepted too, so a converted hash passes the check again unchanged.
 */
export function importLdap(text: string): string | undefined {
  if (text.startsWith('$')) {
    const stored = readKratos(text);
    return stored ? canonicalDigest(stored) : undefined;
  }
  const match = LDAP_SHAPE.exec(text);
  const name = (match?.[1] ?? '').toUpperCase();
  const scheme = Object.hasOwn(LDAP_SCHEMES, name) ? LDAP_SCHEMES[name] : undefined;
  const decoded = match && scheme ? decodeBase64(match[2] ?? '') : undefined;
  if (!scheme || !decoded) return undefined;
  const size = DIGESTS[scheme.digest];
  const parsed = !scheme.salted
    ? unsaltedOf(scheme.digest, decoded)
    : decoded.length <= size
      ? undefined
      : valid({
          digest: scheme.digest,
          template: Buffer.from('{PASSWORD}{SALT}'),
          salt: decoded.subarray(size),
          hash: decoded.subarray(0, size),
        });
  return parsed ? canonicalDigest(parsed) : undefined;
}

/** The template with every `{SALT}` and the `{PASSWORD}` replaced, in one left-to-right pass. */
function digestInput(template: Buffer, salt: Buffer, password: Buffer): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (let at = 0; at < template.length; ) {
    const mark = template.subarray(at, at + PASSWORD_MARK.length).equals(PASSWORD_MARK)
      ? PASSWORD_MARK
      : template.subarray(at, at + SALT_MARK.length).equals(SALT_MARK)
        ? SALT_MARK
        : undefined;
    if (!mark) {
      at++;
      continue;
    }
    parts.push(template.subarray(from, at), mark === PASSWORD_MARK ? password : salt);
    at += mark.length;
    from = at;
  }
  parts.push(template.subarray(from));
  return Buffer.concat(parts);
}

const STORED_PREFIX = /^\$(?:md5|sha1|sha256|sha512)\$/;

export const digestForm = defineForm<ParsedDigest>({
  legacy: true,
  claims: (stored) => STORED_PREFIX.test(stored),
  parse: readKratos,
  check: () => undefined,
});

export const verifyDigest: Verify<ParsedDigest> = async (
  plain,
  { digest, template, salt, hash },
): Promise<VerifyResult> => {
  const input = digestInput(template, salt, Buffer.from(plain, 'utf8'));
  return compareDigests(computeDigest(digest, input, 'buffer'), hash);
};
