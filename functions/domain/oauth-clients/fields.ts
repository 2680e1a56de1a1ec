/**
 * Reading an OAuth2 client's fields from a create or update body, and the checks the client then
 * goes through, as the reference's provider reads and checks them (docs/oauth2-clients.md
 * "Validation"). Both kinds of refusal are the reference's 200 answers with status `OAUTH_ERROR`
 * (`error`, `errorDescription`, `statusCode`), not HTTP errors: {@link OAuthError}.
 */
import { canonicalDuration, DurationError } from './durations.js';
import {
  type ClientSettings,
  DEFAULT_AUTH_METHOD,
  DEFAULT_SCOPE,
  LIFESPAN_FIELDS,
  LIST_FIELDS,
  TEXT_FIELDS,
} from './model.js';
import { checkOrigin, isHttp, parseRequestUri, type RequestUri } from './uris.js';

type Body = Readonly<Record<string, unknown>>;

/** The reference's `OAUTH_ERROR` answer. */
export interface OAuthError {
  readonly status: 'OAUTH_ERROR';
  readonly error: string;
  readonly errorDescription: string;
  readonly statusCode: number;
}

export const oauthError = (error: string, errorDescription: string, statusCode: number): OAuthError => ({
  status: 'OAUTH_ERROR',
  error,
  // The provider's descriptions never carry double quotes: it turns them into single ones.
  errorDescription: errorDescription.replaceAll('"', "'"),
  statusCode,
});

export const isOAuthError = (value: unknown): value is OAuthError =>
  typeof value === 'object' && value !== null && (value as { status?: unknown }).status === 'OAUTH_ERROR';

/** A body the provider cannot decode: a field of the wrong JSON type, a lifespan that is no duration. */
const malformed = (reason: string) =>
  oauthError(
    'The request was malformed or contained invalid parameters',
    `Unable to decode the request body: ${reason}`,
    400,
  );

const METADATA_DESCRIPTION =
  "The value of one of the Client Metadata fields is invalid and the server has rejected this request. Note that an Authorization Server MAY choose to substitute a valid value for any requested parameter of a Client's Metadata.";
const REDIRECT_DESCRIPTION = 'The value of one or more redirect_uris is invalid.';

const invalidMetadata = (hint: string) => oauthError('invalid_client_metadata', `${METADATA_DESCRIPTION} ${hint}`, 400);
const invalidRedirect = (hint: string) => oauthError('invalid_redirect_uri', `${REDIRECT_DESCRIPTION} ${hint}`, 400);

/** `clientName` → `client_name`: how the provider names a field in its messages. */
const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function jsonTypeOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'object' ? 'object' : typeof value;
}

const wrongType = (field: string, value: unknown, type: string) =>
  malformed(`json: cannot unmarshal ${jsonTypeOf(value)} into Go struct field Client.${snake(field)} of type ${type}`);

/** The client fields a body sets, each read as the provider reads it; a field absent stays absent. */
export type DecodedFields = {
  -readonly [K in keyof ClientSettings]?: ClientSettings[K];
} & {
  clientId?: string;
  /** `""` when sent as null or empty: the provider then generates one (create) or keeps it (update). */
  clientSecret?: string;
};

const STRING_FIELDS = new Set<string>(['clientId', 'clientSecret', ...TEXT_FIELDS]);
const LISTS = new Set<string>(LIST_FIELDS);
const LIFESPANS = new Set<string>(LIFESPAN_FIELDS);

/**
 * The client fields of a body, in the body's order. JSON null is the field's empty value (`""`,
 * a list never set, no lifespan, no metadata); fields this core does not keep (the provider's own,
 * like `jwks` or `contacts`, and `createdAt`/`updatedAt`) are ignored; `enableRefreshTokenRotation`
 * is read by the caller (the reference reads it before the provider sees the body).
 */
export function decodeClientFields(body: Body): DecodedFields | OAuthError {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) {
    if (STRING_FIELDS.has(field)) {
      if (value !== null && typeof value !== 'string') return wrongType(field, value, 'string');
      out[field] = value ?? '';
    } else if (LISTS.has(field)) {
      if (value === null) out[field] = null;
      else if (!Array.isArray(value)) return wrongType(field, value, 'sqlxx.StringSliceJSONFormat');
      else {
        const bad = value.find((v) => v !== null && typeof v !== 'string');
        if (bad !== undefined) return wrongType(field, bad, 'string');
        out[field] = value.map((v) => v ?? '');
      }
    } else if (LIFESPANS.has(field)) {
      if (value === null) out[field] = null;
      else if (typeof value !== 'string') return wrongType(field, value, 'string');
      else {
        try {
          out[field] = canonicalDuration(value);
        } catch (error) {
          if (error instanceof DurationError) return malformed(error.message);
          throw error;
        }
      }
    } else if (field === 'metadata') {
      // The provider keeps any JSON here; this core keeps what the SDK's type says: an object.
      if (value === null) out[field] = {};
      else if (typeof value !== 'object' || Array.isArray(value)) return wrongType(field, value, 'object');
      else out[field] = value;
    }
  }
  return out as DecodedFields;
}

