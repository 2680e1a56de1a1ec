/**
 * THE route manifest: every HTTP endpoint of the core, as plain data.
 *
 * The CDK stack creates one function and its routes per entry, and the local runtime serves the
 * same list; nobody adds a route anywhere else. Keep this module free of imports of CDK or
 * handler code so both can load it cheaply.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'ANY';

/**
 * What a function may do with credentials at rest (the stack's credentials KMS key, docs/security.md
 * "Credentials at rest"): `seal` = new data keys (GenerateDataKey) for what it writes — staged
 * rows, app secrets, provider secrets, imported TOTP secrets; `open` = unwrap them (Decrypt) to
 * read them back; `seal-and-open` = both (the import worker opens staged rows and seals the TOTP
 * secrets it imports; the routes that sign tokens open the app's private signing keys and create
 * the next one when a key is due; the JWKS routes only create keys, docs/sessions.md). Neither: the function never sees a credential
 * the table holds.
 */
export type CredentialsAccess = 'seal' | 'open' | 'seal-and-open';

/** What a route's function may touch; the stack derives its IAM grants from this. */
interface RouteAccess {
  readonly table?: 'read' | 'write';
  readonly queue?: 'send';
  readonly credentials?: CredentialsAccess;
  /** DescribeTable on the app tables: checking the table an app's `dynamodb_table_name` names. */
  readonly describeTables?: true;
  /**
   * Touches session and signing-key items (docs/sessions.md "Least privilege"). IAM cannot fence
   * those partitions off from the other functions without also catching user ids that contain the
   * same words, so this is a declaration the manifest test holds to the session routes, app
   * removal and user removal, not an IAM grant.
   */
  readonly sessions?: true;
}

export interface RouteDefinition {
  /** kebab-case; also the handler's folder name under functions/http/. */
  readonly id: string;
  readonly method: HttpMethod;
  /** The core's API path without prefixes (e.g. `/recipe/signin`), or `$default` for the fallback. */
  readonly path: string;
  /** Repository-relative path of the module that exports `handler`. */
  readonly handler: string;
  readonly access: RouteAccess;
  /**
   * 'app': an app-specific API (the handler's `scope`, functions/http/pipeline.ts): a non-public
   * tenant in the path is refused, so the gateway serves it without the `/<s1>/<s2>` form and the
   * fallback answers that form (docs/deploying-aws.md "Route quota"). 'tenant': the path's tenant
   * is the target, all three prefix forms are routes. test/infra/manifest.test.ts holds this equal
   * to the handler's declaration. @default 'tenant'
   */
  readonly scope?: RouteScope;
  readonly timeoutSeconds?: number;
  readonly memoryMb?: number;
}

type RouteScope = 'app' | 'tenant';

/** The catch-all route key: `/`, `/hello`, unknown paths (404) and wrong methods (405). */
export const DEFAULT_ROUTE_PATH = '$default';

/** Path parameters that carry the optional `/appid-<appId>` and `/<tenantId>` prefix segments. */
const PREFIX_PARAMS = ['s1', 's2'] as const;

function route(
  id: string,
  method: HttpMethod,
  path: string,
  access: RouteAccess,
  options: Pick<RouteDefinition, 'scope' | 'timeoutSeconds' | 'memoryMb'> = {},
): RouteDefinition {
  return { id, method, path, handler: `functions/http/${id}/handler.ts`, access, ...options };
}

/** An app-specific API (RouteDefinition.scope). */
const APP_SCOPE = { scope: 'app' } as const;

const READ = { table: 'read' } as const;
const WRITE = { table: 'write' } as const;
/** Writes app or tenant records, whose coreConfig credentials are stored sealed. */
const CONFIG_WRITE = { table: 'write', credentials: 'seal' } as const;
/** An app's record: also checks the table its `dynamodb_table_name` names. */
const APP_WRITE = { ...CONFIG_WRITE, describeTables: true } as const;
const STAGE = { table: 'write', queue: 'send', credentials: 'seal' } as const;
/** Reads sessions. */
const SESSION_READ = { table: 'read', sessions: true } as const;
/** Writes sessions (revocation, session data) without signing. */
const SESSION_WRITE = { table: 'write', sessions: true } as const;
/**
 * Shows the app's public keys, making them first when none is there or a key is due (as the
 * reference does on a JWKS read): seals the new private parts, never opens one.
 */
