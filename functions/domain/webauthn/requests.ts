/**
 * The WebAuthn routes' request bodies and queries, read with the reference's parser rules and
 * messages (400 `Field name '<f>' is invalid in JSON input`, `… is missing in GET request`); the
 * values the reference judges afterwards (options settings) are checked in options.ts, with its
 * 200 `INVALID_OPTIONS_ERROR` answers.
 */
import * as z from 'zod/mini';
import { normaliseEmail } from '#functions/contract/emails.js';
import { BadRequestError } from '#functions/shared/errors.js';
import { checkIdLength, type IdKind } from '#functions/shared/id-limits.js';
import {
  javaLong,
  jsonArray,
  jsonBoolean,
  jsonObject,
  jsonString,
  optional,
  queryString,
  rule,
  shownAs,
} from '#functions/shared/request-schema.js';

/** Fields the reference keeps in 256-character columns; longer ones are refused here rather than failing later. */
const STORED_TEXT_MAX = 256;

const storedText = (name: string) =>
  rule(jsonString(), (value) => {
    if (value.length > STORED_TEXT_MAX) {
      throw new BadRequestError(`Field name '${name}' is too long. Max length is ${STORED_TEXT_MAX}.`);
    }
    return value;
  });

/** An id within its kind's length limit (`field` names it in the message). */
const within =
  (kind: IdKind, field: string = kind) =>
  (value: string) => {
    checkIdLength(kind, value, field);
    return value;
  };

/** An email, normalised (trimmed, lower-cased), within its length limit. */
const normalisedEmail = () => rule(jsonString(), (email) => within('email')(normaliseEmail(email)));

/** An optional string whose empty value means "the default" (as the reference reads them). */
const orDefault = (value: string | undefined, fallback: string) =>
  value === undefined || value === '' ? fallback : value;

export interface CeremonySettings {
  readonly relyingPartyId: string;
  readonly relyingPartyName: string;
  readonly origin: string;
  /** Milliseconds; the reference's default is 6,000 (the SDK sends 60,000). */
  readonly timeout: number;
  readonly userVerification: string;
  readonly userPresence: boolean;
}

export interface RegisterOptionsInput extends CeremonySettings {
  /** Normalised (trimmed, lower-cased). */
  readonly email: string;
  readonly displayName: string;
  readonly attestation: string;
  readonly residentKey: string;
  /** As sent: the reference checks each is a number (`INVALID_OPTIONS_ERROR` otherwise). */
  readonly supportedAlgorithmIds: readonly unknown[];
}

const DEFAULT_TIMEOUT_MS = 6_000;
/** EdDSA, ES256, RS256: the reference's default `pubKeyCredParams`. */
const DEFAULT_ALGORITHMS = [-8, -7, -257];

/** `POST /<t>/recipe/webauthn/options/register`, fields in the reference's order. */
export const registerOptionsRequest = rule(
  z.object({
    email: normalisedEmail(),
    displayName: optional(jsonString()),
    relyingPartyName: storedText('relyingPartyName'),
    relyingPartyId: storedText('relyingPartyId'),
    origin: storedText('origin'),
    timeout: optional(javaLong()),
    attestation: optional(jsonString()),
    residentKey: optional(jsonString()),
    userVerification: optional(jsonString()),
    userPresence: optional(jsonBoolean()),
    // The reference reads `supportedAlgorithmIDs` (the SDK sends `supportedAlgorithmIds`, which it ignores).
    supportedAlgorithmIDs: optional(shownAs({ type: 'array', items: { type: 'integer' } }, jsonArray())),
  }),
  (body): RegisterOptionsInput => ({
    email: body.email,
    displayName: orDefault(body.displayName, body.email),
    relyingPartyName: body.relyingPartyName,
    relyingPartyId: body.relyingPartyId,
    origin: body.origin,
    timeout: body.timeout ?? DEFAULT_TIMEOUT_MS,
    attestation: orDefault(body.attestation, 'none'),
    residentKey: orDefault(body.residentKey, 'required'),
    userVerification: orDefault(body.userVerification, 'preferred'),
    userPresence: body.userPresence ?? false,
    supportedAlgorithmIds: body.supportedAlgorithmIDs ?? DEFAULT_ALGORITHMS,
  }),
);

