/**
 * Envelope encryption of credentials at rest: AES-256-GCM under a data key from a key provider
 * (functions/domain/credentials/ports.ts), the wrapped data key stored beside what it seals.
 *
 * - Sealing keys are cached per execution environment and context (app and purpose) for a bounded
 *   time and number of uses: a staging request of 10,000 users costs one GenerateDataKey, not
 *   10,000, and a warm function reuses it for its next requests of the same app.
 * - Unwrapped keys are cached per wrapped key (bounded, with an age limit): a worker batch of one
 *   staging request's rows costs one Decrypt.
 * - A sealed box is `version (1) | IV (12) | ciphertext | tag (16)`; its associated data binds it
 *   to where it is stored (app, row), so a box moved elsewhere does not open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { type DataKeyProvider, type KeyContext, UnreadableSecretError } from '#functions/domain/credentials/ports.js';
import { setNewest } from '#functions/shared/bounded-cache.js';

/** A sealing key is replaced after this long… */
export const SEALING_KEY_MAX_AGE_MS = 5 * 60_000;
/**
 * …or after this many seals. GCM with random 96-bit IVs stays far inside NIST SP 800-38D's 2^32
 * messages per key (collision odds ≈ 2^-58 here), and one key protects at most 10 requests' rows.
 */
export const SEALING_KEY_MAX_USES = 100_000;
/** Unwrapped keys kept per execution environment, and for how long. */
const OPENING_KEY_CACHE_SIZE = 1_000;
const OPENING_KEY_MAX_AGE_MS = 15 * 60_000;

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A data key ready to seal: `id` names it where its wrapped form is stored apart from the boxes. */
export interface SealingKey {
  readonly id: string;
  readonly wrapped: Uint8Array;
  /** Seals `plaintext` bound to `aad` (counts one use). */
  seal(plaintext: Uint8Array, aad: string): Buffer;
}

interface CachedSealingKey {
  readonly key: Promise<{ id: string; wrapped: Uint8Array; plaintext: Buffer }>;
  readonly createdAt: number;
  uses: number;
}

const contextKey = (c: KeyContext) => `${c.purpose}\u0000${c.appId}`;

function sealWith(key: Buffer, plaintext: Uint8Array, aad: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.of(VERSION), iv, body, cipher.getAuthTag()]);
}

/** Opens a box sealed by {@link sealWith} under `key` and `aad`; anything else is `altered`. */
export function openWith(key: Uint8Array, box: Uint8Array, aad: string): Buffer {
  const bytes = Buffer.from(box);
  if (bytes.length < 1 + IV_BYTES + TAG_BYTES || bytes[0] !== VERSION) {
    throw new UnreadableSecretError('altered', 'the sealed value is not in a known format');
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(1, 1 + IV_BYTES));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(1 + IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new UnreadableSecretError('altered', 'the sealed value does not match its key or its place');
  }
}

export class Envelope {
  private readonly sealing = new Map<string, CachedSealingKey>();
  private readonly opening = new Map<string, { key: Promise<Uint8Array>; at: number }>();

  constructor(
    private readonly provider: DataKeyProvider,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A sealing key for `context` with room for `uses` seals: the cached one while it is young and
   * has room, else a fresh data key (one provider call, shared by concurrent callers).
   */
  async sealingKey(context: KeyContext, uses: number): Promise<SealingKey> {
    const id = contextKey(context);
    let cached = this.sealing.get(id);
    const now = this.now();
    if (!cached || now - cached.createdAt >= SEALING_KEY_MAX_AGE_MS || cached.uses + uses > SEALING_KEY_MAX_USES) {
      const key = this.provider.generateDataKey(context).then(({ plaintext, wrapped }) => ({
        id: randomBytes(12).toString('base64url'),
        wrapped,
        plaintext: Buffer.from(plaintext),
      }));
      const fresh: CachedSealingKey = { key, createdAt: now, uses: 0 };
      key.catch(() => {
        if (this.sealing.get(id) === fresh) this.sealing.delete(id);
      });
      this.sealing.set(id, fresh);
      cached = fresh;
    }
    cached.uses += uses;
    const { id: keyId, wrapped, plaintext } = await cached.key;
    return { id: keyId, wrapped, seal: (data, aad) => sealWith(plaintext, data, aad) };
  }

  /** The data key of `wrapped` (made for `context`), cached per wrapped key. */
  async openingKey(wrapped: Uint8Array, context: KeyContext): Promise<Uint8Array> {
    const id = `${contextKey(context)}\u0000${Buffer.from(wrapped).toString('base64')}`;
    const now = this.now();
    const cached = this.opening.get(id);
    if (cached && now - cached.at < OPENING_KEY_MAX_AGE_MS) {
      // Most recently used last: the first entry is the one to evict.
      setNewest(this.opening, id, cached, OPENING_KEY_CACHE_SIZE);
      return cached.key;
    }
    const key = this.provider.unwrapDataKey(wrapped, context);
    const entry = { key, at: now };
    key.catch(() => {
      if (this.opening.get(id) === entry) this.opening.delete(id);
    });
    setNewest(this.opening, id, entry, OPENING_KEY_CACHE_SIZE);
    return key;
  }

  /** Seals one value with a data key of its own wrapped inline: `wrapped length (2) | wrapped | box`. */
  async sealInline(plaintext: Uint8Array, context: KeyContext, aad: string): Promise<Buffer> {
    const key = await this.sealingKey(context, 1);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(key.wrapped.length);
    return Buffer.concat([length, Buffer.from(key.wrapped), key.seal(plaintext, aad)]);
  }

  /** Opens what {@link sealInline} sealed, for the same context and associated data. */
  async openInline(sealed: Uint8Array, context: KeyContext, aad: string): Promise<Buffer> {
    const bytes = Buffer.from(sealed);
    const length = bytes.length >= 2 ? bytes.readUInt16BE(0) : -1;
    if (length <= 0 || bytes.length < 2 + length) {
      throw new UnreadableSecretError('altered', 'the sealed value is not in a known format');
    }
    const key = await this.openingKey(bytes.subarray(2, 2 + length), context);
    return openWith(key, bytes.subarray(2 + length), aad);
  }
}