const KEYS_READ = { table: 'write', sessions: true, credentials: 'seal' } as const;
/** Signs tokens: opens the app's private signing keys and seals the next one when a key is due. */
const SIGN = { table: 'write', sessions: true, credentials: 'seal-and-open' } as const;
/** Reads tenant records and opens their providers' secrets for the SDK. */
const PROVIDER_READ = { table: 'read', credentials: 'open' } as const;
/** 1,769 MB is one full vCPU on Lambda: password hashing is CPU-bound. */
const HASHING_MEMORY = 1769;

export const ROUTES: readonly RouteDefinition[] = [
  route('fallback', 'ANY', DEFAULT_ROUTE_PATH, READ),
  route('apiversion', 'GET', '/apiversion', READ, APP_SCOPE),

  // Apps (docs/reference-behaviour.md "Apps")
  route('app-put-v2', 'PUT', '/recipe/multitenancy/app/v2', APP_WRITE),
  route('app-put', 'PUT', '/recipe/multitenancy/app', APP_WRITE),
  route('app-list-v2', 'GET', '/recipe/multitenancy/app/list/v2', READ),
  route('app-list', 'GET', '/recipe/multitenancy/app/list', READ),
  route('app-remove', 'POST', '/recipe/multitenancy/app/remove', SESSION_WRITE, { timeoutSeconds: 29 }),

  // Tenants (docs/reference-behaviour.md "Tenants")
  route('tenant-put-v2', 'PUT', '/recipe/multitenancy/tenant/v2', CONFIG_WRITE),
  route('tenant-put', 'PUT', '/recipe/multitenancy/tenant', CONFIG_WRITE),
  // The SDK reads providers here, their secrets included: these open them (docs/security.md "Credentials at rest").
  route('tenant-get-v2', 'GET', '/recipe/multitenancy/tenant/v2', PROVIDER_READ),
  route('tenant-get', 'GET', '/recipe/multitenancy/tenant', PROVIDER_READ),
  route('tenant-list-v2', 'GET', '/recipe/multitenancy/tenant/list/v2', PROVIDER_READ),
  route('tenant-list', 'GET', '/recipe/multitenancy/tenant/list', PROVIDER_READ),
  route('tenant-remove', 'POST', '/recipe/multitenancy/tenant/remove', WRITE),
  route('thirdparty-config-put', 'PUT', '/recipe/multitenancy/config/thirdparty', CONFIG_WRITE),
  route('thirdparty-config-remove', 'POST', '/recipe/multitenancy/config/thirdparty/remove', CONFIG_WRITE),

  // Users and sign-in (docs/api.md)
  // Seals the TOTP secrets of the user it imports.
  route(
    'bulk-import-import',
    'POST',
    '/bulk-import/import',
    { table: 'write', credentials: 'seal' },
    { scope: 'app', timeoutSeconds: 29, memoryMb: HASHING_MEMORY },
  ),
  // Writes: a legacy password hash is replaced with the app's algorithm after a successful sign-in.
  // Opens the app's sealed Firebase signer key to verify a Firebase hash.
  route('signin', 'POST', '/recipe/signin', { table: 'write', credentials: 'open' }, { memoryMb: HASHING_MEMORY }),
  route('signup', 'POST', '/recipe/signup', WRITE, { memoryMb: HASHING_MEMORY }),
  route('user-get', 'GET', '/user/id', READ, APP_SCOPE),
  // Also revokes the removed user ids' sessions.
  route('user-remove', 'POST', '/user/remove', SESSION_WRITE, { scope: 'app', timeoutSeconds: 29 }),
  route('users-list', 'GET', '/users', READ),
  route('users-count', 'GET', '/users/count', READ),
  route('users-by-accountinfo', 'GET', '/users/by-accountinfo', READ),
  route('userid-map-get', 'GET', '/recipe/userid/map', READ, APP_SCOPE),
  // Reads whether the id has live sessions (a mapping is refused then, as in the reference).
  route('userid-map-create', 'POST', '/recipe/userid/map', SESSION_WRITE, APP_SCOPE),
  // Tenant membership, id mappings and permissions (docs/users.md). Leaving a tenant ends the
  // user's sessions there; removing a mapping reads whether the external id has live sessions.
  route('tenant-user-add', 'POST', '/recipe/multitenancy/tenant/user', WRITE),
  route('tenant-user-remove', 'POST', '/recipe/multitenancy/tenant/user/remove', SESSION_WRITE),
  route('userid-map-remove', 'POST', '/recipe/userid/map/remove', SESSION_WRITE, APP_SCOPE),
  route('userid-external-info-put', 'PUT', '/recipe/userid/external-user-id-info', WRITE, APP_SCOPE),
  route('role-permissions-remove', 'POST', '/recipe/role/permissions/remove', WRITE, APP_SCOPE),
  route('permission-roles', 'GET', '/recipe/permission/roles', READ, APP_SCOPE),
  // Cutover readiness of the password-migration hook (docs/password-migration-hook.md)
  route('password-migration-status', 'GET', '/password-migration/status', READ, APP_SCOPE),
  route('password-migration-pending', 'GET', '/password-migration/pending', READ, APP_SCOPE),

  // Password reset, account updates, email verification (docs/password-reset-and-verification.md)
  route('password-reset-token', 'POST', '/recipe/user/password/reset/token', WRITE),
  route('password-reset-token-consume', 'POST', '/recipe/user/password/reset/token/consume', WRITE),
  // Hashes a new password with the app's algorithm.
  route('recipe-user-put', 'PUT', '/recipe/user', WRITE, { scope: 'app', memoryMb: HASHING_MEMORY }),
  route('email-verify-token', 'POST', '/recipe/user/email/verify/token', WRITE),
  route('email-verify', 'POST', '/recipe/user/email/verify', WRITE),
  route('email-verify-get', 'GET', '/recipe/user/email/verify', READ, APP_SCOPE),
  route('email-verify-token-remove', 'POST', '/recipe/user/email/verify/token/remove', WRITE),
  route('email-verify-remove', 'POST', '/recipe/user/email/verify/remove', WRITE, APP_SCOPE),

  // Third-party sign-in-up and account linking (docs/thirdparty-and-account-linking.md)
  route('thirdparty-signinup', 'POST', '/recipe/signinup', WRITE),
  route('accountlinking-primary-check', 'GET', '/recipe/accountlinking/user/primary/check', READ, APP_SCOPE),
  route('accountlinking-primary', 'POST', '/recipe/accountlinking/user/primary', WRITE, APP_SCOPE),
  route('accountlinking-link-check', 'GET', '/recipe/accountlinking/user/link/check', READ, APP_SCOPE),
  // A link or an unlink also ends the recipe user's sessions (its user id changed).
  route('accountlinking-link', 'POST', '/recipe/accountlinking/user/link', SESSION_WRITE, APP_SCOPE),
  route('accountlinking-unlink', 'POST', '/recipe/accountlinking/user/unlink', SESSION_WRITE, APP_SCOPE),
  // Passwordless sign-in-up (docs/passwordless.md)
  route('passwordless-code-create', 'POST', '/recipe/signinup/code', WRITE),
  route('passwordless-code-consume', 'POST', '/recipe/signinup/code/consume', WRITE),
  // Writes: a wrong code counts a failed attempt, as at consume.
  route('passwordless-code-check', 'POST', '/recipe/signinup/code/check', WRITE),
  route('passwordless-code-remove', 'POST', '/recipe/signinup/code/remove', WRITE),
  route('passwordless-codes-remove', 'POST', '/recipe/signinup/codes/remove', WRITE),
  route('passwordless-codes-list', 'GET', '/recipe/signinup/codes', READ),
  // Passkeys: the WebAuthn recipe (docs/passkeys.md)
  route('webauthn-options-register', 'POST', '/recipe/webauthn/options/register', WRITE),
  route('webauthn-options-signin', 'POST', '/recipe/webauthn/options/signin', WRITE),
  route('webauthn-options-get', 'GET', '/recipe/webauthn/options', READ),
  route('webauthn-options-remove', 'DELETE', '/recipe/webauthn/options/remove', WRITE),
  route('webauthn-signup', 'POST', '/recipe/webauthn/signup', WRITE),
  route('webauthn-signin', 'POST', '/recipe/webauthn/signin', WRITE),
  route('webauthn-credential-register', 'POST', '/recipe/webauthn/user/credential/register', WRITE),
  route('webauthn-credential-get', 'GET', '/recipe/webauthn/user/credential', READ),
  route('webauthn-credential-list', 'GET', '/recipe/webauthn/user/credential/list', READ),
  route('webauthn-credential-remove', 'DELETE', '/recipe/webauthn/user/credential/remove', WRITE),
  route('webauthn-user-email-put', 'PUT', '/recipe/webauthn/user/email', WRITE),
  route('webauthn-recover-token', 'POST', '/recipe/webauthn/user/recover/token', WRITE),
  route('webauthn-recover-token-consume', 'POST', '/recipe/webauthn/user/recover/token/consume', WRITE),
  route('webauthn-recover-get', 'GET', '/recipe/webauthn/user/recover', READ),

  // Bulk import: staging and status (docs/reference-behaviour.md "Bulk import"); the import itself runs in functions/workers.ts
  route('bulk-import-users-add', 'POST', '/bulk-import/users', STAGE, { timeoutSeconds: 29, memoryMb: HASHING_MEMORY }),
  route('bulk-import-users-list', 'GET', '/bulk-import/users', READ, APP_SCOPE),
  route('bulk-import-users-count', 'GET', '/bulk-import/users/count', READ, APP_SCOPE),
  route('bulk-import-users-remove', 'POST', '/bulk-import/users/remove', WRITE),

  // Roles, metadata, TOTP devices
  route('role-put', 'PUT', '/recipe/role', WRITE, APP_SCOPE),
  route('role-remove', 'POST', '/recipe/role/remove', WRITE, { scope: 'app', timeoutSeconds: 29 }),
  route('roles-list', 'GET', '/recipe/roles', READ, APP_SCOPE),
  route('role-permissions', 'GET', '/recipe/role/permissions', READ, APP_SCOPE),
  route('role-users', 'GET', '/recipe/role/users', READ),
  route('user-role-put', 'PUT', '/recipe/user/role', WRITE),
  route('user-role-remove', 'POST', '/recipe/user/role/remove', WRITE),
  route('user-roles-get', 'GET', '/recipe/user/roles', READ),
  route('metadata-get', 'GET', '/recipe/user/metadata', READ, APP_SCOPE),
  route('metadata-put', 'PUT', '/recipe/user/metadata', WRITE, APP_SCOPE),
  route('metadata-remove', 'POST', '/recipe/user/metadata/remove', WRITE, APP_SCOPE),
  route('totp-devices-list', 'GET', '/recipe/totp/device/list', READ, APP_SCOPE),
  // TOTP devices and codes (docs/totp-and-mfa.md): creation seals the new secret; the two routes
  // that verify codes open device secrets (and count attempts); rename and remove open nothing.
  route('totp-device-create', 'POST', '/recipe/totp/device', { table: 'write', credentials: 'seal' }, APP_SCOPE),
  route('totp-device-rename', 'PUT', '/recipe/totp/device', WRITE, APP_SCOPE),
  route('totp-device-remove', 'POST', '/recipe/totp/device/remove', WRITE, APP_SCOPE),
  route('totp-device-verify', 'POST', '/recipe/totp/device/verify', { table: 'write', credentials: 'open' }),
  route('totp-verify', 'POST', '/recipe/totp/verify', { table: 'write', credentials: 'open' }),

  // The user-management dashboard: its own users and sessions, the tenant page's configuration,
  // the search tags and telemetry (docs/dashboard.md). Sign-in and user changes hash passwords.
  route('dashboard-signin', 'POST', '/recipe/dashboard/signin', WRITE, { scope: 'app', memoryMb: HASHING_MEMORY }),
  route('dashboard-session-remove', 'DELETE', '/recipe/dashboard/session', WRITE, APP_SCOPE),
  route('dashboard-session-verify', 'POST', '/recipe/dashboard/session/verify', READ, APP_SCOPE),
  route('dashboard-user-create', 'POST', '/recipe/dashboard/user', WRITE, { scope: 'app', memoryMb: HASHING_MEMORY }),
  route('dashboard-user-update', 'PUT', '/recipe/dashboard/user', WRITE, { scope: 'app', memoryMb: HASHING_MEMORY }),
  route('dashboard-user-remove', 'DELETE', '/recipe/dashboard/user', WRITE, APP_SCOPE),
  route('dashboard-users-list', 'GET', '/recipe/dashboard/users', READ, APP_SCOPE),
  route('dashboard-user-sessions', 'GET', '/recipe/dashboard/user/sessions', READ, APP_SCOPE),
  route('dashboard-tenant-core-config', 'GET', '/recipe/dashboard/tenant/core-config', READ),
  route('search-tags', 'GET', '/user/search/tags', READ),
  route('telemetry', 'GET', '/telemetry', READ, APP_SCOPE),
  // OAuth2 provider recipe: client management only (docs/oauth2-clients.md). The answers that show
  // a client show its secret (opened); creation seals it; an update seals a new one and opens the old.
  route('oauth-clients-list', 'GET', '/recipe/oauth/clients/list', { table: 'read', credentials: 'open' }, APP_SCOPE),
  route('oauth-client-get', 'GET', '/recipe/oauth/clients', { table: 'read', credentials: 'open' }, APP_SCOPE),
  route('oauth-client-create', 'POST', '/recipe/oauth/clients', { table: 'write', credentials: 'seal' }, APP_SCOPE),
  route(
    'oauth-client-update',
    'PUT',
    '/recipe/oauth/clients',
    { table: 'write', credentials: 'seal-and-open' },
    APP_SCOPE,
  ),
  route('oauth-client-remove', 'POST', '/recipe/oauth/clients/remove', WRITE, APP_SCOPE),

  // Sessions, signing keys and JWTs (docs/sessions.md)
  route('session-create', 'POST', '/recipe/session', SIGN),
  route('session-verify', 'POST', '/recipe/session/verify', SIGN, APP_SCOPE),
  route('session-refresh', 'POST', '/recipe/session/refresh', SIGN, APP_SCOPE),
  route('session-regenerate', 'POST', '/recipe/session/regenerate', SIGN, APP_SCOPE),
  route('session-get', 'GET', '/recipe/session', SESSION_READ, APP_SCOPE),
  route('session-user', 'GET', '/recipe/session/user', SESSION_READ),
  route('session-remove', 'POST', '/recipe/session/remove', SESSION_WRITE),
  route('session-data-put', 'PUT', '/recipe/session/data', SESSION_WRITE, APP_SCOPE),
  route('jwt-data-put', 'PUT', '/recipe/jwt/data', SESSION_WRITE, APP_SCOPE),
  route('jwks-public', 'GET', '/.well-known/jwks.json', KEYS_READ, APP_SCOPE),
  route('jwt-jwks', 'GET', '/recipe/jwt/jwks', KEYS_READ, APP_SCOPE),
  route('jwt-create', 'POST', '/recipe/jwt', SIGN, APP_SCOPE),
];

