/**
 * OAuth2 client management behind `/recipe/oauth/clients…` (supertokens-node's `OAuth2Provider`
 * recipe functions `createOAuth2Client`, `getOAuth2Client(s)`, `updateOAuth2Client`,
 * `deleteOAuth2Client`): the reference core's answers, with the clients kept by this core instead
 * of an OAuth2 provider it talks to (docs/oauth2-clients.md). Pure: storage, the clock and
 * randomness arrive through {@link OAuthClientDeps}. A client's secret is shown in the answers that
 * show the client, as the reference shows it, and nowhere else (no log line, no message).
 */
import { BackpressureError, CoreHttpError } from '#functions/shared/errors.js';
import { checkIdLength } from '#functions/shared/id-limits.js';
import { has, optionalBoolean, requiredString } from '#functions/shared/input.js';
import { READ_AGAIN, reread } from '#functions/shared/rereads.js';
import {
  checkClient,
  decodeClientFields,
  isOAuthError,
  mergeSettings,
  newSettings,
  type OAuthError,
  oauthError,
} from './fields.js';
import { CLIENT_ID_PREFIX, clientView, type OAuthClient, PUBLIC_AUTH_METHOD, roundedToSecond } from './model.js';
import type { OAuthClientStore } from './ports.js';

/** The reference's answer when its licence lacks the OAuth feature: here, when `oauth_provider_enabled` is off. */
export const OAUTH_DISABLED_MESSAGE =
  'OAuth feature is not enabled. Please subscribe to a SuperTokens core license key to enable this feature.';

/** 402: the app has `oauth_provider_enabled` off. */
class OAuthDisabledError extends CoreHttpError {
  constructor() {
    super(402, OAUTH_DISABLED_MESSAGE);
  }
}

export interface OAuthClientDeps {
  readonly store: OAuthClientStore;
  /** The app's `oauth_provider_enabled` switch (the reference's licence check). */
  readonly enabled: boolean;
  readonly now: () => number;
  /** A random UUID (client ids). */
  readonly uuid: () => string;
  /** A uniformly random integer in [0, max) from a secure source (client secrets). */
  readonly randomInt: (max: number) => number;
}

type Body = Readonly<Record<string, unknown>>;
type Query = Readonly<Record<string, string | undefined>>;

const gate = (deps: OAuthClientDeps) => {
  if (!deps.enabled) throw new OAuthDisabledError();
};

/** The characters and length of a secret the provider generates. */
const SECRET_CHARACTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ1234567890_-.~';
const SECRET_LENGTH = 26;

function generateSecret(deps: OAuthClientDeps): string {
  let secret = '';
  for (let i = 0; i < SECRET_LENGTH; i++) secret += SECRET_CHARACTERS[deps.randomInt(SECRET_CHARACTERS.length)];
  return secret;
}

const checkClientId = (clientId: string) => checkIdLength('oauthClientId', clientId, 'clientId');

/** The answer for a client id the app does not have, where the reference asks its provider first (get). */
const NOT_FOUND = oauthError('Unable to locate the resource', '', 404);
/** The reference's answer where it looks in its own storage first (update). */
const CLIENT_NOT_FOUND = { status: 'CLIENT_NOT_FOUND_ERROR' } as const;
/** A client id the app already has (the provider's conflict). */
const TAKEN = oauthError(
  'Unable to insert or update resource because a resource with that value exists already',
  '',
  409,
);

const answer = (client: OAuthClient, read: boolean) => ({ status: 'OK', ...clientView(client, read) });

export interface CreateClientInput {
  readonly body: Body;
  readonly enableRefreshTokenRotation: boolean;
}

/**
 * `POST /recipe/oauth/clients` body: the client's fields (camelCase). The reference's own 400s come
 * first: `enableRefreshTokenRotation` must be a boolean, and a client id no longer than this core
 * keeps; the provider's refusals come after the licence check (`OAUTH_ERROR`).
 */
export function parseCreateClient(body: Body): CreateClientInput {
  const enableRefreshTokenRotation = optionalBoolean(body, 'enableRefreshTokenRotation') ?? false;
  if (typeof body.clientId === 'string') checkClientId(body.clientId);
  return { body, enableRefreshTokenRotation };
}

/**
 * A new client: id `stcl_<uuid>` unless given (an empty one is a bare UUID, as the provider makes
 * it), a generated secret unless given, the provider's defaults and checks, times now. A public
 * client (`tokenEndpointAuthMethod: "none"`) keeps no secret and shows none.
 */
export async function createClient(
  deps: OAuthClientDeps,
  input: CreateClientInput,
): Promise<Record<string, unknown> | OAuthError> {
  gate(deps);
  const fields = decodeClientFields(input.body);
  if (isOAuthError(fields)) return fields;
  const clientId = fields.clientId === undefined ? `${CLIENT_ID_PREFIX}${deps.uuid()}` : fields.clientId || deps.uuid();
  const secret = fields.clientSecret || generateSecret(deps);
  const settings = checkClient(newSettings(fields, input.enableRefreshTokenRotation), secret);
  if (isOAuthError(settings)) return settings;
  const now = roundedToSecond(deps.now());
  const client: OAuthClient = {
    ...settings,
    clientId,
    clientSecret: settings.tokenEndpointAuthMethod === PUBLIC_AUTH_METHOD ? undefined : secret,
    createdAt: now,
    updatedAt: now,
  };
  if (!(await deps.store.createOAuthClient(client))) return TAKEN;
  return answer(client, false);
}

