/**
 * Password hashes of the sources in the forms the core's import accepts (docs/password-hashes.md):
 * a source's own spelling is rewritten into one the core reads, the bytes untouched. Only the shape is
 * checked here; the core checks the parameters against its bounds and answers per user. A reason never
 * quotes the hash.
 */
import type { HashingAlgorithm } from '../contract.js';
import { isArgon2, isBcrypt } from './common.js';

export type HashConversion =
  | { readonly ok: true; readonly passwordHash: string; readonly hashingAlgorithm: HashingAlgorithm }
  | { readonly ok: false; readonly reason: string };

const hashOf = (hashingAlgorithm: HashingAlgorithm, passwordHash: string): HashConversion => ({
  ok: true,
  passwordHash,
  hashingAlgorithm,
});
export const noHash = (reason: string): HashConversion => ({ ok: false, reason });

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const DECIMAL = /^[0-9]{1,10}$/;

/** Standard Base64 (padded or not) → bytes; undefined when it is not exactly that. */
export function base64Bytes(text: string): Buffer | undefined {
  if (!BASE64.test(text) || text.replace(/=+$/, '').length % 4 === 1) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64').replace(/=+$/, '') === text.replace(/=+$/, '') ? bytes : undefined;
}

function hexBytes(text: string): Buffer | undefined {
  return HEX.test(text) ? Buffer.from(text, 'hex') : undefined;
}

export function decimal(text: string | undefined): number | undefined {
  return text !== undefined && DECIMAL.test(text) ? Number(text) : undefined;
}

const unpadded = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

export type Pbkdf2Digest = 'sha1' | 'sha256' | 'sha512';

/** Ory Kratos's PBKDF2 form, which the core stores: `$pbkdf2-<digest>$i=<n>,l=<key bytes>$<salt>$<key>`. */
export function kratosPbkdf2(digest: Pbkdf2Digest, iterations: number, salt: Buffer, key: Buffer): HashConversion {
  return hashOf('PBKDF2', `$pbkdf2-${digest}$i=${iterations},l=${key.length}$${unpadded(salt)}$${unpadded(key)}`);
}

/** passlib's scrypt form: `$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<key>`; N must be a power of two. */
function passlibScrypt(n: number, r: number, p: number, salt: Buffer, key: Buffer): HashConversion {
  const logN = Math.log2(n);
  if (!Number.isInteger(logN) || logN < 1) return noHash(`scrypt N ${n} is not a power of two`);
  return hashOf('SCRYPT', `$scrypt$ln=${logN},r=${r},p=${p}$${unpadded(salt)}$${unpadded(key)}`);
}

/** The PHC string of an Argon2 hash (version 1.3 only: the core computes nothing else). */
export function phcArgon2(
  variant: 'argon2id' | 'argon2i' | 'argon2d',
  params: { memoryKiB: number; iterations: number; parallelism: number },
  salt: Buffer,
  key: Buffer,
): HashConversion {
  return hashOf(
    'ARGON2',
    `$${variant}$v=19$m=${params.memoryKiB},t=${params.iterations},p=${params.parallelism}$${unpadded(salt)}$${unpadded(key)}`,
  );
}

const PORTABLE = /^\$[PH]\$[./0-9A-Za-z]{31}$/;

const isPortablePhpass = (hash: string) => PORTABLE.test(hash);

/**
 * Django's `<algorithm>$…` values (`django.contrib.auth.hashers`): PBKDF2 and the legacy salted
 * digests as they are, Argon2 and bcrypt without Django's prefix, scrypt rewritten in passlib's form
 * (Django uses the salt's text as bytes and keeps a 64-byte key).
 */
export function djangoHash(value: string): HashConversion {
  if (value === '' || value.startsWith('!'))
    return noHash('the user has no usable password (Django marks it with "!")');
  const [algorithm = '', ...rest] = value.split('$');
  switch (algorithm) {
    case 'pbkdf2_sha256':
    case 'pbkdf2_sha1':
      return rest.length === 3 ? hashOf('PBKDF2', value) : noHash(`the ${algorithm} password is malformed`);
    case 'argon2': {
      const phc = `$${rest.join('$')}`;
      return isArgon2(phc) ? hashOf('ARGON2', phc) : noHash('the argon2 password is malformed');
    }
    case 'bcrypt': {
      const bcrypt = value.slice('bcrypt$'.length);
      return isBcrypt(bcrypt) ? hashOf('BCRYPT', bcrypt) : noHash('the bcrypt password is malformed');
    }
    case 'scrypt': {
      // scrypt$<N>$<salt>$<r>$<p>$<Base64 key>
      const [nText, salt = '', rText, pText, keyText = ''] = rest;
      const n = decimal(nText);
      const r = decimal(rText);
      const p = decimal(pText);
      const key = base64Bytes(keyText);
      if (rest.length !== 5 || n === undefined || r === undefined || p === undefined || !key || key.length === 0)
        return noHash('the scrypt password is malformed');
      return passlibScrypt(n, r, p, Buffer.from(salt, 'utf8'), key);
    }
    // Salted, and unsalted as `sha1$$<hex>` / `md5$$<hex>`.
    case 'sha1':
    case 'md5':
      return rest.length === 2
        ? hashOf(algorithm === 'sha1' ? 'SHA1' : 'MD5', value)
        : noHash(`the ${algorithm} password is malformed`);
    case 'bcrypt_sha256':
      return noHash("Django's bcrypt_sha256 (bcrypt of the password's SHA-256) is not a hash the core verifies");
    case 'crypt':
      return noHash("Django's crypt (Unix crypt(3)) is not a hash the core verifies");
    default:
      // Django's UnsaltedMD5PasswordHasher writes the bare hex digest.
      if (/^[0-9a-f]{32}$/.test(value)) return hashOf('MD5', value);
      // Only a hasher's name is quoted: a value without one may be the hash itself.
      return rest.length > 0 && /^[a-z0-9_]{1,30}$/.test(algorithm)
        ? noHash(`Django's ${algorithm} hasher is not one the core reads`)
        : noHash('the password is not in the form of a Django hasher the core reads');
  }
}

