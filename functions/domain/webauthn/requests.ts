/**
 * The WebAuthn routes' request bodies and queries, read with the reference's parser rules and
 * messages (400 `Field name '<f>' is invalid in JSON input`, `… is missing in GET request`); the
 * values the reference judges afterwards (options settings) are checked in options.ts, with its
 * 200 `INVALID_OPTIONS_ERROR` answers.
 */
import { normaliseEmail } from '#functions/contract/emails.js';
import { BadRequestError, invalidFieldMessage } from '#functions/shared/errors.js';
import { checkIdLength } from '#functions/shared/id-limits.js';
import { has, optionalBoolean, optionalString, requiredQuery, requiredString } from '#functions/shared/input.js';

type Body = Readonly<Record<string, unknown>>;
type Query = Readonly<Record<string, string | undefined>>;

/** Fields the reference keeps in 256-character columns; longer ones are refused here rather than failing later. */
const STORED_TEXT_MAX = 256;

function storedText(body: Body, name: string): string {
  const value = requiredString(body, name);
  if (value.length > STORED_TEXT_MAX) {
    throw new BadRequestError(`Field name '${name}' is too long. Max length is ${STORED_TEXT_MAX}.`);
  }
  return value;
}

/**
 * An optional Java `long` body field: a JSON number (its fraction dropped) or a string of decimal
 * digits; absent → undefined. Anything else, and a value beyond ±2^53, is an invalid field.
 */
function optionalLong(body: Body, name: string): number | undefined {
  if (!has(body, name)) return undefined;
  const value = body[name];
  let parsed: number | undefined;
  if (typeof value === 'number' && Number.isFinite(value)) parsed = Math.trunc(value);
  else if (typeof value === 'string' && /^[+-]?\d+$/.test(value)) parsed = Number(value);
  if (parsed === undefined || !Number.isSafeInteger(parsed)) throw new BadRequestError(invalidFieldMessage(name));
  return parsed === 0 ? 0 : parsed;
}

/** An optional JSON array field (absent → undefined; anything else but an array is invalid). */
function optionalArray(body: Body, name: string): readonly unknown[] | undefined {
  if (!has(body, name)) return undefined;
  const value = body[name];
  if (!Array.isArray(value)) throw new BadRequestError(invalidFieldMessage(name));
  return value;
}

/** A required JSON object field. */
function requiredObject(body: Body, name: string): Record<string, unknown> {
  const value = body[name];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new BadRequestError(invalidFieldMessage(name));
  }
  return value as Record<string, unknown>;
}

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
export function parseRegisterOptions(body: Body): RegisterOptionsInput {
  const email = normaliseEmail(requiredString(body, 'email'));
  checkIdLength('email', email);
  const displayName = orDefault(optionalString(body, 'displayName'), email);
  const relyingPartyName = storedText(body, 'relyingPartyName');
  const relyingPartyId = storedText(body, 'relyingPartyId');
  const origin = storedText(body, 'origin');
  const timeout = optionalLong(body, 'timeout') ?? DEFAULT_TIMEOUT_MS;
  const attestation = orDefault(optionalString(body, 'attestation'), 'none');
  const residentKey = orDefault(optionalString(body, 'residentKey'), 'required');
  const userVerification = orDefault(optionalString(body, 'userVerification'), 'preferred');
  const userPresence = optionalBoolean(body, 'userPresence') ?? false;
  // The reference reads `supportedAlgorithmIDs` (the SDK sends `supportedAlgorithmIds`, which it ignores).
  const supportedAlgorithmIds = optionalArray(body, 'supportedAlgorithmIDs') ?? DEFAULT_ALGORITHMS;
  return {
    email,
    displayName,
    relyingPartyName,
    relyingPartyId,
    origin,
    timeout,
    attestation,
    residentKey,
    userVerification,
    userPresence,
    supportedAlgorithmIds,
  };
}

