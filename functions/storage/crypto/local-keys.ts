/**
 * The local runtime's key provider: a 32-byte key from a file under DATA_DIR (created by the
 * runtime on first start, bin/local/key-file.ts), or a process-lifetime key with `--in-memory`.
 * Data keys are wrapped with it by AES-256-GCM, bound to their context:
 * `'L' (1) | key id (8) | IV (12) | wrapped key (32) | tag (16)`, the key id being the first 8
 * bytes of the key's SHA-256, so a data key wrapped under another key is told apart from an
 * altered one.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type DataKeyProvider, type KeyContext, UnreadableSecretError } from '#functions/domain/credentials/ports.js';
import { KeyServiceUnavailableError } from '#functions/shared/errors.js';

export const LOCAL_KEY_BYTES = 32;
/** First byte of a data key wrapped by this provider ('K' is KMS's, kms-keys.ts). */
const LOCAL_WRAP_TAG = 0x4c;
const KEY_ID_BYTES = 8;
const IV_BYTES = 12;
const TAG_BYTES = 16;

const associatedData = (context: KeyContext) => Buffer.from(`${context.purpose}\u0000${context.appId}`, 'utf8');

/** The key id written into every wrapped data key: which local key wrapped it. */
function localKeyId(key: Uint8Array): Buffer {
  return createHash('sha256').update(key).digest().subarray(0, KEY_ID_BYTES);
}

export function createLocalKeyProvider(key: Uint8Array): DataKeyProvider {
  if (key.length !== LOCAL_KEY_BYTES) throw new Error(`the local key must be ${LOCAL_KEY_BYTES} bytes`);
  const master = Buffer.from(key);
  const id = localKeyId(master);
  return {
    async generateDataKey(context) {
      const plaintext = randomBytes(LOCAL_KEY_BYTES);
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', master, iv);
      cipher.setAAD(associatedData(context));
      const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return { plaintext, wrapped: Buffer.concat([Buffer.of(LOCAL_WRAP_TAG), id, iv, body, cipher.getAuthTag()]) };
    },
    async unwrapDataKey(wrapped, context) {
      const bytes = Buffer.from(wrapped);
      if (bytes[0] !== LOCAL_WRAP_TAG) {
        throw new UnreadableSecretError('other-key', 'sealed under a key of another provider (not the local key)');
      }
      if (bytes.length !== 1 + KEY_ID_BYTES + IV_BYTES + LOCAL_KEY_BYTES + TAG_BYTES) {
        throw new UnreadableSecretError('altered', 'the wrapped data key is not in a known format');
      }
      if (!bytes.subarray(1, 1 + KEY_ID_BYTES).equals(id)) {
        throw new UnreadableSecretError(
          'other-key',
          'sealed under another local key (the key file was replaced or lost)',
        );
      }
      const ivStart = 1 + KEY_ID_BYTES;
      try {
        const decipher = createDecipheriv('aes-256-gcm', master, bytes.subarray(ivStart, ivStart + IV_BYTES));
        decipher.setAAD(associatedData(context));
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        return Buffer.concat([
          decipher.update(bytes.subarray(ivStart + IV_BYTES, bytes.length - TAG_BYTES)),
          decipher.final(),
        ]);
      } catch {
        throw new UnreadableSecretError('altered', 'the wrapped data key does not match its app');
      }
    },
  };
}

/**
 * The provider over the local runtime's key file, read at its first use and kept from then on. A
 * file that cannot be read — permissions, an I/O error, a missing file, not 32 bytes — is the key
 * service being unavailable (KeyServiceUnavailableError: 503 from a route, the message back to the
 * queue from a worker, never a FAILED user), and the next use reads it again: once the file is
 * restored, requests and imports go on. Messages name the file and the error code, never its
 * content.
 */
export function createLocalKeyFileProvider(
  path: string,
  read: (path: string) => Buffer = readFileSync,
): DataKeyProvider {
  let provider: DataKeyProvider | undefined;
  const load = (): DataKeyProvider => {
    if (provider) return provider;
    let key: Buffer;
    try {
      key = read(path);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const why = typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown error';
      throw new KeyServiceUnavailableError('unavailable', `the key file ${path} cannot be read (${why})`);
    }
    if (key.length !== LOCAL_KEY_BYTES) {
      throw new KeyServiceUnavailableError(
        'unavailable',
        `the key file ${path} must hold exactly ${LOCAL_KEY_BYTES} bytes (it holds ${key.length})`,
      );
    }
    provider = createLocalKeyProvider(key);
    return provider;
  };
  return {
    generateDataKey: async (context) => load().generateDataKey(context),
    unwrapDataKey: async (wrapped, context) => load().unwrapDataKey(wrapped, context),
  };
}