/** `POST /<t>/recipe/webauthn/options/signin`, fields in the reference's order. */
export const signInOptionsRequest = rule(
  z.object({
    relyingPartyId: storedText('relyingPartyId'),
    relyingPartyName: storedText('relyingPartyName'),
    origin: storedText('origin'),
    timeout: optional(javaLong()),
    userVerification: optional(jsonString()),
    userPresence: optional(jsonBoolean()),
  }),
  (body): CeremonySettings => ({
    relyingPartyId: body.relyingPartyId,
    relyingPartyName: body.relyingPartyName,
    origin: body.origin,
    timeout: body.timeout ?? DEFAULT_TIMEOUT_MS,
    userVerification: orDefault(body.userVerification, 'preferred'),
    userPresence: body.userPresence ?? false,
  }),
);

export interface CredentialInput {
  readonly optionsId: string;
  /** The browser's `PublicKeyCredential` as JSON; judged by verify.ts. */
  readonly credential: Record<string, unknown>;
}

const credentialFields = {
  webauthnGeneratedOptionsId: jsonString(),
  /** The browser's `PublicKeyCredential` as JSON. */
  credential: jsonObject(),
};

/** `POST /<t>/recipe/webauthn/signup` and `…/signin`: `{webauthnGeneratedOptionsId, credential}`. */
export const credentialRequest = rule(
  z.object(credentialFields),
  (body): CredentialInput => ({ optionsId: body.webauthnGeneratedOptionsId, credential: body.credential }),
);

/** `POST /recipe/webauthn/user/credential/register`: `{recipeUserId, webauthnGeneratedOptionsId, credential}`. */
export const registerCredentialRequest = rule(
  z.object({ recipeUserId: rule(jsonString(), within('userId', 'recipeUserId')), ...credentialFields }),
  (body): CredentialInput & { readonly recipeUserId: string } => ({
    recipeUserId: body.recipeUserId,
    optionsId: body.webauthnGeneratedOptionsId,
    credential: body.credential,
  }),
);

/** The `webauthnGeneratedOptionsId` query parameter (GET and DELETE of options). */
export const optionsIdQuery = rule(z.object({ webauthnGeneratedOptionsId: queryString() }), (query) => ({
  optionsId: query.webauthnGeneratedOptionsId,
}));

/** `recipeUserId` and `webauthnCredentialId` query parameters of the credential routes. */
export const credentialQuery = rule(
  z.object({ recipeUserId: queryString(), webauthnCredentialId: queryString() }),
  (query) => ({
    recipeUserId: within('userId', 'recipeUserId')(query.recipeUserId),
    credentialId: query.webauthnCredentialId,
  }),
);

/** The `recipeUserId` query parameter of the credential list. */
export const recipeUserIdQuery = z.object({ recipeUserId: rule(queryString(), within('userId', 'recipeUserId')) });

/** `PUT /<t>/recipe/webauthn/user/email`: `{recipeUserId, email}`; the email normalised. */
export const emailUpdateRequest = z.object({
  recipeUserId: rule(jsonString(), within('userId', 'recipeUserId')),
  email: normalisedEmail(),
});

/** `POST /<t>/recipe/webauthn/user/recover/token`: `{email, userId}`, read before the tenant is looked up. */
export const recoverTokenRequest = rule(
  z.object({ email: rule(jsonString(), normaliseEmail), userId: jsonString() }),
  (body) => {
    checkIdLength('email', body.email);
    checkIdLength('userId', body.userId);
    return body;
  },
);

/** `POST /<t>/recipe/webauthn/user/recover/token/consume`: `{token}`. */
export const tokenRequest = z.object({ token: jsonString() });

/** `GET /<t>/recipe/webauthn/user/recover?token=`, read before the tenant is looked up. */
export const tokenQuery = z.object({ token: queryString() });