/** `POST /<t>/recipe/webauthn/options/signin`, fields in the reference's order. */
export function parseSignInOptions(body: Body): CeremonySettings {
  const relyingPartyId = storedText(body, 'relyingPartyId');
  const relyingPartyName = storedText(body, 'relyingPartyName');
  const origin = storedText(body, 'origin');
  const timeout = optionalLong(body, 'timeout') ?? DEFAULT_TIMEOUT_MS;
  const userVerification = orDefault(optionalString(body, 'userVerification'), 'preferred');
  const userPresence = optionalBoolean(body, 'userPresence') ?? false;
  return { relyingPartyId, relyingPartyName, origin, timeout, userVerification, userPresence };
}

export interface CredentialInput {
  readonly optionsId: string;
  /** The browser's `PublicKeyCredential` as JSON; judged by verify.ts. */
  readonly credential: Record<string, unknown>;
}

/** `POST /<t>/recipe/webauthn/signup` and `…/signin`: `{webauthnGeneratedOptionsId, credential}`. */
export function parseCredentialInput(body: Body): CredentialInput {
  const optionsId = requiredString(body, 'webauthnGeneratedOptionsId');
  const credential = requiredObject(body, 'credential');
  return { optionsId, credential };
}

/** `POST /recipe/webauthn/user/credential/register`: `{recipeUserId, webauthnGeneratedOptionsId, credential}`. */
export function parseRegisterCredential(body: Body): CredentialInput & { readonly recipeUserId: string } {
  const recipeUserId = requiredString(body, 'recipeUserId');
  checkIdLength('userId', recipeUserId, 'recipeUserId');
  return { recipeUserId, ...parseCredentialInput(body) };
}

/** The `webauthnGeneratedOptionsId` query parameter (GET and DELETE of options). */
export const parseOptionsIdQuery = (query: Query) => ({
  optionsId: requiredQuery(query, 'webauthnGeneratedOptionsId'),
});

/** `recipeUserId` (and `webauthnCredentialId`) query parameters of the credential routes. */
export function parseCredentialQuery(query: Query): { recipeUserId: string; credentialId: string } {
  const recipeUserId = requiredQuery(query, 'recipeUserId');
  const credentialId = requiredQuery(query, 'webauthnCredentialId');
  checkIdLength('userId', recipeUserId, 'recipeUserId');
  return { recipeUserId, credentialId };
}

export function parseRecipeUserIdQuery(query: Query): { recipeUserId: string } {
  const recipeUserId = requiredQuery(query, 'recipeUserId');
  checkIdLength('userId', recipeUserId, 'recipeUserId');
  return { recipeUserId };
}

/** `PUT /<t>/recipe/webauthn/user/email`: `{recipeUserId, email}`; the email normalised. */
export function parseEmailUpdate(body: Body): { recipeUserId: string; email: string } {
  const recipeUserId = requiredString(body, 'recipeUserId');
  checkIdLength('userId', recipeUserId, 'recipeUserId');
  const email = normaliseEmail(requiredString(body, 'email'));
  checkIdLength('email', email);
  return { recipeUserId, email };
}

/** `POST /<t>/recipe/webauthn/user/recover/token`: `{email, userId}`, read before the tenant is looked up. */
export function parseRecoverTokenRequest(body: Body): { email: string; userId: string } {
  const email = normaliseEmail(requiredString(body, 'email'));
  const userId = requiredString(body, 'userId');
  checkIdLength('email', email);
  checkIdLength('userId', userId);
  return { email, userId };
}

/** `POST /<t>/recipe/webauthn/user/recover/token/consume`: `{token}`. */
export const parseTokenBody = (body: Body) => ({ token: requiredString(body, 'token') });

/** `GET /<t>/recipe/webauthn/user/recover?token=`, read before the tenant is looked up. */
export const parseTokenQuery = (query: Query) => ({ token: requiredQuery(query, 'token') });
