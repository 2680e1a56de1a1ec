import { pbkdf2 } from 'node:crypto';
import { base64Unpadded, decodeBase64, parseDecimal } from './encoding.js';
import { PasswordHashingError } from './errors.js';
import { aboveLimit, belowMinimum, HASH_LIMITS, type ParameterProblem } from './limits.js';
import { compareDigests, type VerifyResult } from './result.js';
import { defineForm, type Verify } from './scheme.js';
import { KDF_KEY_MAX_BYTES, KDF_KEY_MIN_BYTES, KDF_SALT_MAX_BYTES } from './scrypt.js';

/**
 * The HMAC digests of Kratos's form, by the name in its prefix: node:crypto's name, the output
 * size in bytes, and the HASH_LIMITS bound on iterations × output blocks. In Kratos's form
 * `sha224` and `sha384` are SHA3-224 and SHA3-384 (what Kratos computes for them, pinned by its
 * test fixtures), not the SHA-2 functions of the same size.
 */
const DIGESTS = {
  sha1: { node: 'sha1', bytes: 20, limit: HASH_LIMITS.pbkdf2.maxIterationBlocks },
  sha224: { node: 'sha3-224', bytes: 28, limit: HASH_LIMITS.pbkdf2.maxIterationBlocksSha3 },
  sha256: { node: 'sha256', bytes: 32, limit: HASH_LIMITS.pbkdf2.maxIterationBlocks },
  sha384: { node: 'sha3-384', bytes: 48, limit: HASH_LIMITS.pbkdf2.maxIterationBlocksSha3 },
  sha512: { node: 'sha512', bytes: 64, limit: HASH_LIMITS.pbkdf2.maxIterationBlocks },
} as const;
type Pbkdf2Digest = keyof typeof DIGESTS;

