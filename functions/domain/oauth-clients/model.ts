/**
 * An OAuth2 client of an app (the OAuth2 provider recipe's client management,
 * docs/oauth2-clients.md): the fields the SDK's `OAuth2Client` carries, as the reference core shows
 * them (its whitelist of the provider's client fields, in camelCase), plus its own
 * `enableRefreshTokenRotation`.
 */

/** The lifespan fields: Go duration texts (durations.ts) or null (the provider's default). */
export const LIFESPAN_FIELDS = [
  'authorizationCodeGrantAccessTokenLifespan',
  'authorizationCodeGrantIdTokenLifespan',
  'authorizationCodeGrantRefreshTokenLifespan',
  'clientCredentialsGrantAccessTokenLifespan',
  'implicitGrantAccessTokenLifespan',
  'implicitGrantIdTokenLifespan',
  'refreshTokenGrantAccessTokenLifespan',
  'refreshTokenGrantIdTokenLifespan',
  'refreshTokenGrantRefreshTokenLifespan',
] as const;

/** Text fields: absent or null is `""`. */
export const TEXT_FIELDS = [
  'clientName',
  'scope',
  'tokenEndpointAuthMethod',
  'clientUri',
  'logoUri',
  'policyUri',
  'tosUri',
] as const;

/** Lists of strings: null until set. */
export const LIST_FIELDS = [
  'redirectUris',
  'postLogoutRedirectUris',
  'grantTypes',
  'responseTypes',
  'audience',
  'allowedCorsOrigins',
] as const;

type LifespanField = (typeof LIFESPAN_FIELDS)[number];
type TextField = (typeof TEXT_FIELDS)[number];
type ListField = (typeof LIST_FIELDS)[number];

/** A client's settings: everything but its id, secret and times. */
export type ClientSettings = { readonly [K in TextField]: string } & { readonly [K in ListField]: string[] | null } & {
  readonly [K in LifespanField]: string | null;
} & {
  readonly metadata: Record<string, unknown>;
  readonly enableRefreshTokenRotation: boolean;
};

/** A client as stored. */
export interface OAuthClient extends ClientSettings {
  readonly clientId: string;
  /**
   * In clear inside the core only (sealed at rest). Undefined for a public client
   * (`tokenEndpointAuthMethod: "none"`) created without one.
   */
  readonly clientSecret: string | undefined;
  /** Epoch ms, whole seconds. */
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** The client id the reference generates when none is given: `stcl_` and a UUID. */
export const CLIENT_ID_PREFIX = 'stcl_';

/** The provider's scope for a client created without one. */
export const DEFAULT_SCOPE = 'offline_access offline openid';

/** The provider's token endpoint authentication when none is given. */
export const DEFAULT_AUTH_METHOD = 'client_secret_basic';

/** The method of a public client: it has no secret to show. */
export const PUBLIC_AUTH_METHOD = 'none';

/** Times as the provider writes them: RFC 3339 in UTC, whole seconds (`2024-05-01T10:00:00Z`). */
const timeText = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The provider rounds a client's times to the second. */
export const roundedToSecond = (ms: number) => Math.round(ms / 1000) * 1000;

/**
 * The client as the API shows it (create, update, get, list). `stored` says how lists that were
 * never set read: a create or update answers null for them, as the provider answers from what it
 * was sent; a read answers `[]`, as the provider reads them back. A post-logout list that is
 * empty is left out, as the provider leaves it out; the secret is shown whenever there is one.
 */
export function clientView(client: OAuthClient, read: boolean): Record<string, unknown> {
  const list = (value: string[] | null) => (read ? (value ?? []) : value);
  const postLogout = client.postLogoutRedirectUris;
  return {
    clientId: client.clientId,
    clientName: client.clientName,
    ...(client.clientSecret !== undefined ? { clientSecret: client.clientSecret } : {}),
    redirectUris: list(client.redirectUris),
    grantTypes: list(client.grantTypes),
    responseTypes: list(client.responseTypes),
    scope: client.scope,
    audience: client.audience ?? [],
    policyUri: client.policyUri,
    allowedCorsOrigins: client.allowedCorsOrigins ?? [],
    tosUri: client.tosUri,
    clientUri: client.clientUri,
    logoUri: client.logoUri,
    tokenEndpointAuthMethod: client.tokenEndpointAuthMethod,
    createdAt: timeText(client.createdAt),
    updatedAt: timeText(client.updatedAt),
    ...(postLogout !== null && postLogout.length > 0 ? { postLogoutRedirectUris: postLogout } : {}),
    metadata: client.metadata,
    ...Object.fromEntries(LIFESPAN_FIELDS.map((field) => [field, client[field]])),
    enableRefreshTokenRotation: client.enableRefreshTokenRotation,
  };
}
