/**
 * A software authenticator for the tests: what a browser with a platform authenticator returns from
 * `navigator.credentials.create()` and `.get()`, built with node:crypto (ES256 keys) and a CBOR
 * encoder, so the core's verifier is exercised on real attestations and assertions. Attestation is
 * "none" (what browsers send by default). Each passkey keeps its signature counter; `counterStep`
 * 0 makes an authenticator that keeps none (as synced passkeys do).
 *
 * Every part of a response can be bent for the negative tests: another origin or relying party in
 * what is signed, another challenge, cleared flags, a counter set back, a broken signature.
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { encode } from 'cborg';

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export interface Passkey {
  readonly id: string;
  readonly rpId: string;
  readonly privateKey: KeyObject;
  /** The counter the authenticator will sign next time is this + its step. */
  counter: number;
  readonly userHandle: string;
}

/** What a ceremony's answer may be bent with. */
export interface Bend {
  /** The origin the "browser" reports in clientDataJSON. */
  readonly origin?: string;
  /** The relying party id whose hash the authenticator data carries. */
  readonly rpId?: string;
  /** The challenge in clientDataJSON. */
  readonly challenge?: string;
  /** clientDataJSON's `type`. */
  readonly clientDataType?: string;
  /** The flags byte of the authenticator data (user present and verified by default). */
  readonly flags?: number;
  /** The counter signed (instead of the next one). */
  readonly counter?: number;
  /** Flips a bit of the signature. */
  readonly breakSignature?: boolean;
}

export interface RegistrationJSON {
  id: string;
  rawId: string;
  type: string;
  response: { clientDataJSON: string; attestationObject: string; transports: string[] };
  clientExtensionResults: Record<string, never>;
  authenticatorAttachment: string;
}

export interface AssertionJSON {
  id: string;
  rawId: string;
  type: string;
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle: string };
  clientExtensionResults: Record<string, never>;
  authenticatorAttachment: string;
}

function u32(n: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(n >>> 0);
  return out;
}

/** The COSE_Key (RFC 9053) of an ES256 public key: kty EC2, alg -7, crv P-256, x, y. */
function coseKey(publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: 'jwk' });
  return encode(
    new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x as string, 'base64url')],
      [-3, Buffer.from(jwk.y as string, 'base64url')],
    ]),
  );
}

export class SoftwareAuthenticator {
  readonly passkeys = new Map<string, Passkey>();

  constructor(private readonly options: { counterStep?: number } = {}) {}

  private get step(): number {
    return this.options.counterStep ?? 1;
  }

  /**
   * `navigator.credentials.create()` for registration options as the core answers them
   * (`challenge`, `rp.id`, `user.id`), at `origin`.
   */
  create(
    options: { challenge: string; rp: { id: string }; user?: { id: string } },
    origin: string,
    bend: Bend = {},
  ): RegistrationJSON {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const credentialId = randomBytes(16);
    const id = b64url(credentialId);
    const counter = bend.counter ?? 0;
    const passkey: Passkey = {
      id,
      rpId: options.rp.id,
      privateKey,
      counter,
      userHandle: options.user?.id ?? '',
    };
    this.passkeys.set(id, passkey);
    const authData = Buffer.concat([
      sha256(bend.rpId ?? options.rp.id),
      Buffer.from([bend.flags ?? FLAG_UP | FLAG_UV | FLAG_AT]),
      u32(counter),
      Buffer.alloc(16), // AAGUID: zeros, as "none" attestation leaves it
      Buffer.from([0, credentialId.length]),
      credentialId,
      Buffer.from(coseKey(publicKey)),
    ]);
    const clientDataJSON = JSON.stringify({
      type: bend.clientDataType ?? 'webauthn.create',
      challenge: bend.challenge ?? options.challenge,
      origin: bend.origin ?? origin,
      crossOrigin: false,
    });
    return {
      id,
      rawId: id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(encode({ fmt: 'none', attStmt: {}, authData })),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** `navigator.credentials.get()` with passkey `id` for sign-in options (`challenge`, `relyingPartyId`), at `origin`. */
  get(
    id: string,
    options: { challenge: string; relyingPartyId: string },
    origin: string,
    bend: Bend = {},
  ): AssertionJSON {
    const passkey = this.passkeys.get(id);
    if (!passkey) throw new Error(`no passkey ${id}`);
    const counter = bend.counter ?? passkey.counter + this.step;
    if (bend.counter === undefined) passkey.counter = counter;
    const authenticatorData = Buffer.concat([
      sha256(bend.rpId ?? options.relyingPartyId),
      Buffer.from([bend.flags ?? FLAG_UP | FLAG_UV]),
      u32(counter),
    ]);
    const clientDataJSON = Buffer.from(
      JSON.stringify({
        type: bend.clientDataType ?? 'webauthn.get',
        challenge: bend.challenge ?? options.challenge,
        origin: bend.origin ?? origin,
        crossOrigin: false,
      }),
    );
    const signature = sign('sha256', Buffer.concat([authenticatorData, sha256(clientDataJSON)]), passkey.privateKey);
    if (bend.breakSignature) signature[signature.length - 1] = (signature[signature.length - 1] as number) ^ 0x01;
    return {
      id,
      rawId: id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authenticatorData),
        signature: b64url(signature),
        userHandle: passkey.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}

/** Flags byte values for {@link Bend.flags}. */
export const FLAGS = { UP: FLAG_UP, UV: FLAG_UV, AT: FLAG_AT } as const;
