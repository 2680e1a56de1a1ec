/**
 * Checking what a browser sends back from `navigator.credentials.create()` (an attestation) and
 * `.get()` (an assertion) against the stored options, with `@simplewebauthn/server` (a maintained
 * verifier; the reference uses webauthn4j). This module only sorts the outcome into the
 * reference's statuses (docs/passkeys.md "Statuses"):
 *
 * - the credential's `id` and `type` missing or wrong (the reference's own checks, with its
 *   reasons), a field of the wrong type, text that is not base64url, JSON or CBOR that does not
 *   decode: `INVALID_CREDENTIALS_ERROR` — the body is malformed;
 * - options past their expiry: `INVALID_OPTIONS_ERROR` `Options expired`;
 * - anything the verifier refuses (challenge, origin, relying party id hash, flags, signature,
 *   counter): `INVALID_AUTHENTICATOR_ERROR` with the verifier's reason.
 *
 * Nothing thrown by the verifier escapes: every failure is one of these answers.
 */
import {
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import {
  COSEALG,
  decodeAttestationObject,
  decodeClientDataJSON,
  isoBase64URL,
  parseAuthenticatorData,
} from '@simplewebauthn/server/helpers';
import type { StoredCredential } from '../users/companions.js';
import { BASE64URL, canonicalCredentialId, isCredentialIdShape } from '../users/credential-ids.js';
import type { GeneratedOptions } from './model.js';

export type VerificationFailure =
  | { readonly status: 'INVALID_CREDENTIALS_ERROR'; readonly reason: string }
  | { readonly status: 'INVALID_OPTIONS_ERROR'; readonly reason: string }
  | { readonly status: 'INVALID_AUTHENTICATOR_ERROR'; readonly reason: string };

/** What a verified attestation gives: the passkey to store (without owner and times). */
export interface VerifiedRegistration {
  readonly ok: true;
  readonly credentialId: string;
  readonly publicKey: string;
  readonly counter: number;
  readonly transports: readonly string[];
}

const malformed = (reason: string): VerificationFailure => ({ status: 'INVALID_CREDENTIALS_ERROR', reason });
const refused = (reason: string): VerificationFailure => ({ status: 'INVALID_AUTHENTICATOR_ERROR', reason });
const EXPIRED: VerificationFailure = { status: 'INVALID_OPTIONS_ERROR', reason: 'Options expired' };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The reference's first checks of a credential body (its id and type), with its reasons; then the
 * id as the core keeps it.
 */
export function checkCredentialIdAndType(credential: Record<string, unknown>): string | VerificationFailure {
  const { id, type } = credential;
  if (id === undefined || id === null) return malformed('credential id is missing!');
  if (typeof id !== 'string') return malformed('credential id has to be a string');
  if (id === '') return malformed('credential id is empty!');
  if (!isCredentialIdShape(id)) return malformed('Credential ID has to be base64 url encoded');
  if (type === undefined || type === null) return malformed('credential type is missing!');
  if (typeof type !== 'string') return malformed('credential type has to be a string');
  if (type === '') return malformed('credential type is empty!');
  if (type.toLowerCase() !== 'public-key') return malformed(`not supported credential type: '${type}'`);
  return canonicalCredentialId(id);
}

/** A string field of the credential's `response` holding base64url (else the failure). */
function base64urlField(response: Record<string, unknown>, name: string): VerificationFailure | undefined {
  const value = response[name];
  if (typeof value !== 'string') return malformed(`credential response ${name} is missing or not a string`);
  if (!BASE64URL.test(value)) return malformed(`credential response ${name} is not base64url`);
  return undefined;
}

/** The shape every credential shares beyond id and type: `rawId` and a `response` object. */
function checkEnvelope(credential: Record<string, unknown>): Record<string, unknown> | VerificationFailure {
  if (typeof credential.rawId !== 'string') return malformed('credential rawId is missing or not a string');
  if (!isObject(credential.response)) return malformed('credential response is missing or not an object');
  return credential.response;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Decodes what the verifier will read, so that undecodable input is told apart from a refusal. */
function decodes(decode: () => void, what: string): VerificationFailure | undefined {
  try {
    decode();
    return undefined;
  } catch (error) {
    return malformed(`${what} could not be decoded: ${messageOf(error)}`);
  }
}

/** Every COSE algorithm the verifier knows: the reference accepts any algorithm at registration. */
const ALL_ALGORITHMS = Object.values(COSEALG).filter((v): v is number => typeof v === 'number');

const isFailure = (value: unknown): value is VerificationFailure =>
  isObject(value) && typeof value.status === 'string' && typeof value.reason === 'string';

/** Verifies an attestation (sign-up, registering a further passkey) against registration options. */
export async function verifyRegistration(
  options: GeneratedOptions,
  credential: Record<string, unknown>,
  now: number,
): Promise<VerifiedRegistration | VerificationFailure> {
  const id = checkCredentialIdAndType(credential);
  if (typeof id !== 'string') return id;
  if (options.expiresAt < now) return EXPIRED;
  const response = checkEnvelope(credential);
  if (isFailure(response)) return response;
  const shape = base64urlField(response, 'clientDataJSON') ?? base64urlField(response, 'attestationObject');
  if (shape) return shape;
  if (response.transports !== undefined && !isStringArray(response.transports)) {
    return malformed('credential response transports is not a list of strings');
  }
  const undecodable =
    decodes(() => decodeClientDataJSON(response.clientDataJSON as string), 'clientDataJSON') ??
    decodes(() => {
      const attestation = decodeAttestationObject(isoBase64URL.toBuffer(response.attestationObject as string));
      parseAuthenticatorData(attestation.get('authData'));
    }, 'attestationObject');
  if (undecodable) return undecodable;
  try {
    const result = await verifyRegistrationResponse({
      response: credential as unknown as RegistrationResponseJSON,
      expectedChallenge: options.challenge,
      expectedOrigin: options.origin,
      expectedRPID: options.relyingPartyId,
      requireUserPresence: options.userPresence,
      requireUserVerification: options.userVerification === 'required',
      supportedAlgorithmIDs: ALL_ALGORITHMS,
    });
    if (!result.verified) return refused('The attestation could not be verified');
    const verified = result.registrationInfo.credential;
    if (canonicalCredentialId(verified.id) !== id) {
      return refused('The credential id does not match the one in the authenticator data');
    }
    return {
      ok: true,
      credentialId: id,
      publicKey: isoBase64URL.fromBuffer(verified.publicKey),
      counter: verified.counter,
      transports: (response.transports as string[] | undefined) ?? [],
    };
  } catch (error) {
    return refused(messageOf(error));
  }
}

/** Verifies an assertion (sign-in) made with `stored` against sign-in (or any) options; the new counter. */
export async function verifyAssertion(
  options: GeneratedOptions,
  credential: Record<string, unknown>,
  stored: StoredCredential,
  now: number,
): Promise<{ readonly ok: true; readonly newCounter: number } | VerificationFailure> {
  if (options.expiresAt < now) return EXPIRED;
  const response = checkEnvelope(credential);
  if (isFailure(response)) return response;
  const shape =
    base64urlField(response, 'clientDataJSON') ??
    base64urlField(response, 'authenticatorData') ??
    base64urlField(response, 'signature');
  if (shape) return shape;
  const handle = response.userHandle;
  if (handle !== undefined && handle !== null && typeof handle !== 'string') {
    return malformed('credential response userHandle is not a string');
  }
  const undecodable =
    decodes(() => decodeClientDataJSON(response.clientDataJSON as string), 'clientDataJSON') ??
    decodes(
      () => parseAuthenticatorData(isoBase64URL.toBuffer(response.authenticatorData as string)),
      'authenticatorData',
    );
  if (undecodable) return undecodable;
  try {
    const { userHandle: _handle, ...rest } = response;
    const result = await verifyAuthenticationResponse({
      response: {
        ...credential,
        response: { ...rest, ...(typeof handle === 'string' ? { userHandle: handle } : {}) },
      } as unknown as AuthenticationResponseJSON,
      expectedChallenge: options.challenge,
      expectedOrigin: options.origin,
      expectedRPID: options.relyingPartyId,
      credential: {
        id: stored.id,
        publicKey: isoBase64URL.toBuffer(stored.publicKey),
        counter: stored.counter,
      },
      // The reference's rules: user presence only when the options asked for it, user
      // verification only when they required it (the verifier's "advanced" mode checks neither flag
      // unless verification is required).
      ...(options.userPresence
        ? { requireUserVerification: options.userVerification === 'required' }
        : { advancedFIDOConfig: { userVerification: options.userVerification } }),
    });
    if (!result.verified) return refused('The signature could not be verified');
    return { ok: true, newCounter: result.authenticationInfo.newCounter };
  } catch (error) {
    return refused(messageOf(error));
  }
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}