/** One client with its secret; the provider's 404 as `OAUTH_ERROR` for an id the app does not have. */
export async function getClient(deps: OAuthClientDeps, clientId: string) {
  gate(deps);
  const found = await deps.store.readOAuthClient(clientId);
  return found ? answer(found.client, true) : NOT_FOUND;
}

export interface UpdateClientInput {
  readonly clientId: string;
  readonly body: Body;
  readonly clientSecret: string | undefined;
  readonly enableRefreshTokenRotation: boolean | undefined;
}

/** `PUT /recipe/oauth/clients` body: `clientId` and the fields to change (the SDK repeats the id in the query). */
export function parseUpdateClient(body: Body): UpdateClientInput {
  const clientId = requiredString(body, 'clientId');
  const clientSecret = has(body, 'clientSecret') ? requiredString(body, 'clientSecret') : undefined;
  const enableRefreshTokenRotation = optionalBoolean(body, 'enableRefreshTokenRotation');
  checkClientId(clientId);
  return { clientId, body, clientSecret, enableRefreshTokenRotation };
}

/** Every attempt met another update of the client: not now (503 with `Retry-After`), never a 500. */
class UpdateContentionError extends BackpressureError {
  constructor(message: string) {
    super('conflict', message);
  }
}

/** An attempt fails only when another update landed in between: n concurrent updates need n attempts. */
const UPDATE = {
  attempts: 8,
  exhausted: 'OAuth2 client update kept conflicting with concurrent changes',
  error: UpdateContentionError,
};

/**
 * Changes the fields the body sets (null clears one) and checks the whole client again, as the
 * reference sends its provider the stored client under the update. The secret changes only when
 * one is sent; the answer shows the client's secret either way. `CLIENT_NOT_FOUND_ERROR` for an id
 * the app does not have.
 */
export async function updateClient(deps: OAuthClientDeps, input: UpdateClientInput) {
  gate(deps);
  return reread(UPDATE, async () => {
    const found = await deps.store.readOAuthClient(input.clientId);
    if (!found) return CLIENT_NOT_FOUND;
    const fields = decodeClientFields(input.body);
    if (isOAuthError(fields)) return fields;
    const settings = checkClient(mergeSettings(found.client, fields), input.clientSecret);
    if (isOAuthError(settings)) return settings;
    const client: OAuthClient = {
      ...settings,
      clientId: found.client.clientId,
      clientSecret: input.clientSecret,
      enableRefreshTokenRotation: input.enableRefreshTokenRotation ?? found.client.enableRefreshTokenRotation,
      createdAt: found.client.createdAt,
      updatedAt: roundedToSecond(deps.now()),
    };
    if (!(await deps.store.replaceOAuthClient(client, found.version))) return READ_AGAIN;
    return answer({ ...client, clientSecret: input.clientSecret ?? found.client.clientSecret }, false);
  });
}

export async function removeClient(deps: OAuthClientDeps, clientId: string) {
  gate(deps);
  return { status: 'OK', didExist: await deps.store.removeOAuthClient(clientId) };
}

/** The provider's page sizes: 250 unless given, at most 1,000, at least 1. */
const PAGE_DEFAULT = 250;
const PAGE_MAX = 1000;

export interface ListClientsInput {
  readonly pageSize: number;
  /** The id the page starts after. */
  readonly after: string | undefined;
  readonly clientName: string | undefined;
}

/** Pagination tokens: the last client id of the page, Base64url. */
const encodeToken = (clientId: string) => Buffer.from(clientId, 'utf8').toString('base64url');

function decodeToken(token: string): string | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  const clientId = Buffer.from(token, 'base64url').toString('utf8');
  return clientId !== '' && encodeToken(clientId) === token ? clientId : undefined;
}

/**
 * `GET /recipe/oauth/clients/list?pageSize=&pageToken=&clientName=`, read as leniently as the
 * provider reads them: a page size that is no integer is the default, one out of range the nearest
 * bound; a token this core did not make starts from the first client; an empty name filters nothing.
 */
export function parseListClients(query: Query): ListClientsInput {
  const rawSize = query.pageSize ?? '';
  const size = /^[+-]?\d{1,18}$/.test(rawSize) ? Number(rawSize) : PAGE_DEFAULT;
  return {
    pageSize: Math.min(Math.max(size, 1), PAGE_MAX),
    after: query.pageToken === undefined ? undefined : decodeToken(query.pageToken),
    clientName: query.clientName === '' ? undefined : query.clientName,
  };
}

/** A page of the app's clients by id, each with its secret, and `nextPaginationToken` when more follow. */
export async function listClients(deps: OAuthClientDeps, input: ListClientsInput) {
  gate(deps);
  const page = await deps.store.listOAuthClients({
    limit: input.pageSize,
    ...(input.after !== undefined ? { after: input.after } : {}),
    ...(input.clientName !== undefined ? { clientName: input.clientName } : {}),
  });
  const last = page.clients.at(-1);
  return {
    status: 'OK',
    clients: page.clients.map((client) => clientView(client, true)),
    ...(page.more && last ? { nextPaginationToken: encodeToken(last.clientId) } : {}),
  };
}
