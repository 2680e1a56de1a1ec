/**
 * An app's signing keys (docs/sessions.md "Signing keys"): which dynamic key signs now, when the
 * next one is due, which public keys still verify, and a bounded per-process cache of them.
 *
 * Rotation follows the reference core: dynamic key `d-<createdAt>` signs for
 * `access_token_dynamic_signing_key_update_interval`; its successor is created an overlap before
 * that (so a verifier's JWKS cache can learn the new key before tokens signed with it arrive) and
 * starts signing when the overlap has passed; a key verifies for the interval plus twice the access
 * token lifetime. Several execution environments may find a key due at once: each proposes the
 * next generation with a conditional write, exactly one write succeeds, and the others read the
 * winner back.
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPair,
  type KeyObject,
  randomBytes,
  randomUUID,
} from 'node:crypto';
import { promisify } from 'node:util';
import type { SessionSettings } from '#functions/config/index.js';
import { setNewest } from '#functions/shared/bounded-cache.js';
import { READ_AGAIN, type RereadPolicy, reread } from '#functions/shared/rereads.js';
import type { NewSigningKey, PublicJwk, StoredSigningKey } from './model.js';
import type { SigningKeyStore } from './ports.js';

const generateRsa = promisify(generateKeyPair);

/**
 * A due dynamic key is rotated, and the keys read again, at most this often; then the newest key
 * there is signs (concurrent rotations of other Lambdas make one key between them).
 */
const ROTATION_REREADS: RereadPolicy<undefined> = {
  attempts: 3,
  exhausted: 'the dynamic signing key kept being due after rotating it',
  orElse: () => undefined,
};

/** The reference core's overlap before a new dynamic key signs (60 s; a fifth of shorter intervals). */
export function overlapMs(settings: SessionSettings): number {
  return Math.min(60_000, Math.floor(settings.dynamicKeyUpdateIntervalMs / 5));
}

/** How long a dynamic key verifies after its creation: the interval plus twice the access token lifetime. */
function dynamicKeyLifetimeMs(settings: SessionSettings): number {
  return settings.dynamicKeyUpdateIntervalMs + 2 * settings.accessTokenValidityMs;
}

const newestFirst = (keys: readonly StoredSigningKey[]) =>
  keys.filter((k) => k.kind === 'dynamic').sort((a, b) => b.generation - a.generation);

/** Dynamic keys that may still verify a token, newest first. */
function verifiableDynamicKeys(
  keys: readonly StoredSigningKey[],
  settings: SessionSettings,
  now: number,
): StoredSigningKey[] {
  return newestFirst(keys).filter((k) => k.createdAt + dynamicKeyLifetimeMs(settings) >= now);
}

/** Whether a new dynamic key is due (none yet, or the newest one's interval ends within the overlap). */
function dynamicKeyDue(keys: readonly StoredSigningKey[], settings: SessionSettings, now: number): boolean {
  const [latest] = verifiableDynamicKeys(keys, settings, now);
  return !latest || now + overlapMs(settings) > latest.createdAt + settings.dynamicKeyUpdateIntervalMs;
}

/** The dynamic key that signs now: the newest, unless it is younger than the overlap and its predecessor still may sign. */
function signingDynamicKey(
  keys: readonly StoredSigningKey[],
  settings: SessionSettings,
  now: number,
): StoredSigningKey | undefined {
  const [latest, previous] = verifiableDynamicKeys(keys, settings, now);
  if (
    latest &&
    previous &&
    latest.createdAt + overlapMs(settings) > now &&
    now < previous.createdAt + settings.dynamicKeyUpdateIntervalMs
  ) {
    return previous;
  }
  return latest;
}

/** Public keys the JWKS shows and verification accepts: live dynamic keys and the static key. */
function publicKeys(keys: readonly StoredSigningKey[], settings: SessionSettings, now: number) {
  return [...verifiableDynamicKeys(keys, settings, now), ...keys.filter((k) => k.kind === 'static')];
}