/** A new client's settings before the checks: the provider's empty values, then the body's. */
export function newSettings(fields: DecodedFields, enableRefreshTokenRotation: boolean): ClientSettings {
  const settings: Record<string, unknown> = { metadata: {}, enableRefreshTokenRotation };
  for (const field of TEXT_FIELDS) settings[field] = '';
  for (const field of LIST_FIELDS) settings[field] = null;
  for (const field of LIFESPAN_FIELDS) settings[field] = null;
  return mergeSettings(settings as ClientSettings, fields);
}

/** `base` with the fields a body set (the reference sends the provider the stored client under the update). */
export function mergeSettings(base: ClientSettings, fields: DecodedFields): ClientSettings {
  const { clientId: _id, clientSecret: _secret, ...settings } = fields;
  return { ...base, ...settings };
}

const URI_FIELDS = [
  ['tos_uri', 'tosUri'],
  ['policy_uri', 'policyUri'],
  ['logo_uri', 'logoUri'],
  ['client_uri', 'clientUri'],
] as const;

function checkOrigins(origins: readonly string[]): string[] | OAuthError {
  const out: string[] = [];
  for (const origin of origins) {
    const checked = checkOrigin(origin);
    if (checked.ok) {
      out.push(checked.origin);
      continue;
    }
    switch (checked.problem) {
      case 'unparsable':
        return invalidMetadata(
          `Origin URL ${origin} from allowed_cors_origins could not be parsed: parse "${origin}": invalid URL`,
        );
      case 'scheme':
        return invalidMetadata(`Origin URL ${origin} must use https:// or http:// as HTTP scheme.`);
      case 'credentials':
        return invalidMetadata(`Origin URL ${origin} has HTTP user and/or password set which is not allowed.`);
      default:
        return invalidMetadata(
          `Origin URL ${origin} must have an empty path, query, and fragment but one of the parts is not empty.`,
        );
    }
  }
  return out;
}

/**
 * The provider's checks of a whole client, in its order, with its defaults: no token endpoint
 * authentication method → `client_secret_basic`, no scope → `offline_access offline openid`, CORS
 * origins without their trailing slashes. `secret` is the secret the request sets, if any.
 * `private_key_jwt` is refused: this core keeps no client keys (`jwks`, `jwks_uri`) to check one with.
 */
export function checkClient(settings: ClientSettings, secret: string | undefined): ClientSettings | OAuthError {
  const tokenEndpointAuthMethod = settings.tokenEndpointAuthMethod || DEFAULT_AUTH_METHOD;
  if (tokenEndpointAuthMethod === 'private_key_jwt') {
    return invalidMetadata(
      "When token_endpoint_auth_method is 'private_key_jwt', either jwks or jwks_uri must be set.",
    );
  }
  for (const [name, field] of URI_FIELDS) {
    const value = settings[field];
    if (value === '') continue;
    const uri = parseRequestUri(value);
    if (!uri) return invalidMetadata(`Field ${name} must be a valid URI.`);
    if (!isHttp(uri)) return invalidMetadata(`${value} must use https:// or http:// as HTTP scheme for field ${name}.`);
  }
  if (secret !== undefined && secret.length > 0 && secret.length < 6) {
    return invalidMetadata('Field client_secret must contain a secret that is at least 6 characters long.');
  }
  const scope = settings.scope === '' ? DEFAULT_SCOPE : settings.scope;
  const allowedCorsOrigins = checkOrigins(settings.allowedCorsOrigins ?? []);
  if (!Array.isArray(allowedCorsOrigins)) return allowedCorsOrigins;

  const redirects: RequestUri[] = [];
  for (const redirect of settings.redirectUris ?? []) {
    const uri = parseRequestUri(redirect);
    if (!uri) return invalidRedirect(`Unable to parse redirect URL: ${redirect}`);
    redirects.push(uri);
    if (redirect.includes('#')) return invalidRedirect('Redirect URIs must not contain fragments (#).');
  }
  for (const logout of settings.postLogoutRedirectUris ?? []) {
    const uri = parseRequestUri(logout);
    if (!uri) return invalidMetadata(`Unable to parse post_logout_redirect_uri: ${logout}`);
    const matches = redirects.some(
      (r) => r.hostname === uri.hostname && r.port === uri.port && r.scheme === uri.scheme,
    );
    if (!matches) {
      return invalidMetadata(
        `post_logout_redirect_uri "${logout}" must match the domain, port, scheme of at least one of the registered redirect URIs but did not'`,
      );
    }
  }
  return {
    ...settings,
    tokenEndpointAuthMethod,
    scope,
    allowedCorsOrigins,
    audience: settings.audience ?? [],
  };
}
