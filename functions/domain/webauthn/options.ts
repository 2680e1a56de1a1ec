/**
 * The options of a ceremony (docs/passkeys.md "Options"): `POST /<t>/recipe/webauthn/options/register`
 * and `…/options/signin` check the relying party's settings the SDK sends and store a fresh
 * challenge with them; `GET /<t>/recipe/webauthn/options` and `DELETE …/options/remove` read and
 * delete them. Settings the reference refuses answer 200 `INVALID_OPTIONS_ERROR` with its reason.
 */
import { isOptionsIdShape, type WebauthnDeps } from './deps.js';
import type { GeneratedOptions, UserVerification } from './model.js';
import type { CeremonySettings, RegisterOptionsInput } from './requests.js';

type Target = { readonly tenantId: string };

const ANDROID_ORIGIN = 'android:apk-key-hash:';
const BASE64URL_UNPADDED = /^[A-Za-z0-9_-]+$/;

const USER_VERIFICATIONS = ['required', 'discouraged', 'preferred'];
const ATTESTATIONS = ['none', 'indirect', 'direct', 'enterprise'];
const RESIDENT_KEYS = ['required', 'discouraged', 'preferred'];

function enumerated(value: string, allowed: readonly string[], field: string): string | undefined {
  return allowed.includes(value)
    ? undefined
    : `Invalid value '${value}' for ${field}. Must be one of: ${allowed.join(', ')}`;
}

/**
 * The origin the browser will report must be the relying party's: an http(s) URL whose host ends
 * with the relying party id (the reference's rule), or an Android app's origin
 * (`android:apk-key-hash:` and the base64url SHA-256 of its signing certificate).
 */
function originProblem(origin: string, relyingPartyId: string): string | undefined {
  if (origin.startsWith(ANDROID_ORIGIN)) {
    const hash = origin.slice(ANDROID_ORIGIN.length);
    if (hash === '') return 'Android origin must contain a valid base64 hash';
    if (!BASE64URL_UNPADDED.test(hash)) return 'Android origin hash must be valid URL-safe base64 (no padding)';
    if (hash.length !== 43) return 'Android origin hash must be 43 characters (base64url SHA-256)';
    return undefined;
  }
  let host: string;
  try {
    const url = new URL(origin);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'Origin has to be a valid url!';
    host = url.hostname;
  } catch {
    return 'Origin has to be a valid url!';
  }
  return host.endsWith(relyingPartyId) ? undefined : 'Origin does not match RelyingParty Id';
}

/** The reference's checks of a ceremony's settings, in its order; the first problem's reason. */
function settingsProblem(
  settings: CeremonySettings,
  registration?: Pick<RegisterOptionsInput, 'attestation' | 'residentKey' | 'supportedAlgorithmIds'>,
): string | undefined {
  return (
    originProblem(settings.origin, settings.relyingPartyId) ??
    (settings.timeout < 0 ? 'Timeout must be a positive value' : undefined) ??
    enumerated(settings.userVerification, USER_VERIFICATIONS, 'userVerification') ??
    (registration
      ? (enumerated(registration.attestation, ATTESTATIONS, 'attestation') ??
        enumerated(registration.residentKey, RESIDENT_KEYS, 'residentKey') ??
        algorithmsProblem(registration.supportedAlgorithmIds))
      : undefined)
  );
}

function algorithmsProblem(ids: readonly unknown[]): string | undefined {
  const wrong = ids.find((id) => typeof id !== 'number' || !Number.isSafeInteger(id));
  return wrong === undefined ? undefined : `Invalid value '${JSON.stringify(wrong)}' in supportedAlgorithmIds`;
}

const invalid = (reason: string) => ({ status: 'INVALID_OPTIONS_ERROR' as const, reason });

const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** Stores fresh options (a new id on the rare collision); the stored options. */
async function storeOptions(
  deps: WebauthnDeps,
  target: Target,
  settings: CeremonySettings,
  email: string | undefined,
): Promise<GeneratedOptions> {
  const createdAt = deps.users.now();
  for (;;) {
    const options: GeneratedOptions = {
      id: deps.users.newId(),
      tenantId: target.tenantId,
      challenge: base64url(deps.randomBytes(32)),
      ...(email !== undefined ? { email } : {}),
      relyingPartyId: settings.relyingPartyId,
      relyingPartyName: settings.relyingPartyName,
      origin: settings.origin,
      userVerification: settings.userVerification as UserVerification,
      userPresence: settings.userPresence,
      createdAt,
      expiresAt: createdAt + settings.timeout,
    };
    if (await deps.store.storeWebauthnOptions(options)) return options;
  }
}