/**
 * WordPress's `user_pass`: phpass (`$P$`, phpBB's `$H$`), WordPress 6.8's `$wp$2y$…`, bcrypt written by
 * password plugins (`$2y$…`), and the bare MD5 of WordPress before 2.5.
 */
export function wordpressHash(value: string): HashConversion {
  if (value === '') return noHash('user_pass is empty');
  if (isPortablePhpass(value) || value.startsWith('$wp$')) return hashOf('PHPASS', value);
  if (isBcrypt(value)) return hashOf('BCRYPT', value);
  if (/^[0-9a-fA-F]{32}$/.test(value)) return hashOf('MD5', value);
  return noHash('user_pass is not a phpass, WordPress, bcrypt or MD5 hash');
}

/** Clerk's hashers the core verifies, each with the digest form Clerk documents (create-user `password_hasher`). */
const CLERK_CONVERTERS: Readonly<Record<string, (digest: string) => HashConversion>> = {
  bcrypt: (digest) => (isBcrypt(digest) ? hashOf('BCRYPT', digest) : noHash('password_digest is not in bcrypt format')),
  argon2i: (digest) =>
    digest.startsWith('$argon2i$') ? hashOf('ARGON2', digest) : noHash('password_digest is not in argon2i format'),
  argon2id: (digest) =>
    digest.startsWith('$argon2id$') ? hashOf('ARGON2', digest) : noHash('password_digest is not in argon2id format'),
  md5: (digest) =>
    /^[0-9a-fA-F]{32}$/.test(digest) ? hashOf('MD5', digest) : noHash('password_digest is not an MD5 hex digest'),
  sha256: (digest) =>
    /^[0-9a-fA-F]{64}$/.test(digest) ? hashOf('SHA256', digest) : noHash('password_digest is not a SHA-256 hex digest'),
  // pbkdf2_sha256$<iterations>$<Base64 salt>$<Base64 key>
  pbkdf2_sha256: (digest) => {
    const [name, iterations, salt, key, ...extra] = digest.split('$');
    const parts = clerkPbkdf2Parts(
      name,
      'pbkdf2_sha256',
      iterations,
      salt && base64Bytes(salt),
      key && base64Bytes(key),
      extra,
    );
    return parts ? kratosPbkdf2('sha256', ...parts) : noHash('password_digest is not in pbkdf2_sha256 format');
  },
  // Django's own form: the salt is text (the core reads it as it is).
  pbkdf2_sha256_django: (digest) =>
    /^pbkdf2_sha256\$[0-9]{1,10}\$[^$]*\$[A-Za-z0-9+/]+={0,2}$/.test(digest)
      ? hashOf('PBKDF2', digest)
      : noHash('password_digest is not in pbkdf2_sha256_django format'),
  // pbkdf2_sha1$<iterations>$<salt>$<hex key>[$<key length>]: a salt that is hex is decoded, any other is its text.
  pbkdf2_sha1: (digest) => {
    const [name, iterations, salt, key, ...extra] = digest.split('$');
    const keyBytes = key === undefined ? undefined : hexBytes(key);
    const length = extra.length === 1 ? decimal(extra[0]) : undefined;
    if (extra.length === 1 && length !== keyBytes?.length)
      return noHash('password_digest is not in pbkdf2_sha1 format');
    const saltBytes = salt === undefined ? undefined : (hexBytes(salt) ?? Buffer.from(salt, 'utf8'));
    const parts = clerkPbkdf2Parts(name, 'pbkdf2_sha1', iterations, saltBytes, keyBytes, extra.slice(1));
    return parts ? kratosPbkdf2('sha1', ...parts) : noHash('password_digest is not in pbkdf2_sha1 format');
  },
  // pbkdf2_sha512$<iterations>$<salt text>$<hex key>
  pbkdf2_sha512: (digest) => {
    const [name, iterations, salt, key, ...extra] = digest.split('$');
    const saltBytes = salt === undefined ? undefined : Buffer.from(salt, 'utf8');
    const parts = clerkPbkdf2Parts(name, 'pbkdf2_sha512', iterations, saltBytes, key && hexBytes(key), extra);
    return parts ? kratosPbkdf2('sha512', ...parts) : noHash('password_digest is not in pbkdf2_sha512 format');
  },
  // pbkdf2_sha512_hex$<iterations>$<hex salt>$<hex key>
  pbkdf2_sha512_hex: (digest) => {
    const [name, iterations, salt, key, ...extra] = digest.split('$');
    const parts = clerkPbkdf2Parts(
      name,
      'pbkdf2_sha512_hex',
      iterations,
      salt && hexBytes(salt),
      key && hexBytes(key),
      extra,
    );
    return parts ? kratosPbkdf2('sha512', ...parts) : noHash('password_digest is not in pbkdf2_sha512_hex format');
  },
  phpass: (digest) =>
    isPortablePhpass(digest) ? hashOf('PHPASS', digest) : noHash('password_digest is not in phpass format'),
  md5_phpass: (digest) =>
    isPortablePhpass(digest) ? hashOf('PHPASS', digest) : noHash('password_digest is not in md5_phpass format'),
  ldap_ssha: (digest) =>
    /^\{SSHA\}[A-Za-z0-9+/]+={0,2}$/i.test(digest)
      ? hashOf('LDAP', digest)
      : noHash('password_digest is not in ldap_ssha format'),
  // Werkzeug's generate_password_hash: scrypt:<N>:<r>:<p>$<salt text>$<hex key> (Clerk's docs show a leading `$`).
  scrypt_werkzeug: (digest) => {
    const match = /^\$?scrypt:([0-9]{1,10}):([0-9]{1,10}):([0-9]{1,10})\$([^$]+)\$([^$]+)$/.exec(digest);
    const key = match && (hexBytes(match[5] as string) ?? base64Bytes(match[5] as string));
    if (!match || !key || key.length === 0) return noHash('password_digest is not in scrypt_werkzeug format');
    return passlibScrypt(
      Number(match[1]),
      Number(match[2]),
      Number(match[3]),
      Buffer.from(match[4] as string, 'utf8'),
      key,
    );
  },
};