/**
 * Every path the core serves one manifest entry at, as route templates: the path without a
 * prefix, with one prefix segment and with two. API Gateway only matches parameters that are
 * whole path segments, so the optional prefixes are expressed as up to two leading parameter
 * segments; the shared resolver then applies the core's grammar to them.
 */
export function prefixedPaths(route: RouteDefinition): string[] {
  if (route.path === DEFAULT_ROUTE_PATH) return [DEFAULT_ROUTE_PATH];
  const [s1, s2] = PREFIX_PARAMS;
  return [route.path, `/{${s1}}${route.path}`, `/{${s1}}/{${s2}}${route.path}`];
}

/**
 * The API Gateway route paths of one manifest entry. An app-specific API (scope 'app') has no
 * two-segment form on the gateway: `/{s1}` already covers `/appid-<app>` and `/<tenant>`, and
 * `/appid-<app>/<tenant>` only ever names a tenant such an API refuses, so the fallback answers it
 * (functions/http/fallback/handler.ts). That keeps the API under the HTTP API's routes-per-API
 * quota (docs/deploying-aws.md "Route quota").
 */
export function gatewayPaths(route: RouteDefinition): string[] {
  const paths = prefixedPaths(route);
  return route.scope === 'app' ? paths.slice(0, 2) : paths;
}

/**
 * `METHOD path` route keys as API Gateway (HTTP API) spells them.
 * @internal Exported for test/infra/api-stack.test.ts, which checks the synthesized routes against the manifest.
 */
export function gatewayRouteKeys(route: RouteDefinition): string[] {
  if (route.path === DEFAULT_ROUTE_PATH) return [DEFAULT_ROUTE_PATH];
  return gatewayPaths(route).map((p) => `${route.method} ${p}`);
}