/**
 * `POST /<t>/recipe/webauthn/options/register`: options for `navigator.credentials.create()`. The
 * user handle (`user.id`) is the id of the tenant's user with this email if there is one (so an
 * authenticator replaces that user's passkey rather than keeping two), else the options' id.
 */
export async function registerOptions(deps: WebauthnDeps, target: Target, input: RegisterOptionsInput) {
  const problem = settingsProblem(input, input);
  if (problem) return invalid(problem);
  const [holders = []] = await deps.users.store.usersByAccountInfo(deps.appId, target.tenantId, {
    email: input.email,
  });
  const holder = [...holders].sort((a, b) => a.timeJoined - b.timeJoined || a.userId.localeCompare(b.userId))[0];
  const options = await storeOptions(deps, target, input, input.email);
  const userHandle = holder?.userId ?? options.id;
  return {
    status: 'OK' as const,
    webauthnGeneratedOptionsId: options.id,
    rp: { id: options.relyingPartyId, name: options.relyingPartyName },
    user: {
      id: Buffer.from(userHandle, 'utf8').toString('base64url'),
      name: input.email,
      displayName: input.displayName,
    },
    email: input.email,
    timeout: input.timeout,
    challenge: options.challenge,
    attestation: input.attestation,
    createdAt: options.createdAt,
    expiresAt: options.expiresAt,
    pubKeyCredParams: (input.supportedAlgorithmIds as number[]).map((alg) => ({ alg, type: 'public-key' })),
    excludeCredentials: [],
    authenticatorSelection: {
      requireResidentKey: input.residentKey === 'required',
      residentKey: input.residentKey,
      userVerification: input.userVerification,
    },
  };
}

/** `POST /<t>/recipe/webauthn/options/signin`: options for `navigator.credentials.get()`. */
export async function signInOptions(deps: WebauthnDeps, target: Target, input: CeremonySettings) {
  const problem = settingsProblem(input);
  if (problem) return invalid(problem);
  const options = await storeOptions(deps, target, input, undefined);
  return {
    status: 'OK' as const,
    webauthnGeneratedOptionsId: options.id,
    relyingPartyId: options.relyingPartyId,
    challenge: options.challenge,
    timeout: input.timeout,
    userVerification: options.userVerification,
    userPresence: options.userPresence,
    createdAt: options.createdAt,
    expiresAt: options.expiresAt,
  };
}

const OPTIONS_NOT_FOUND = { status: 'OPTIONS_NOT_FOUND_ERROR' } as const;

/**
 * The options with this id in the app, wherever they were made (sign-up, sign-in and registering a
 * passkey find them so, as in the reference).
 */
export const findOptions = (deps: WebauthnDeps, optionsId: string) =>
  isOptionsIdShape(optionsId) ? deps.store.readWebauthnOptions(optionsId) : Promise.resolve(undefined);

/** `GET /<t>/recipe/webauthn/options?webauthnGeneratedOptionsId=`: the options, if made in this tenant. */
export async function getOptions(deps: WebauthnDeps, target: Target, optionsId: string) {
  const options = await findOptions(deps, optionsId);
  if (!options || options.tenantId !== target.tenantId) return OPTIONS_NOT_FOUND;
  return {
    status: 'OK' as const,
    webauthnGeneratedOptionsId: options.id,
    relyingPartyId: options.relyingPartyId,
    relyingPartyName: options.relyingPartyName,
    challenge: options.challenge,
    timeout: options.expiresAt - options.createdAt,
    origin: options.origin,
    email: options.email ?? null,
    createdAt: options.createdAt,
    expiresAt: options.expiresAt,
    userVerification: options.userVerification,
    userPresence: options.userPresence,
  };
}

/** `DELETE /<t>/recipe/webauthn/options/remove?webauthnGeneratedOptionsId=`. */
export async function removeOptions(deps: WebauthnDeps, target: Target, optionsId: string) {
  if (!isOptionsIdShape(optionsId)) return OPTIONS_NOT_FOUND;
  const removed = await deps.store.removeWebauthnOptions(target.tenantId, optionsId);
  return removed ? { status: 'OK' as const } : OPTIONS_NOT_FOUND;
}