async function newRsaKey(): Promise<{ secret: Uint8Array; publicJwk: PublicJwk }> {
  const { privateKey, publicKey } = await generateRsa('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
  const jwk = publicKey.export({ format: 'jwk' });
  return {
    secret: privateKey.export({ format: 'der', type: 'pkcs8' }),
    publicJwk: { kty: 'RSA', n: String(jwk.n), e: String(jwk.e) },
  };
}

/** Keys of one app kept in this execution environment. */
interface CachedKeys {
  readonly keys: readonly StoredSigningKey[];
  readonly fetchedAt: number;
}

/** How long a fetched key list is trusted before it is read again (a key made elsewhere shows up by then). */
const KEY_LIST_MAX_AGE_MS = 60_000;
/** Apps whose key lists one execution environment keeps. */
const KEY_CACHE_APPS = 256;
/** Opened private keys kept per execution environment. */
const OPENED_KEY_CACHE_SIZE = 512;

export interface KeyRingOptions {
  readonly now?: () => number;
}

/** The keys of the apps of one table, with the execution environment's caches. */
export class KeyRing {
  private readonly lists = new Map<string, CachedKeys>();
  private readonly opened = new Map<string, Promise<Uint8Array>>();
  private readonly publics = new Map<string, KeyObject>();
  private readonly now: () => number;

  constructor(
    private readonly store: SigningKeyStore,
    options: KeyRingOptions = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  /** The app's keys, from the cache while it is young unless `fresh`. */
  async keys(appId: string, fresh = false): Promise<readonly StoredSigningKey[]> {
    const cached = this.lists.get(appId);
    if (!fresh && cached && this.now() - cached.fetchedAt < KEY_LIST_MAX_AGE_MS) return cached.keys;
    const keys = await this.store.list(appId);
    setNewest(this.lists, appId, { keys, fetchedAt: this.now() }, KEY_CACHE_APPS);
    return keys;
  }

  /** The public keys that verify tokens now (JWKS). */
  async verifyingKeys(appId: string, settings: SessionSettings): Promise<StoredSigningKey[]> {
    return publicKeys(await this.keys(appId), settings, this.now());
  }

  /**
   * The app's keys as the JWKS shows them, made first when missing (as the reference does on a
   * JWKS read): a dynamic key that may sign now (rotated when due) and the static key. Concurrent
   * callers make one key per slot between them (conditional writes); no private key is opened.
   */
  async jwksKeys(appId: string, settings: SessionSettings): Promise<StoredSigningKey[]> {
    await this.signingKeys(appId, settings);
    return this.verifyingKeys(appId, settings);
  }

  /**
   * The dynamic key that signs now and the static key, each made when missing (a new app's first
   * JWKS read or first token makes both at once, as the reference has both from the start: a later
   * JWKS read then has nothing to make).
   */
  private async signingKeys(appId: string, settings: SessionSettings) {
    const [dynamic, fixed] = await Promise.all([this.dynamicKey(appId, settings), this.staticKey(appId)]);
    return { dynamic, fixed };
  }

  /** The public key of `kid` if it still verifies (reads the keys again once when it is unknown). */
  async publicKeyOf(appId: string, kid: string, settings: SessionSettings): Promise<KeyObject | undefined> {
    let key = publicKeys(await this.keys(appId), settings, this.now()).find((k) => k.kid === kid);
    if (!key) key = publicKeys(await this.keys(appId, true), settings, this.now()).find((k) => k.kid === kid);
    return key ? this.publicKeyObject(appId, key) : undefined;
  }

  /** Every public key that verifies now (for a token that names no key: a legacy v2 token), read afresh when `fresh`. */
  async allPublicKeys(appId: string, settings: SessionSettings, fresh = false): Promise<KeyObject[]> {
    return publicKeys(await this.keys(appId, fresh), settings, this.now()).flatMap((key) => {
      const object = this.publicKeyObject(appId, key);
      return object ? [object] : [];
    });
  }

  private publicKeyObject(appId: string, key: StoredSigningKey): KeyObject | undefined {
    if (!key.publicJwk) return undefined;
    const id = `${appId}\u0000${key.kid}`;
    let object = this.publics.get(id);
    if (!object) {
      object = createPublicKey({ key: { ...key.publicJwk }, format: 'jwk' });
      setNewest(this.publics, id, object, OPENED_KEY_CACHE_SIZE);
    }
    return object;
  }

  /** The key that signs an access token now: the dynamic key in turn (made when due) or the static key. */
  async signingKey(appId: string, settings: SessionSettings, useStaticKey: boolean) {
    const { dynamic, fixed } = await this.signingKeys(appId, settings);
    const key = useStaticKey ? fixed : dynamic;
    return {
      kid: key.kid,
      privateKey: createPrivateKey({ key: Buffer.from(await this.open(appId, key)), format: 'der', type: 'pkcs8' }),
    };
  }

  /** The app's refresh-token key (32 bytes), made on first use. */
  async refreshKey(appId: string): Promise<Uint8Array> {
    const key = await this.singleton(appId, 'refresh', async () => ({
      kid: 'refresh',
      secret: randomBytes(32),
    }));
    return this.open(appId, key);
  }

  private async staticKey(appId: string): Promise<StoredSigningKey> {
    return this.singleton(appId, 'static', async () => ({ kid: `s-${randomUUID()}`, ...(await newRsaKey()) }));
  }

  private async singleton(
    appId: string,
    kind: 'static' | 'refresh',
    make: () => Promise<{ kid: string; secret: Uint8Array; publicJwk?: PublicJwk }>,
  ): Promise<StoredSigningKey> {
    return reread({ attempts: 3, exhausted: `the ${kind} key of the app could not be created` }, async (attempt) => {
      const found = (await this.keys(appId, attempt > 0)).find((k) => k.kind === kind);
      if (found) return found;
      const made = await make();
      await this.store.add(appId, { ...made, kind, generation: 0, createdAt: this.now() });
      // Whether this write or a concurrent one won, the stored key is the one to use: read it back.
      return READ_AGAIN;
    });
  }

  private async dynamicKey(appId: string, settings: SessionSettings): Promise<StoredSigningKey> {
    let keys = await this.keys(appId);
    if (dynamicKeyDue(keys, settings, this.now())) keys = await this.keys(appId, true);
    await reread(ROTATION_REREADS, async () => {
      if (!dynamicKeyDue(keys, settings, this.now())) return undefined;
      await this.rotate(appId, keys, settings);
      keys = await this.keys(appId, true);
      return READ_AGAIN;
    });
    const key = signingDynamicKey(keys, settings, this.now());
    if (!key) throw new Error('the app has no dynamic signing key');
    return key;
  }

  /** Proposes the next generation; a concurrent proposal of the same generation makes this one a no-op. */
  private async rotate(appId: string, keys: readonly StoredSigningKey[], settings: SessionSettings): Promise<boolean> {
    const latestGeneration = newestFirst(keys)[0]?.generation ?? 0;
    const createdAt = this.now();
    const key: NewSigningKey = {
      kid: `d-${createdAt}`,
      kind: 'dynamic',
      generation: latestGeneration + 1,
      createdAt,
      expiresAt: createdAt + dynamicKeyLifetimeMs(settings),
      ...(await newRsaKey()),
    };
    return this.store.add(appId, key);
  }

  private open(appId: string, key: StoredSigningKey): Promise<Uint8Array> {
    const id = `${appId}\u0000${key.kid}`;
    let opened = this.opened.get(id);
    if (!opened) {
      opened = this.store.open(appId, key);
      const entry = opened;
      opened.catch(() => {
        if (this.opened.get(id) === entry) this.opened.delete(id);
      });
      setNewest(this.opened, id, opened, OPENED_KEY_CACHE_SIZE);
    }
    return opened;
  }
}