/** Why each of Clerk's other hashers is not converted. */
const CLERK_NOT_CONVERTED: Readonly<Record<string, string>> = {
  scrypt_firebase:
    "a scrypt_firebase digest carries its Firebase project's signer key: migrate these users from the Firebase export (--from firebase)",
  bcrypt_sha256_django: "bcrypt_sha256_django (bcrypt of the password's SHA-256) is not a hash the core verifies",
  bcrypt_peppered: 'bcrypt_peppered (bcrypt of the password and a pepper) is not a hash the core verifies',
  hmac_sha256_utf16_b64: 'hmac_sha256_utf16_b64 is not a hash the core verifies',
  sha512_symfony: "sha512_symfony (Symfony's iterated SHA-512) is not a hash the core verifies",
  md5_salted: 'Clerk does not document where md5_salted puts the salt, so the digest cannot be converted',
  sha256_salted: 'Clerk does not document where sha256_salted puts the salt, so the digest cannot be converted',
  awscognito: 'an awscognito digest is a reference to a Cognito user pool, not a password hash',
};

/** A Clerk `password_digest` with its `password_hasher`. */
export function clerkHash(hasher: string, digest: string): HashConversion {
  const convert = Object.hasOwn(CLERK_CONVERTERS, hasher) ? CLERK_CONVERTERS[hasher] : undefined;
  if (convert) return convert(digest);
  const why = Object.hasOwn(CLERK_NOT_CONVERTED, hasher) ? CLERK_NOT_CONVERTED[hasher] : undefined;
  if (why !== undefined) return noHash(why);
  // Only a hasher's name is quoted: with the columns swapped, the hasher column holds the digest.
  const named = /^[a-z0-9_]{1,40}$/.test(hasher) ? `password_hasher ${hasher}` : 'password_hasher';
  return noHash(`${named} is not one of Clerk's documented hashers`);
}

function clerkPbkdf2Parts(
  name: string | undefined,
  expected: string,
  iterationsText: string | undefined,
  salt: Buffer | '' | undefined,
  key: Buffer | '' | undefined,
  extra: readonly string[],
): [number, Buffer, Buffer] | undefined {
  const iterations = decimal(iterationsText);
  if (name !== expected || iterations === undefined || extra.length > 0) return undefined;
  if (salt === undefined || salt === '' || key === undefined || key === '' || key.length === 0) return undefined;
  return [iterations, salt, key];
}