export interface ParsedPbkdf2 {
  readonly digest: Pbkdf2Digest;
  readonly iterations: number;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

function isDigest(name: string): name is Pbkdf2Digest {
  return Object.hasOwn(DIGESTS, name);
}

function withinSizes(salt: Buffer, hash: Buffer): boolean {
  return salt.length <= KDF_SALT_MAX_BYTES && hash.length >= KDF_KEY_MIN_BYTES && hash.length <= KDF_KEY_MAX_BYTES;
}

/** Kratos's form: `$pbkdf2-<digest>$i=<iterations>[,l=<key length>]$<salt>$<hash>`, Base64 ± padding. */
const KRATOS_SHAPE = /^\$pbkdf2-(sha[0-9]{1,3})\$i=([0-9]{1,10})(?:,l=([0-9]{1,10}))?\$([^$]*)\$([^$]+)$/;

function readKratos(text: string): ParsedPbkdf2 | undefined {
  const match = KRATOS_SHAPE.exec(text);
  if (!match) return undefined;
  const [, digest = '', iterationsText = '', lengthText, saltText = '', hashText = ''] = match;
  const iterations = parseDecimal(iterationsText);
  const salt = decodeBase64(saltText);
  const hash = decodeBase64(hashText);
  if (!isDigest(digest) || iterations === undefined || !salt || !hash || !withinSizes(salt, hash)) return undefined;
  if (lengthText !== undefined && parseDecimal(lengthText) !== hash.length) return undefined;
  return { digest, iterations, salt, hash };
}

/**
 * Django's `pbkdf2_sha256$<iterations>$<salt>$<Base64 hash>` and `pbkdf2_sha1$…`. The salt is
 * text and PBKDF2 uses its UTF-8 bytes.
 */
const DJANGO_SHAPE = /^pbkdf2_(sha1|sha256)\$([0-9]{1,10})\$([^$]*)\$([^$]+)$/;

function readDjango(text: string): ParsedPbkdf2 | undefined {
  const match = DJANGO_SHAPE.exec(text);
  if (!match) return undefined;
  const [, digest = '', iterationsText = '', saltText = '', hashText = ''] = match;
  const iterations = parseDecimal(iterationsText);
  const salt = Buffer.from(saltText, 'utf8');
  const hash = decodeBase64(hashText);
  if (!isDigest(digest) || iterations === undefined || !hash || !withinSizes(salt, hash)) return undefined;
  if (hash.length !== DIGESTS[digest].bytes) return undefined;
  return { digest, iterations, salt, hash };
}

/**
 * ASP.NET Core Identity's Base64 blobs. Version 2: `0x00 ‖ salt (16) ‖ subkey (32)`, PBKDF2 with
 * HMAC-SHA-1 and 1000 iterations. Version 3: `0x01 ‖ PRF ‖ iterations ‖ salt length` (big-endian
 * uint32 each; PRF 0 = SHA-1, 1 = SHA-256, 2 = SHA-512) `‖ salt ‖ subkey`, salt and subkey at
 * least 128 bits, as ASP.NET itself requires.
 */
const ASPNET_V2 = { marker: 0x00, bytes: 49, saltBytes: 16, iterations: 1000 } as const;
const ASPNET_V3_PRF: readonly Pbkdf2Digest[] = ['sha1', 'sha256', 'sha512'];
const ASPNET_V3_HEADER_BYTES = 13;
const ASPNET_MIN_PART_BYTES = 16;

function readAspNet(text: string): ParsedPbkdf2 | undefined {
  const blob = decodeBase64(text);
  if (!blob || blob.length === 0) return undefined;
  if (blob[0] === ASPNET_V2.marker) {
    if (blob.length !== ASPNET_V2.bytes) return undefined;
    const salt = blob.subarray(1, 1 + ASPNET_V2.saltBytes);
    const hash = blob.subarray(1 + ASPNET_V2.saltBytes);
    return { digest: 'sha1', iterations: ASPNET_V2.iterations, salt, hash };
  }
  if (blob[0] !== 0x01 || blob.length < ASPNET_V3_HEADER_BYTES) return undefined;
  const digest = ASPNET_V3_PRF[blob.readUInt32BE(1)];
  const iterations = blob.readUInt32BE(5);
  const saltLength = blob.readUInt32BE(9);
  if (digest === undefined || saltLength < ASPNET_MIN_PART_BYTES) return undefined;
  if (blob.length < ASPNET_V3_HEADER_BYTES + saltLength + ASPNET_MIN_PART_BYTES) return undefined;
  const salt = blob.subarray(ASPNET_V3_HEADER_BYTES, ASPNET_V3_HEADER_BYTES + saltLength);
  const hash = blob.subarray(ASPNET_V3_HEADER_BYTES + saltLength);
  return withinSizes(salt, hash) ? { digest, iterations, salt, hash } : undefined;
}

function canonicalPbkdf2({ digest, iterations, salt, hash }: ParsedPbkdf2): string {
  return `$pbkdf2-${digest}$i=${iterations},l=${hash.length}$${base64Unpadded(salt)}$${base64Unpadded(hash)}`;
}

/**
 * The `PBKDF2` import: Kratos's form (Keycloak exports convert to it), Django's `pbkdf2_sha256` /
 * `pbkdf2_sha1`, ASP.NET Core Identity v2 and v3. Canonical stored form: Kratos's, with `l=` and
 * unpadded Base64.
 */
export function importPbkdf2(text: string): string | undefined {
  const parsed = text.startsWith('$pbkdf2-')
    ? readKratos(text)
    : text.startsWith('pbkdf2_')
      ? readDjango(text)
      : readAspNet(text);
  return parsed ? canonicalPbkdf2(parsed) : undefined;
}

function checkPbkdf2({ digest, iterations, hash }: ParsedPbkdf2): ParameterProblem | undefined {
  if (iterations < 1) return belowMinimum('iterations', iterations, 1);
  const blocks = Math.ceil(hash.length / DIGESTS[digest].bytes);
  const limit = DIGESTS[digest].limit;
  if (iterations * blocks > limit) {
    return blocks === 1
      ? aboveLimit('iterations', iterations, limit)
      : aboveLimit(`iterations × ${blocks} output blocks`, iterations * blocks, limit);
  }
  return undefined;
}

/** Stored form `$pbkdf2-<digest>$i=…,l=…$<salt>$<hash>`; node:crypto derives on the libuv thread pool. */
export const pbkdf2Form = defineForm<ParsedPbkdf2>({
  legacy: true,
  claims: (stored) => stored.startsWith('$pbkdf2-'),
  parse: readKratos,
  check: checkPbkdf2,
});

export const verifyPbkdf2: Verify<ParsedPbkdf2> = async (
  plain,
  { digest, iterations, salt, hash },
): Promise<VerifyResult> => {
  const computed = await new Promise<Buffer>((resolve, reject) => {
    try {
      pbkdf2(Buffer.from(plain, 'utf8'), salt, iterations, hash.length, DIGESTS[digest].node, (error, key) =>
        error ? reject(new PasswordHashingError('pbkdf2 verification failed')) : resolve(key),
      );
    } catch {
      reject(new PasswordHashingError('pbkdf2 verification failed'));
    }
  });
  return compareDigests(computed, hash);
};
