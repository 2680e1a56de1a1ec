/**
 * What each route of the manifest (functions/routes.ts) answers — and takes, where its request has
 * no schemas (./request-schemas.ts generates the request side of the others) — for the API description
 * (bin/openapi/build.ts writes docs/openapi/openapi.yaml from the manifest and this table). The
 * answers are those of the handlers under functions/http/<id>/ and their domain code; the contract
 * test (test/e2e/openapi-contract.test.ts) holds them to what the running core sends.
 */
import { LIFESPAN_FIELDS } from '#functions/domain/oauth-clients/model.js';
import {
  anyJson,
  anyObject,
  arr,
  bool,
  closed,
  described,
  int,
  nullable,
  obj,
  okWith,
  ref,
  type Schema,
  status,
  str,
  strings,
} from './schema.js';

export interface QueryParameter {
  readonly name: string;
  readonly schema: Schema;
  readonly required?: boolean;
  readonly description?: string;
  /** This project's own parameter (not the reference's): what it does. */
  readonly extension?: string;
}

/**
 * A query parameter of a route whose schema describes its query (bin/openapi/request-schemas.ts):
 * only what a schema cannot say.
 */
export interface QueryNote {
  readonly name: string;
  readonly description?: string;
  /** This project's own parameter (not the reference's): what it does. */
  readonly extension?: string;
}

export interface OperationSpec {
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  /**
   * The query parameters, for a route whose handler reads its input by hand; for a route with
   * request schemas (bin/openapi/request-schemas.ts), notes on the parameters they describe.
   */
  readonly query?: readonly (QueryParameter | QueryNote)[];
  /** The JSON request body (POST and PUT), for a route without request schemas. */
  readonly body?: Schema;
  /** The 200 answer's JSON body: alternatives become `oneOf`. */
  readonly ok: Schema | readonly Schema[];
  /** Further answers (status → response), e.g. 400 JSON bodies, 409. */
  readonly more?: Readonly<Record<string, Record<string, unknown>>>;
  /** Extra headers of the request (e.g. `Idempotency-Key`, `rid`). */
  readonly headers?: readonly (QueryParameter & { readonly extension?: string })[];
  /** Headers of the 200 answer. */
  readonly okHeaders?: Readonly<Record<string, Record<string, unknown>>>;
  /** This project's own behaviour beside the reference's, for `x-auth-core-extension`. */
  readonly extension?: string;
  /** Where this core's answer deliberately differs from the reference's. */
  readonly difference?: string;
  /** 403 answers besides the pipeline's (the route's own refusals), by message. */
  readonly forbidden?: readonly string[];
}

const userId = { name: 'userId', schema: str, required: true } as const;

const USER = ref('User');
const userAnswer = (extra: Record<string, Schema> = {}) => okWith({ user: USER, recipeUserId: str, ...extra });
const passwordlessCodeErrors = [
  status('INCORRECT_USER_INPUT_CODE_ERROR', { failedCodeInputAttemptCount: int, maximumCodeInputAttempts: int }),
  status('EXPIRED_USER_INPUT_CODE_ERROR', { failedCodeInputAttemptCount: int, maximumCodeInputAttempts: int }),
  status('RESTART_FLOW_ERROR'),
];
const accountInfoConflict = status('ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR', {
  primaryUserId: str,
  description: str,
});
/** A recipe user that is part of another user already (creating a primary user). */
const linkedToPrimary = status('RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR', {
  primaryUserId: str,
  description: str,
});
/** 402 of the routes that make primary users or link (the app's `account_linking_enabled` switch off). */
const LINKING_OFF = {
  '402': {
    description:
      '`Account linking feature is not enabled for this app. Please contact support to enable it.` (`account_linking_enabled` and `mfa_enabled` are off for the app; a licence in the reference).',
    content: { 'text/plain': { schema: str } },
  },
};
/** 402 of the TOTP routes that need MFA (the app's `mfa_enabled` off; a licence in the reference). */
const MFA_OFF = {
  '402': {
    description:
      "`MFA feature is not enabled. Please subscribe to a SuperTokens core license key to enable this feature.` (the app's `mfa_enabled` is off; a licence in the reference).",
    content: { 'text/plain': { schema: str } },
  },
};
/** A wrong TOTP code, and a user refused while over `totp_max_attempts` (the counts from CDI 5.0). */
const totpCodeErrors = [
  status('INVALID_TOTP_ERROR', { currentNumberOfFailedAttempts: int, maxNumberOfFailedAttempts: int }, [
    'currentNumberOfFailedAttempts',
    'maxNumberOfFailedAttempts',
  ]),
  status(
    'LIMIT_REACHED_ERROR',
    { retryAfterMs: int, currentNumberOfFailedAttempts: int, maxNumberOfFailedAttempts: int },
    ['currentNumberOfFailedAttempts', 'maxNumberOfFailedAttempts'],
  ),
];
const TOTP_COUNTS =
  'Attempts are counted per user id and tenant (`totp_max_attempts`, `totp_rate_limit_cooldown_sec`); the failure counts are in the answers from CDI 5.0 on (docs/totp-and-mfa.md).';
const UNKNOWN_RECIPE_USER = 'An unknown recipe user id is 400 `Unknown user ID provided`.';
const unknownUser = status('UNKNOWN_USER_ID_ERROR');
const webauthnOptionsNotFound = status('OPTIONS_NOT_FOUND_ERROR');
const webauthnInvalidOptions = status('INVALID_OPTIONS_ERROR', { reason: str });
const webauthnTokenInvalid = status('RECOVER_ACCOUNT_TOKEN_INVALID_ERROR');
/** What a browser's `PublicKeyCredential` makes of a ceremony the verifier refuses (docs/passkeys.md "Statuses"). */
const webauthnCeremonyErrors = [
  webauthnInvalidOptions,
  status('INVALID_CREDENTIALS_ERROR', { reason: str }),
  status('INVALID_AUTHENTICATOR_ERROR', { reason: str }),
];
const tenantNotFound = status('TENANT_NOT_FOUND_ERROR');
const sessionTokens = {
  accessToken: ref('Token'),
  refreshToken: ref('Token'),
  antiCsrfToken: str,
  session: ref('SessionInfo'),
};
const sessionHandle = { sessionHandle: str };

/** The request-body `coreConfig` and its keys (docs/configuration.md "Configuration"). */
const coreConfig = described(
  'Configuration keys of the app or tenant (docs/configuration.md "Configuration"); `dynamodb_table_name` (an app on a table of its own) and the hashing keys are this project\'s.',
  anyObject,
);

const FIRST_FACTORS = described('The factors a user may sign in with first.', nullable(strings));

const tenantV2 = ref('TenantV2');
const tenantLegacy = ref('TenantLegacy');
const PROVIDERS = arr(ref('ProviderConfig'));
/** A tenant as `…/tenant/v2` and the v2 lists show it. */
const TENANT_V2: Record<string, Schema> = {
  tenantId: str,
  thirdParty: closed(obj({ providers: PROVIDERS }, ['providers'])),
  coreConfig: anyObject,
  firstFactors: strings,
  requiredSecondaryFactors: strings,
};
const TENANT_V2_OPTIONAL = ['firstFactors', 'requiredSecondaryFactors'];
/** A tenant in the legacy view (CDI < 5.1 routes). */
const TENANT_LEGACY: Record<string, Schema> = {
  tenantId: str,
  emailPassword: closed(obj({ enabled: bool }, ['enabled'])),
  thirdParty: closed(obj({ enabled: bool, providers: PROVIDERS }, ['enabled', 'providers'])),
  passwordless: closed(obj({ enabled: bool }, ['enabled'])),
  coreConfig: anyObject,
  firstFactors: strings,
};
const TENANT_LEGACY_OPTIONAL = ['firstFactors'];

/** A staged user's status (`IMPORTED` users leave staging). */
const STAGED_STATUS: Schema = { enum: ['NEW', 'PROCESSING', 'FAILED'] };

/** Staging's answer: the staged users in request order (no `users` key for an empty request). */
const STAGED = okWith(
  {
    users: arr(
      obj(
        {
          userId: described("The external user id, else the staged row's id.", str),
          loginMethods: arr(
            obj(
              {
                recipeId: str,
                userId: described('The SuperTokens user id the login method will get.', str),
                tenants: strings,
                email: str,
                thirdpartyId: str,
                thirdpartyUserId: str,
                phoneNumber: str,
              },
              ['recipeId', 'userId', 'tenants'],
            ),
          ),
        },
        ['userId', 'loginMethods'],
      ),
    ),
  },
  ['users'],
);

const STAGED_USERS_EXTENSION =
  '`?dryRun=true` checks the users without staging them; `Idempotency-Key` stages a request at most once (docs/bulk-import.md "Bulk import").';

/** OAuth2 client management (docs/oauth2-clients.md). */
const OAUTH_LIFESPAN = described(
  'A Go duration (`1h`, `90m`, `1.5h`), answered in canonical form (`1h0m0s`); null: the default.',
  nullable(str),
);
const OAUTH_LIFESPANS = Object.fromEntries(LIFESPAN_FIELDS.map((field) => [field, OAUTH_LIFESPAN]));
/** The fields a create or update body may set. */
const OAUTH_CLIENT_INPUT: Record<string, Schema> = {
  clientId: str,
  clientSecret: described('At least 6 characters; generated (26) on create when absent.', str),
  clientName: str,
  scope: described('Space-separated; `offline_access offline openid` when empty.', str),
  redirectUris: nullable(strings),
  postLogoutRedirectUris: nullable(strings),
  grantTypes: nullable(strings),
  responseTypes: nullable(strings),
  audience: nullable(strings),
  allowedCorsOrigins: nullable(strings),
  tokenEndpointAuthMethod: described('`client_secret_basic` when empty; `none`: a public client, no secret.', str),
  clientUri: str,
  logoUri: str,
  policyUri: str,
  tosUri: str,
  metadata: nullable(anyObject),
  enableRefreshTokenRotation: bool,
  ...OAUTH_LIFESPANS,
};
const OAUTH_CLIENT_FIELDS: Record<string, Schema> = {
  clientId: str,
  clientName: str,
  clientSecret: str,
  redirectUris: nullable(strings),
  grantTypes: nullable(strings),
  responseTypes: nullable(strings),
  scope: str,
  audience: strings,
  policyUri: str,
  allowedCorsOrigins: strings,
  tosUri: str,
  clientUri: str,
  logoUri: str,
  tokenEndpointAuthMethod: str,
  createdAt: described('RFC 3339, UTC, whole seconds.', str),
  updatedAt: str,
  postLogoutRedirectUris: strings,
  metadata: anyObject,
  ...OAUTH_LIFESPANS,
  enableRefreshTokenRotation: bool,
};
const OAUTH_CLIENT_OPTIONAL = ['clientSecret', 'postLogoutRedirectUris'];
const oauthClientAnswer = okWith(OAUTH_CLIENT_FIELDS, OAUTH_CLIENT_OPTIONAL);
/** The provider's refusals, answered 200 as the reference answers them. */
const OAUTH_ERROR = status('OAUTH_ERROR', { error: str, errorDescription: str, statusCode: int });
const OAUTH_OFF = {
  '402': {
    description:
      "`OAuth feature is not enabled. Please subscribe to a SuperTokens core license key to enable this feature.` (the app's `oauth_provider_enabled` is off; a licence in the reference).",
    content: { 'text/plain': { schema: str } },
  },
};
const OAUTH_DIFFERENCE =
  'Clients are kept by this core, per app, instead of by an OAuth2 provider the core talks to: ids are unique per app, not across apps; `metadata` must be a JSON object; `private_key_jwt` is refused (no client keys are kept); the provider-only fields (`jwks`, `contacts`, …) are ignored (docs/oauth2-clients.md).';

export const OPERATIONS: Readonly<Record<string, OperationSpec>> = {
  apiversion: {
    tag: 'Core',
    summary: 'The CDI versions this core speaks',
    ok: obj({ versions: strings }, ['versions']),
    description: "Needs no `cdi-version` header. Every version up to the app's `max_cdi_version`; no `status` key.",
  },

  'app-put-v2': {
    tag: 'Apps and tenants',
    summary: 'Create or update an app',
    body: obj({ appId: str, coreConfig, firstFactors: FIRST_FACTORS, requiredSecondaryFactors: nullable(strings) }, [
      'appId',
    ]),
    ok: okWith({ createdNew: bool }),
    forbidden: ['You must use the public or same app to add/update an app'],
  },
  'app-put': {
    tag: 'Apps and tenants',
    summary: 'Create or update an app (legacy input)',
    description:
      'Deprecated since CDI 5.1: `emailPasswordEnabled`, `thirdPartyEnabled`, `passwordlessEnabled` instead of first factors.',
    body: obj(
      { appId: str, emailPasswordEnabled: bool, thirdPartyEnabled: bool, passwordlessEnabled: bool, coreConfig },
      ['appId'],
    ),
    ok: okWith({ createdNew: bool }),
    forbidden: ['You must use the public or same app to add/update an app'],
  },
  'app-list-v2': {
    tag: 'Apps and tenants',
    summary: 'Every app and its tenants',
    ok: okWith({ apps: arr(obj({ appId: str, tenants: arr(tenantV2) }, ['appId', 'tenants'])) }),
    difference:
      'Providers\' secrets and `api_keys` are shown as fingerprints (docs/security.md "Credentials at rest").',
    forbidden: ['Only the public tenantId and public appId is allowed to list all apps'],
  },
  'app-list': {
    tag: 'Apps and tenants',
    summary: 'Every app and its tenants (legacy view)',
    ok: okWith({ apps: arr(obj({ appId: str, tenants: arr(tenantLegacy) }, ['appId', 'tenants'])) }),
    difference:
      'Providers\' secrets and `api_keys` are shown as fingerprints (docs/security.md "Credentials at rest").',
    forbidden: ['Only the public tenantId and public appId is allowed to list all apps'],
  },
  'app-remove': {
    tag: 'Apps and tenants',
    summary: 'Remove an app and everything it owns',
    body: obj({ appId: str }, ['appId']),
    ok: okWith({ didExist: bool }),
    forbidden: [
      'Cannot delete the public app, use remove connection uri domain API instead',
      'Only the public tenantId and public appId is allowed to delete an app',
    ],
  },
  'tenant-put-v2': {
    tag: 'Apps and tenants',
    summary: 'Create or update a tenant',
    body: obj({ tenantId: str, coreConfig, firstFactors: FIRST_FACTORS, requiredSecondaryFactors: nullable(strings) }, [
      'tenantId',
    ]),
    ok: okWith({ createdNew: bool }),
    forbidden: ['You must use the public or same tenant to add/update a tenant'],
  },
  'tenant-put': {
    tag: 'Apps and tenants',
    summary: 'Create or update a tenant (legacy input)',
    body: obj(
      { tenantId: str, emailPasswordEnabled: bool, thirdPartyEnabled: bool, passwordlessEnabled: bool, coreConfig },
      ['tenantId'],
    ),
    ok: okWith({ createdNew: bool }),
    forbidden: ['You must use the public or same tenant to add/update a tenant'],
  },
  'tenant-get-v2': {
    tag: 'Apps and tenants',
    summary: 'The tenant of the path',
    ok: [okWith(TENANT_V2, TENANT_V2_OPTIONAL), tenantNotFound],
    difference:
      '`api_keys` and the Firebase signer key are shown as fingerprints (docs/security.md "Credentials at rest").',
  },
  'tenant-get': {
    tag: 'Apps and tenants',
    summary: 'The tenant of the path (legacy view)',
    ok: [okWith(TENANT_LEGACY, TENANT_LEGACY_OPTIONAL), tenantNotFound],
    difference:
      '`api_keys` and the Firebase signer key are shown as fingerprints (docs/security.md "Credentials at rest").',
  },
  'tenant-list-v2': {
    tag: 'Apps and tenants',
    summary: 'Every tenant of the app',
    ok: okWith({ tenants: arr(tenantV2) }),
    forbidden: ['Only the public tenantId is allowed to list all tenants associated with this app'],
  },
  'tenant-list': {
    tag: 'Apps and tenants',
    summary: 'Every tenant of the app (legacy view)',
    ok: okWith({ tenants: arr(tenantLegacy) }),
    forbidden: ['Only the public tenantId is allowed to list all tenants associated with this app'],
  },
  'tenant-remove': {
    tag: 'Apps and tenants',
    summary: 'Remove a tenant',
    body: obj({ tenantId: str }, ['tenantId']),
    ok: okWith({ didExist: bool }),
    forbidden: [
      'Cannot delete public tenant, use remove app API instead',
      'Only the public tenantId is allowed to delete a tenant',
    ],
  },
  'thirdparty-config-put': {
    tag: 'Apps and tenants',
    summary: 'Add or replace a third-party provider of the tenant',
    body: obj({ config: ref('ProviderConfig'), skipValidation: bool }, ['config']),
    ok: okWith({ createdNew: bool }),
    difference:
      'A secret sent back as the fingerprint a response showed keeps the stored secret (docs/security.md "Credentials at rest").',
  },
  'thirdparty-config-remove': {
    tag: 'Apps and tenants',
    summary: 'Remove a third-party provider of the tenant',
    body: obj({ thirdPartyId: str }, ['thirdPartyId']),
    ok: okWith({ didConfigExist: bool }),
  },

  'bulk-import-import': {
    tag: 'Bulk import',
    summary: 'Import one user now (lazy import)',
    body: ref('ImportUser'),
    ok: okWith({ user: USER }),
    more: {
      '400': {
        description: 'The user is invalid or could not be imported: `{"errors": […]}`, or a plain-text message.',
        content: {
          'application/json': { schema: obj({ errors: strings }, ['errors']) },
          'text/plain': { schema: str },
        },
      },
    },
    difference:
      'Legacy hashes (PHPASS, SCRYPT, FIREBASE_SCRYPT among them) are accepted and bounded (docs/password-hashes.md "Password hashes").',
  },
  'bulk-import-users-add': {
    tag: 'Bulk import',
    summary: 'Stage users for the import worker (up to 10,000 per request)',
    query: [
      {
        name: 'dryRun',
        schema: { type: 'string', pattern: '^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$' },
        description: '`true`: check the users against the app without staging them.',
        extension: 'Dry run (docs/bulk-import.md "Checking a request first: ?dryRun=true").',
      },
    ],
    headers: [
      {
        name: 'Idempotency-Key',
        schema: { type: 'string', minLength: 1, maxLength: 255 },
        description: 'Stage this request at most once: a repeat with the same key and body replays the first answer.',
        extension: 'Idempotent staging (docs/bulk-import.md "Sending a request again safely: Idempotency-Key").',
      },
    ],
    body: obj({ users: arr(ref('ImportUser')) }, ['users']),
    // Both are `OK`: staging's answer (no `dryRun` key) or, with `?dryRun=true`, the dry run's report.
    ok: {
      anyOf: [{ ...STAGED, properties: { ...(STAGED.properties as object), dryRun: false } }, ref('DryRunReport')],
    },
    okHeaders: {
      'Idempotency-Replayed': {
        description: '`true` when the answer is the replay of an earlier request with the same `Idempotency-Key`.',
        schema: { type: 'string', const: 'true' },
        'x-auth-core-extension': true,
      },
    },
    more: {
      '400': {
        description:
          'Invalid users: `{"error": "Data has missing or invalid fields. …", "users": [{"index", "errors"}]}`, too many users (`{"error"}`), or a plain-text message.',
        content: {
          'application/json': {
            schema: obj({ error: str, users: arr(obj({ index: int, errors: strings }, ['index', 'errors'])) }, [
              'error',
            ]),
          },
          'text/plain': { schema: str },
        },
      },
      '409': {
        description:
          'A request with the same `Idempotency-Key` (without one: with the same body) is being staged right now; retry after `Retry-After` seconds.',
        headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
        content: { 'text/plain': { schema: str } },
        'x-auth-core-extension': true,
      },
    },
    extension: STAGED_USERS_EXTENSION,
  },
  'bulk-import-users-list': {
    tag: 'Bulk import',
    summary: 'Staged users, newest first (credentials omitted)',
    query: [
      { name: 'status', schema: STAGED_STATUS },
      { name: 'limit', schema: { type: 'string', pattern: '^-?[0-9]+$' } },
      { name: 'paginationToken', schema: str },
    ],
    ok: okWith(
      {
        users: arr(
          obj(
            {
              id: str,
              externalUserId: str,
              userMetadata: anyObject,
              loginMethods: arr(anyObject),
              status: STAGED_STATUS,
              errorMessage: str,
              createdAt: int,
              updatedAt: int,
            },
            ['id', 'loginMethods', 'status', 'createdAt', 'updatedAt'],
          ),
        ),
        nextPaginationToken: str,
      },
      ['nextPaginationToken'],
    ),
    difference:
      'Staged credentials are never returned: `plainTextPassword`, `passwordHash` and TOTP `secretKey` are left out (docs/bulk-import.md "Bulk import").',
  },
  'bulk-import-users-count': {
    tag: 'Bulk import',
    summary: 'How many users are staged',
    query: [{ name: 'status', schema: STAGED_STATUS }],
    ok: okWith({ count: int }),
  },
  'bulk-import-users-remove': {
    tag: 'Bulk import',
    summary: 'Remove staged users by id',
    body: obj({ ids: strings }, ['ids']),
    ok: obj({ deletedIds: strings, invalidIds: strings }, ['deletedIds', 'invalidIds']),
    description: 'No `status` key, as in the reference.',
  },

  signin: {
    tag: 'Email and password',
    summary: 'Sign in with email and password',
    ok: [userAnswer(), status('WRONG_CREDENTIALS_ERROR')],
    difference:
      'A legacy or weaker hash is replaced with the app\'s algorithm after a successful sign-in; a failed sign-in takes at least a dummy verify\'s time (docs/security.md "Sign-in timing").',
  },
  signup: {
    tag: 'Email and password',
    summary: 'Sign up with email and password',
    ok: [userAnswer(), status('EMAIL_ALREADY_EXISTS_ERROR')],
  },
  'user-get': {
    tag: 'Users',
    summary: 'A user by recipe user id, primary user id or external id',
    ok: [okWith({ user: USER }), status('UNKNOWN_USER_ID_ERROR')],
  },
  'user-remove': {
    tag: 'Users',
    summary: 'Remove a user (and its sessions)',
    ok: okWith(),
  },
  'users-list': {
    tag: 'Users',
    summary: 'Users of the tenant, a page at a time',
    query: [
      { name: 'includeRecipeIds', description: 'Comma-separated recipe ids.' },
      {
        name: 'email',
        description: 'Search: `;`-separated terms, each the start of an email or of its domain (docs/users.md).',
      },
      { name: 'phone', description: 'Search: `;`-separated terms, each the start of a phone number.' },
      {
        name: 'provider',
        description: 'Search: `;`-separated terms, each the start of `<thirdPartyId>::<thirdPartyUserId>`.',
      },
    ],
    description:
      'With search terms (`email`, `phone`, `provider`; case-insensitive, any term of a field, every field on one login method of the tenant) the answer is every matching user, at most 1000, by time joined, with no `nextPaginationToken`; `limit` and `includeRecipeIds` do not narrow it (docs/users.md "Searching users").',
    difference:
      "Search terms are literal prefixes (the reference's SQL `LIKE` also reads `%` and `_` in a term as wildcards); a field takes at most 100 terms (400 `Field name '<field>' can have at most 100 search terms`); with more than 1000 matching login methods, the 1000 users are those of the first 1000 matches in index order, then sorted by time joined.",
    ok: okWith({ users: arr(USER), nextPaginationToken: str }, ['nextPaginationToken']),
  },
  'users-count': {
    tag: 'Users',
    summary: 'How many users the tenant (or the app) has',
    query: [{ name: 'includeRecipeIds', description: 'Comma-separated recipe ids.' }],
    ok: okWith({ count: int }),
  },
  'users-by-accountinfo': {
    tag: 'Users',
    summary: 'Users with an email, phone number or third-party id',
    ok: okWith({ users: arr(USER) }),
  },
  'userid-map-get': {
    tag: 'Users',
    summary: 'The user id mapping of an id',
    ok: [
      okWith({ superTokensUserId: str, externalUserId: str, externalUserIdInfo: str }, ['externalUserIdInfo']),
      status('UNKNOWN_MAPPING_ERROR'),
    ],
  },
  'userid-map-create': {
    tag: 'Users',
    summary: 'Map a user id to an external id',
    ok: [
      okWith(),
      status('UNKNOWN_SUPERTOKENS_USER_ID_ERROR'),
      status('USER_ID_MAPPING_ALREADY_EXISTS_ERROR', {
        doesSuperTokensUserIdExist: bool,
        doesExternalUserIdExist: bool,
      }),
    ],
    description:
      'Without `force`, an id with live sessions, metadata, roles, email verification (before CDI 4.0 only) or TOTP devices is refused with 400 `UserId is already in use in <Session|UserMetadata|UserRoles|EmailVerification|TOTP> recipe` (docs/users.md "User id mappings").',
  },
  // Tenant membership, id mappings and permissions (docs/users.md)
  'tenant-user-add': {
    tag: 'Users',
    summary: 'Add a recipe user to the tenant',
    body: obj({ recipeUserId: str, userId: str }),
    description: 'The id is `recipeUserId` from CDI 4.0, `userId` before (a SuperTokens or an external id).',
    ok: [
      okWith({ wasAlreadyAssociated: bool }),
      unknownUser,
      status('EMAIL_ALREADY_EXISTS_ERROR'),
      status('PHONE_NUMBER_ALREADY_EXISTS_ERROR'),
      status('THIRD_PARTY_USER_ALREADY_EXISTS_ERROR'),
      status('ASSOCIATION_NOT_ALLOWED_ERROR', { reason: str }),
    ],
  },
  'tenant-user-remove': {
    tag: 'Users',
    summary: 'Take a recipe user out of the tenant (and its roles, tokens and sessions there)',
    body: obj({ recipeUserId: str, userId: str }),
    description: 'The id is `recipeUserId` from CDI 4.0, `userId` before (a SuperTokens or an external id).',
    ok: [okWith({ wasAssociated: bool }), unknownUser],
  },
  'userid-map-remove': {
    tag: 'Users',
    summary: 'Remove the user id mapping of an id',
    description:
      'Without `force`, a mapping whose external id has data of its own (sessions, metadata, roles, email verification, TOTP devices) is refused with 400 `UserId is already in use in <recipe> recipe`.',
    ok: okWith({ didMappingExist: bool }),
  },
  'userid-external-info-put': {
    tag: 'Users',
    summary: 'Set or remove (`null`) the external user id info of a mapping',
    ok: [okWith(), status('UNKNOWN_MAPPING_ERROR')],
  },
  'role-permissions-remove': {
    tag: 'Roles',
    summary: 'Remove permissions (none named: all) from a role',
    ok: [okWith(), status('UNKNOWN_ROLE_ERROR')],
  },
  'permission-roles': {
    tag: 'Roles',
    summary: 'The roles that have a permission',
    ok: okWith({ roles: strings }),
  },

  'password-reset-token': {
    tag: 'Email and password',
    summary: 'A password reset token',
    ok: [okWith({ token: str }), unknownUser],
  },
  'password-reset-token-consume': {
    tag: 'Email and password',
    summary: 'Use a password reset token',
    ok: [okWith({ userId: str, email: str }), status('RESET_PASSWORD_INVALID_TOKEN_ERROR')],
  },
  'recipe-user-put': {
    tag: 'Email and password',
    summary: "Update a user's email, password or phone number",
    description:
      'The `rid` header picks the recipe: `passwordless` updates email and/or phone number; any other (the SDK sends `emailpassword`) email and/or password.',
    headers: [{ name: 'rid', schema: str, description: 'The recipe: `emailpassword` or `passwordless`.' }],
    body: obj({ recipeUserId: str, email: nullable(str), password: str, phoneNumber: nullable(str) }, ['recipeUserId']),
    ok: [
      okWith(),
      unknownUser,
      status('EMAIL_ALREADY_EXISTS_ERROR'),
      status('EMAIL_CHANGE_NOT_ALLOWED_ERROR', { reason: str }),
      status('PHONE_NUMBER_ALREADY_EXISTS_ERROR'),
      status('PHONE_NUMBER_CHANGE_NOT_ALLOWED_ERROR', { reason: str }),
    ],
  },

  'email-verify-token': {
    tag: 'Email verification',
    summary: 'An email verification token',
    ok: [okWith({ token: str }), status('EMAIL_ALREADY_VERIFIED_ERROR')],
  },
  'email-verify': {
    tag: 'Email verification',
    summary: 'Verify an email with a token',
    ok: [okWith({ userId: str, email: str }), status('EMAIL_VERIFICATION_INVALID_TOKEN_ERROR')],
  },
  'email-verify-get': {
    tag: 'Email verification',
    summary: 'Whether an email of a user id is verified',
    ok: okWith({ isVerified: bool }),
  },
  'email-verify-token-remove': {
    tag: 'Email verification',
    summary: 'Remove the verification tokens of a user id and email',
    ok: okWith(),
  },
  'email-verify-remove': {
    tag: 'Email verification',
    summary: 'Mark an email of a user id as not verified',
    ok: okWith(),
  },

  'thirdparty-signinup': {
    tag: 'Third party',
    summary: 'Sign in or up with a third-party account',
    body: obj({ thirdPartyId: str, thirdPartyUserId: str, email: obj({ id: str, isVerified: bool }, ['id']) }, [
      'thirdPartyId',
      'thirdPartyUserId',
      'email',
    ]),
    ok: [userAnswer({ createdNewUser: bool }), status('EMAIL_CHANGE_NOT_ALLOWED_ERROR', { reason: str })],
    forbidden: ['ThirdParty login not enabled for tenant'],
  },
  'accountlinking-primary-check': {
    tag: 'Account linking',
    summary: 'Whether a recipe user could become a primary user',
    description: UNKNOWN_RECIPE_USER,
    ok: [okWith({ wasAlreadyAPrimaryUser: bool }), linkedToPrimary, accountInfoConflict],
  },
  'accountlinking-primary': {
    tag: 'Account linking',
    summary: 'Make a recipe user a primary user',
    description: UNKNOWN_RECIPE_USER,
    ok: [okWith({ wasAlreadyAPrimaryUser: bool, user: USER }), linkedToPrimary, accountInfoConflict],
    more: LINKING_OFF,
  },
  'accountlinking-link-check': {
    tag: 'Account linking',
    summary: 'Whether a recipe user could be linked to a primary user',
    description: UNKNOWN_RECIPE_USER,
    ok: [
      okWith({ accountsAlreadyLinked: bool }),
      status('RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR', {
        primaryUserId: str,
        description: str,
      }),
      accountInfoConflict,
      status('INPUT_USER_IS_NOT_A_PRIMARY_USER'),
    ],
  },
  'accountlinking-link': {
    tag: 'Account linking',
    summary: 'Link a recipe user to a primary user',
    description: UNKNOWN_RECIPE_USER,
    ok: [
      okWith({ accountsAlreadyLinked: bool, user: USER }),
      status('RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR', {
        primaryUserId: str,
        description: str,
        user: USER,
      }),
      accountInfoConflict,
      status('INPUT_USER_IS_NOT_A_PRIMARY_USER'),
    ],
    more: LINKING_OFF,
  },
  'accountlinking-unlink': {
    tag: 'Account linking',
    summary: 'Unlink a recipe user from its primary user',
    description: UNKNOWN_RECIPE_USER,
    ok: okWith({ wasRecipeUserDeleted: bool, wasLinked: bool }),
  },

  'passwordless-code-create': {
    tag: 'Passwordless',
    summary: 'A new passwordless device and code, or a new code for a device',
    body: obj({ email: str, phoneNumber: str, deviceId: str, userInputCode: str }),
    ok: [
      okWith({
        preAuthSessionId: str,
        codeId: str,
        deviceId: str,
        userInputCode: str,
        linkCode: str,
        timeCreated: int,
        codeLifetime: int,
      }),
      status('RESTART_FLOW_ERROR'),
      status('USER_INPUT_CODE_ALREADY_USED_ERROR'),
    ],
    forbidden: ['Passwordless login not enabled for tenant'],
  },
  'passwordless-code-consume': {
    tag: 'Passwordless',
    summary: 'Use a passwordless code: sign in or up',
    body: obj(
      { preAuthSessionId: str, deviceId: str, userInputCode: str, linkCode: str, createRecipeUserIfNotExists: bool },
      ['preAuthSessionId'],
    ),
    ok: [
      okWith({ createdNewUser: bool, user: USER, recipeUserId: str, consumedDevice: ref('PasswordlessDevice') }, [
        'user',
        'recipeUserId',
        'createdNewUser',
      ]),
      ...passwordlessCodeErrors,
    ],
  },
  'passwordless-code-check': {
    tag: 'Passwordless',
    summary: 'Check a passwordless code without using it',
    body: obj({ preAuthSessionId: str, deviceId: str, userInputCode: str, linkCode: str }, ['preAuthSessionId']),
    ok: [okWith({ consumedDevice: ref('PasswordlessDevice') }), ...passwordlessCodeErrors],
  },
  'passwordless-code-remove': {
    tag: 'Passwordless',
    summary: 'Remove a passwordless code',
    body: obj({ codeId: str, preAuthSessionId: str }),
    ok: okWith(),
  },
  'passwordless-codes-remove': {
    tag: 'Passwordless',
    summary: 'Remove every passwordless code of an email or phone number',
    body: obj({ email: str, phoneNumber: str }),
    ok: okWith(),
  },
  'passwordless-codes-list': {
    tag: 'Passwordless',
    summary: 'Passwordless devices and their codes',
    query: [
      { name: 'email', schema: str },
      { name: 'phoneNumber', schema: str },
      { name: 'deviceId', schema: str },
      { name: 'preAuthSessionId', schema: str },
    ],
    ok: okWith({ devices: arr(ref('PasswordlessDevice')) }),
  },

  // Passkeys: the WebAuthn recipe (docs/passkeys.md)
  'webauthn-options-register': {
    tag: 'Passkeys',
    summary: 'Options for registering a passkey (navigator.credentials.create)',
    ok: [
      okWith({
        webauthnGeneratedOptionsId: str,
        rp: closed(obj({ id: str, name: str }, ['id', 'name'])),
        user: closed(obj({ id: str, name: str, displayName: str }, ['id', 'name', 'displayName'])),
        email: str,
        timeout: int,
        challenge: str,
        attestation: str,
        createdAt: int,
        expiresAt: int,
        pubKeyCredParams: arr(closed(obj({ alg: int, type: { const: 'public-key' } }, ['alg', 'type']))),
        excludeCredentials: arr(anyObject),
        authenticatorSelection: closed(
          obj({ requireResidentKey: bool, residentKey: str, userVerification: str }, [
            'requireResidentKey',
            'residentKey',
            'userVerification',
          ]),
        ),
      }),
      webauthnInvalidOptions,
    ],
  },
  'webauthn-options-signin': {
    tag: 'Passkeys',
    summary: 'Options for signing in with a passkey (navigator.credentials.get)',
    ok: [
      okWith({
        webauthnGeneratedOptionsId: str,
        relyingPartyId: str,
        challenge: str,
        timeout: int,
        userVerification: str,
        userPresence: bool,
        createdAt: int,
        expiresAt: int,
      }),
      webauthnInvalidOptions,
    ],
  },
  'webauthn-options-get': {
    tag: 'Passkeys',
    summary: 'Options made in this tenant',
    ok: [
      okWith({
        webauthnGeneratedOptionsId: str,
        relyingPartyId: str,
        relyingPartyName: str,
        challenge: str,
        timeout: int,
        origin: str,
        email: nullable(str),
        createdAt: int,
        expiresAt: int,
        userVerification: str,
        userPresence: bool,
      }),
      webauthnOptionsNotFound,
    ],
  },
  'webauthn-options-remove': {
    tag: 'Passkeys',
    summary: 'Remove options made in this tenant',
    ok: [okWith(), webauthnOptionsNotFound],
  },
  'webauthn-signup': {
    tag: 'Passkeys',
    summary: 'Sign up with a passkey (verifies the attestation)',
    description:
      "A new webauthn user of the options' email in the path's tenant, holding the passkey. The attestation is verified against the options (challenge, origin, relying party id, flags) with a maintained verifier.",
    ok: [
      okWith({
        user: USER,
        webauthnCredentialId: str,
        relyingPartyId: str,
        relyingPartyName: str,
        recipeUserId: str,
      }),
      status('EMAIL_ALREADY_EXISTS_ERROR'),
      webauthnOptionsNotFound,
      ...webauthnCeremonyErrors,
    ],
    difference:
      "The reasons of `INVALID_AUTHENTICATOR_ERROR` and `INVALID_CREDENTIALS_ERROR` are this verifier's (the reference uses webauthn4j); a passkey registered already answers `INVALID_CREDENTIALS_ERROR`, sign-in options `INVALID_OPTIONS_ERROR` (both a database error in the reference).",
  },
  'webauthn-signin': {
    tag: 'Passkeys',
    summary: 'Sign in with a passkey (verifies the assertion and its counter)',
    description:
      'From CDI 5.5 (and without a `cdi-version` header) the options are consumed by a successful sign-in; the SDKs of CDI 5.4 read them again afterwards, so they stay until they expire.',
    ok: [
      okWith({ user: USER, recipeUserId: str }),
      webauthnOptionsNotFound,
      status('CREDENTIAL_NOT_FOUND_ERROR'),
      unknownUser,
      ...webauthnCeremonyErrors,
    ],
  },
  'webauthn-credential-register': {
    tag: 'Passkeys',
    summary: 'Register a further passkey for a webauthn login method',
    ok: [
      okWith({
        webauthnCredentialId: str,
        recipeUserId: str,
        email: nullable(str),
        relyingPartyId: str,
        relyingPartyName: str,
      }),
      status('CREDENTIAL_ALREADY_EXISTS_ERROR'),
      unknownUser,
      webauthnOptionsNotFound,
      ...webauthnCeremonyErrors,
    ],
    difference:
      "The options are found in any tenant of the app (the reference looks in the path's tenant here only, which the SDK, calling without a tenant prefix, makes `public`).",
  },
  'webauthn-credential-get': {
    tag: 'Passkeys',
    summary: 'One passkey of a webauthn login method',
    ok: [
      okWith({ webauthnCredentialId: str, recipeUserId: str, relyingPartyId: str, createdAt: int, updatedAt: int }),
      status('CREDENTIAL_NOT_FOUND_ERROR'),
    ],
  },
  'webauthn-credential-list': {
    tag: 'Passkeys',
    summary: 'The passkeys of a webauthn login method',
    ok: okWith({
      credentials: arr(
        closed(
          obj({ webauthnCredentialId: str, recipeUserId: str, relyingPartyId: str, createdAt: int }, [
            'webauthnCredentialId',
            'recipeUserId',
            'relyingPartyId',
            'createdAt',
          ]),
        ),
      ),
    }),
  },
  'webauthn-credential-remove': {
    tag: 'Passkeys',
    summary: 'Remove a passkey of a webauthn login method',
    ok: [okWith(), status('CREDENTIAL_NOT_FOUND_ERROR')],
  },
  'webauthn-user-email-put': {
    tag: 'Passkeys',
    summary: 'Change the email of a webauthn login method',
    ok: [okWith(), unknownUser, status('EMAIL_ALREADY_EXISTS_ERROR'), status('USER_WITH_EMAIL_ALREADY_EXISTS_ERROR')],
    difference: 'The new email is normalised (trimmed, lower-cased) as everywhere else in the core.',
  },
  'webauthn-recover-token': {
    tag: 'Passkeys',
    summary: 'An account-recovery token for a user and an email',
    ok: [okWith({ token: str }), unknownUser],
  },
  'webauthn-recover-token-consume': {
    tag: 'Passkeys',
    summary: 'Use up an account-recovery token',
    ok: [okWith({ userId: str, email: str }), webauthnTokenInvalid],
  },
  'webauthn-recover-get': {
    tag: 'Passkeys',
    summary: 'The user of an account-recovery token',
    ok: [okWith({ recipeUserId: nullable(str), user: USER }), webauthnTokenInvalid],
  },

  'role-put': {
    tag: 'Roles',
    summary: 'Create a role or add permissions to it',
    ok: okWith({ createdNewRole: bool }),
  },
  'role-remove': {
    tag: 'Roles',
    summary: 'Remove a role and all its assignments',
    ok: okWith({ didRoleExist: bool }),
  },
  'roles-list': {
    tag: 'Roles',
    summary: 'Every role of the app',
    query: [{ name: 'permission', schema: str }],
    ok: okWith({ roles: strings }),
  },
  'role-permissions': {
    tag: 'Roles',
    summary: 'The permissions of a role',
    ok: [okWith({ permissions: strings }), status('UNKNOWN_ROLE_ERROR')],
  },
  'role-users': {
    tag: 'Roles',
    summary: 'User ids with a role in the tenant',
    ok: [okWith({ users: strings }), status('UNKNOWN_ROLE_ERROR')],
  },
  'user-role-put': {
    tag: 'Roles',
    summary: 'Give a user id a role in the tenant',
    ok: [okWith({ didUserAlreadyHaveRole: bool }), status('UNKNOWN_ROLE_ERROR')],
  },
  'user-role-remove': {
    tag: 'Roles',
    summary: 'Take a role from a user id in the tenant',
    ok: [okWith({ didUserHaveRole: bool }), status('UNKNOWN_ROLE_ERROR')],
  },
  'user-roles-get': {
    tag: 'Roles',
    summary: 'The roles of a user id in the tenant',
    ok: okWith({ roles: strings }),
  },
  'metadata-get': {
    tag: 'User metadata',
    summary: 'The metadata of a user id (`{}` when none)',
    ok: okWith({ metadata: anyObject }),
  },
  'metadata-put': {
    tag: 'User metadata',
    summary: "Shallow-merge an update into a user id's metadata (`null` deletes a key)",
    ok: okWith({ metadata: anyObject }),
  },
  'metadata-remove': {
    tag: 'User metadata',
    summary: 'Remove the metadata of a user id',
    ok: okWith(),
  },
  'totp-devices-list': {
    tag: 'TOTP',
    summary: 'The TOTP devices of a user id (never their secrets)',
    ok: okWith({
      devices: arr(obj({ name: str, period: int, skew: int, verified: bool }, ['name', 'period', 'skew', 'verified'])),
    }),
  },
  'totp-device-create': {
    tag: 'TOTP',
    summary: 'A new unverified TOTP device; its secret is in this answer only',
    description:
      "Without `deviceName` the device is `TOTP Device <n>`. An unverified device of the name is replaced. 400: `userId cannot be empty`, `deviceName cannot be empty`, `skew must be >= 0`, `period must be > 0`, `skew must be <= 100` (this core's limit), an id too long.",
    ok: [okWith({ deviceName: str, secret: str }), status('DEVICE_ALREADY_EXISTS_ERROR')],
    more: MFA_OFF,
  },
  'totp-device-verify': {
    tag: 'TOTP',
    summary: "Verify a device with its first code (counted against the user's attempts in the tenant)",
    description: TOTP_COUNTS,
    ok: [okWith({ wasAlreadyVerified: bool }), status('UNKNOWN_DEVICE_ERROR'), ...totpCodeErrors],
  },
  'totp-device-rename': {
    tag: 'TOTP',
    summary: 'Rename a TOTP device',
    description:
      '400: `userId cannot be empty`, `existingDeviceName cannot be empty`, `newDeviceName cannot be empty`, a new name too long.',
    ok: [okWith(), status('UNKNOWN_DEVICE_ERROR'), status('DEVICE_ALREADY_EXISTS_ERROR')],
  },
  'totp-device-remove': {
    tag: 'TOTP',
    summary: "Remove a TOTP device (the last one also forgets the user's attempts)",
    ok: okWith({ didDeviceExist: bool }),
  },
  'totp-verify': {
    tag: 'TOTP',
    summary: "Check a code against the user's verified devices (counted against the user's attempts in the tenant)",
    description: TOTP_COUNTS,
    ok: [okWith(), unknownUser, ...totpCodeErrors],
    more: MFA_OFF,
  },
  'password-migration-status': {
    tag: 'Bulk import',
    summary: 'How many login methods still wait for the password-migration hook, and how many it migrated',
    extension: 'Cutover readiness of the password-migration hook (docs/password-migration-hook.md "Readiness").',
    ok: okWith({ pending: int, migrated: int }),
  },
  'password-migration-pending': {
    tag: 'Bulk import',
    summary: 'The login methods still waiting for the password-migration hook, page by page',
    description:
      '400: `max limit allowed is 500`, `limit must a positive integer with min value 1`, `invalid pagination token`.',
    extension: 'Cutover readiness of the password-migration hook (docs/password-migration-hook.md "Readiness").',
    query: [{ name: 'limit', description: '1 … 500, default 100.' }],
    ok: okWith(
      {
        users: arr(closed(obj({ userId: str, email: str, timeJoined: int }, ['userId', 'email', 'timeJoined']))),
        nextPaginationToken: str,
      },
      ['nextPaginationToken'],
    ),
  },

  // The user-management dashboard (docs/dashboard.md)
  'dashboard-signin': {
    tag: 'Dashboard',
    summary: 'Sign a dashboard user in: a new 30-day dashboard session',
    ok: [okWith({ sessionId: str }), status('INVALID_CREDENTIALS_ERROR')],
    description:
      'The email is trimmed and lower-cased; a failure takes no less time than a verify of a hash of the app algorithm.',
    difference: 'No `USER_SUSPENDED_ERROR`: this core has no licence, every dashboard user may sign in.',
  },
  'dashboard-session-remove': {
    tag: 'Dashboard',
    summary: 'End a dashboard session (`OK` whether or not it existed)',
    ok: okWith(),
  },
  'dashboard-session-verify': {
    tag: 'Dashboard',
    summary: 'Whether a dashboard session is live',
    ok: [
      okWith({ email: described("The user's email, from CDI 3.0.", str) }, ['email']),
      status('INVALID_SESSION_ERROR'),
    ],
    difference: 'A session past its 30 days is invalid at once (the reference waits for its clean-up job).',
  },
  'dashboard-user-create': {
    tag: 'Dashboard',
    summary: "Create a dashboard user, its password hashed with the app's algorithm",
    body: obj({ email: str, password: str }, ['email', 'password']),
    ok: [
      okWith({ user: ref('DashboardUser') }),
      status('INVALID_EMAIL_ERROR'),
      status('PASSWORD_WEAK_ERROR', { message: str }),
      status('EMAIL_ALREADY_EXISTS_ERROR'),
    ],
    difference: 'No limit on the number of dashboard users (no licence); an email over 256 characters is a 400.',
  },
  'dashboard-user-update': {
    tag: 'Dashboard',
    summary: "Change a dashboard user's email and/or password (by `userId`, else `email`); its sessions end",
    body: obj({ userId: str, email: str, newEmail: str, newPassword: str }),
    ok: [
      okWith({ user: ref('DashboardUser') }),
      status('INVALID_EMAIL_ERROR'),
      status('PASSWORD_WEAK_ERROR', { message: str }),
      status('EMAIL_ALREADY_EXISTS_ERROR'),
      status('UNKNOWN_USER_ERROR'),
    ],
  },
  'dashboard-user-remove': {
    tag: 'Dashboard',
    summary: 'Remove a dashboard user (by `userId`, else `email`) and its sessions',
    ok: okWith({ didUserExist: bool }),
  },
  'dashboard-users-list': {
    tag: 'Dashboard',
    summary: 'Every dashboard user of the app, oldest first',
    ok: okWith({ users: arr(ref('DashboardUser')) }),
  },
  'dashboard-user-sessions': {
    tag: 'Dashboard',
    summary: "A dashboard user's live sessions",
    ok: okWith({
      sessions: arr(closed(obj({ userId: str, timeCreated: int, expiry: int }, ['userId', 'timeCreated', 'expiry']))),
    }),
    difference: 'No `sessionId` in the list: only a digest of each session id is stored.',
  },
  'dashboard-tenant-core-config': {
    tag: 'Dashboard',
    summary: "The tenant's configuration keys as the dashboard's tenant page shows them",
    ok: okWith({ config: arr(ref('DashboardConfigField')) }),
    difference:
      'The keys are this core\'s (docs/configuration.md "Configuration"), credentials shown as fingerprints; no storage-plugin keys.',
  },
  'search-tags': {
    tag: 'Dashboard',
    summary: 'The fields the user list can be searched by',
    ok: okWith({ tags: strings }),
  },
  telemetry: {
    tag: 'Dashboard',
    summary: 'Telemetry is off: no telemetry id',
    ok: closed(obj({ exists: { const: false } }, ['exists'])),
    description: 'No `status` key, as in the reference.',
  },
  'oauth-clients-list': {
    tag: 'OAuth2 clients',
    summary: "A page of the app's OAuth2 clients, by client id, each with its secret",
    description:
      'Read as leniently as the reference: a `pageSize` that is no integer is 250, one out of range the nearest of 1 and 1,000; a `pageToken` this core did not give starts from the first client; `clientName` filters on the exact name.',
    query: [
      { name: 'pageSize', schema: str },
      { name: 'pageToken', schema: str, description: 'The `nextPaginationToken` of the previous page.' },
      { name: 'clientName', schema: str },
    ],
    ok: okWith(
      {
        clients: arr(
          closed(
            obj(
              OAUTH_CLIENT_FIELDS,
              Object.keys(OAUTH_CLIENT_FIELDS).filter((k) => !OAUTH_CLIENT_OPTIONAL.includes(k)),
            ),
          ),
        ),
        nextPaginationToken: str,
      },
      ['nextPaginationToken'],
    ),
    more: OAUTH_OFF,
    difference: OAUTH_DIFFERENCE,
  },
  'oauth-client-get': {
    tag: 'OAuth2 clients',
    summary: 'One OAuth2 client of the app, with its secret',
    description:
      "An id the app does not have is the provider's 404 as `OAUTH_ERROR` (`Unable to locate the resource`).",
    ok: [oauthClientAnswer, OAUTH_ERROR],
    more: OAUTH_OFF,
    difference: OAUTH_DIFFERENCE,
  },
  'oauth-client-create': {
    tag: 'OAuth2 clients',
    summary: 'A new OAuth2 client (`stcl_<uuid>` and a secret unless given)',
    description:
      "The provider's refusals (an invalid URI, a short secret, a taken id, a field of the wrong type …) are 200 `OAUTH_ERROR`. 400: `enableRefreshTokenRotation` not a boolean, a client id longer than 255.",
    body: obj(OAUTH_CLIENT_INPUT),
    ok: [oauthClientAnswer, OAUTH_ERROR],
    more: OAUTH_OFF,
    difference: OAUTH_DIFFERENCE,
  },
  'oauth-client-update': {
    tag: 'OAuth2 clients',
    summary: 'Change the fields of an OAuth2 client the body sets (null clears one)',
    description:
      'The whole client is checked again; the secret changes only when sent, and is shown either way. 400: no `clientId`, a `clientSecret` that is not a string.',
    query: [{ name: 'clientId', schema: str, description: "Sent by the SDK; the body's `clientId` is the one used." }],
    body: obj(OAUTH_CLIENT_INPUT, ['clientId']),
    ok: [oauthClientAnswer, status('CLIENT_NOT_FOUND_ERROR'), OAUTH_ERROR],
    more: OAUTH_OFF,
    difference: OAUTH_DIFFERENCE,
  },
  'oauth-client-remove': {
    tag: 'OAuth2 clients',
    summary: 'Remove an OAuth2 client',
    ok: okWith({ didExist: bool }),
    more: OAUTH_OFF,
  },

  'session-create': {
    tag: 'Sessions',
    summary: 'A new session and its tokens',
    description:
      'The access token is of the version the `cdi-version` implies, as in the reference: v5 from 4.0 (the SDK), v4 from 3.0, v3 from 2.21, v2 below; a payload naming a claim of that version (`sub`, `tId` from v4, `rsub` from v5 …) answers 400 `The user payload contains protected field`.',
    body: obj(
      {
        userId: str,
        userDataInJWT: anyObject,
        userDataInDatabase: anyObject,
        enableAntiCsrf: bool,
        useDynamicSigningKey: bool,
      },
      ['userId', 'userDataInJWT', 'userDataInDatabase', 'enableAntiCsrf'],
    ),
    ok: okWith(sessionTokens, ['antiCsrfToken']),
  },
  'session-verify': {
    tag: 'Sessions',
    summary: 'The session of an access token',
    description:
      "A session's access token (v2 to v5); a JWT of `POST /recipe/jwt` (no purpose marker) only when it names its live session's users and tenant and no parent refresh token, and never promoted or re-issued (else `TRY_REFRESH_TOKEN` `Not an access token issued for this session`). A new access token keeps the presented token's version and names the stored session's user ids and tenant.",
    body: obj(
      { accessToken: str, antiCsrfToken: str, doAntiCsrfCheck: bool, enableAntiCsrf: bool, checkDatabase: bool },
      ['accessToken', 'doAntiCsrfCheck', 'enableAntiCsrf'],
    ),
    ok: [
      okWith({ session: ref('SessionInfo'), accessToken: ref('Token') }, ['accessToken']),
      status('UNAUTHORISED', { message: str }),
      status('TRY_REFRESH_TOKEN', { message: str }),
    ],
  },
  'session-refresh': {
    tag: 'Sessions',
    summary: 'New tokens for a refresh token',
    body: obj({ refreshToken: str, antiCsrfToken: str, enableAntiCsrf: bool, useDynamicSigningKey: bool }, [
      'refreshToken',
      'enableAntiCsrf',
    ]),
    ok: [
      okWith(sessionTokens, ['antiCsrfToken']),
      status('UNAUTHORISED', { message: str }),
      status('TOKEN_THEFT_DETECTED', { session: obj({ handle: str, userId: str, recipeUserId: str, tenantId: str }) }),
    ],
  },
  'session-regenerate': {
    tag: 'Sessions',
    summary: 'An access token with a new payload and the old expiry',
    description:
      "Of the presented token's version, naming the stored session's user ids and tenant; a JWT of `POST /recipe/jwt` answers `UNAUTHORISED`.",
    body: obj({ accessToken: str, userDataInJWT: anyObject }, ['accessToken']),
    ok: [
      okWith({ session: ref('SessionInfo'), accessToken: ref('Token') }, ['accessToken']),
      status('UNAUTHORISED', { message: str }),
    ],
  },
  'session-get': {
    tag: 'Sessions',
    summary: "A session's users, payload, data and expiry",
    query: [{ name: 'sessionHandle', schema: str, required: true }],
    ok: [
      okWith({
        sessionHandle: str,
        userId: str,
        recipeUserId: str,
        tenantId: str,
        expiry: int,
        timeCreated: int,
        userDataInJWT: anyObject,
        userDataInDatabase: anyJson,
        useStaticKey: bool,
      }),
      status('UNAUTHORISED', { message: str }),
    ],
  },
  'session-user': {
    tag: 'Sessions',
    summary: "Handles of a user's live sessions",
    query: [
      userId,
      { name: 'fetchAcrossAllTenants', schema: { enum: ['true', 'false'] } },
      { name: 'fetchSessionsForAllLinkedAccounts', schema: { enum: ['true', 'false'] } },
    ],
    ok: okWith({ sessionHandles: strings }),
  },
  'session-remove': {
    tag: 'Sessions',
    summary: "Revoke a user's sessions or the given handles",
    body: obj({
      userId: str,
      sessionHandles: strings,
      revokeAcrossAllTenants: bool,
      revokeSessionsForLinkedAccounts: bool,
    }),
    ok: okWith({ sessionHandlesRevoked: strings }),
  },
  'session-data-put': {
    tag: 'Sessions',
    summary: "Replace a session's data",
    body: obj({ ...sessionHandle, userDataInDatabase: anyObject }, ['sessionHandle', 'userDataInDatabase']),
    ok: [okWith(), status('UNAUTHORISED', { message: str })],
  },
  'jwt-data-put': {
    tag: 'Sessions',
    summary: "Replace the access-token payload of a session's next tokens",
    body: obj({ ...sessionHandle, userDataInJWT: anyObject }, ['sessionHandle', 'userDataInJWT']),
    ok: [okWith(), status('UNAUTHORISED', { message: str })],
  },
  'jwks-public': {
    tag: 'JWT',
    summary: "The app's public signing keys (no API key needed)",
    description:
      "A new app's first read makes its keys (a dynamic and the static key), as the reference has them from the start; a due dynamic key is made here too.",
    ok: obj({ keys: arr(ref('Jwk')) }, ['keys']),
    okHeaders: {
      'Cache-Control': {
        description: 'Cacheable until the next key is due: `max-age=<seconds>, must-revalidate`.',
        schema: { type: 'string', pattern: '^max-age=[0-9]+, must-revalidate$' },
      },
    },
  },
  'jwt-jwks': {
    tag: 'JWT',
    summary: "The app's public signing keys",
    ok: okWith({ keys: arr(ref('Jwk')) }),
  },
  'jwt-create': {
    tag: 'JWT',
    summary: "A JWT signed with the app's key",
    body: obj({ algorithm: str, jwksDomain: str, payload: anyObject, validity: int, useStaticSigningKey: bool }, [
      'algorithm',
      'jwksDomain',
      'payload',
      'validity',
    ]),
    ok: [okWith({ jwt: str }), status('UNSUPPORTED_ALGORITHM_ERROR')],
  },
};

/** Shared schemas the operations refer to (`#/components/schemas/<name>`). */
export const SCHEMAS: Readonly<Record<string, Schema>> = {
  User: closed(
    obj(
      {
        id: str,
        isPrimaryUser: bool,
        tenantIds: strings,
        timeJoined: int,
        emails: strings,
        phoneNumbers: strings,
        thirdParty: arr(closed(obj({ id: str, userId: str }, ['id', 'userId']))),
        webauthn: closed(obj({ credentialIds: strings }, ['credentialIds'])),
        loginMethods: arr(ref('LoginMethod')),
      },
      ['id', 'isPrimaryUser', 'tenantIds', 'timeJoined', 'emails', 'phoneNumbers', 'thirdParty', 'loginMethods'],
    ),
  ),
  LoginMethod: closed(
    obj(
      {
        recipeId: { enum: ['emailpassword', 'thirdparty', 'passwordless', 'webauthn'] },
        recipeUserId: str,
        tenantIds: strings,
        email: str,
        phoneNumber: str,
        thirdParty: closed(obj({ id: str, userId: str }, ['id', 'userId'])),
        webauthn: closed(obj({ credentialIds: strings }, ['credentialIds'])),
        verified: bool,
        timeJoined: int,
      },
      ['recipeId', 'recipeUserId', 'tenantIds', 'verified', 'timeJoined'],
    ),
  ),
  Token: closed(obj({ token: str, expiry: int, createdTime: int }, ['token', 'expiry', 'createdTime'])),
  SessionInfo: closed(
    obj({ handle: str, userId: str, recipeUserId: str, userDataInJWT: anyObject, tenantId: str }, [
      'handle',
      'userId',
      'recipeUserId',
      'userDataInJWT',
      'tenantId',
    ]),
  ),
  Jwk: obj({ kty: str, kid: str, n: str, e: str, alg: str, use: str }, ['kty', 'kid']),
  PasswordlessDevice: obj(
    {
      preAuthSessionId: str,
      failedCodeInputAttemptCount: int,
      email: str,
      phoneNumber: str,
      codes: arr(obj({ codeId: str, timeCreated: int, codeLifetime: int }, ['codeId', 'timeCreated', 'codeLifetime'])),
    },
    ['preAuthSessionId', 'failedCodeInputAttemptCount'],
  ),
  ProviderConfig: obj(
    {
      thirdPartyId: str,
      name: str,
      clients: arr(obj({ clientType: str, clientId: str, clientSecret: str, scope: nullable(strings) }, ['clientId'])),
      authorizationEndpoint: str,
      tokenEndpoint: str,
      userInfoEndpoint: str,
      jwksURI: str,
      oidcDiscoveryEndpoint: str,
      requireEmail: bool,
    },
    ['thirdPartyId'],
  ),
  TenantV2: closed(
    obj(
      TENANT_V2,
      Object.keys(TENANT_V2).filter((k) => !TENANT_V2_OPTIONAL.includes(k)),
    ),
  ),
  TenantLegacy: closed(
    obj(
      TENANT_LEGACY,
      Object.keys(TENANT_LEGACY).filter((k) => !TENANT_LEGACY_OPTIONAL.includes(k)),
    ),
  ),
  ImportUser: described(
    'One user to import (docs/migrating.md "The import payload").',
    obj(
      {
        externalUserId: str,
        userMetadata: anyObject,
        userRoles: arr(obj({ role: str, tenantIds: strings }, ['role'])),
        totpDevices: arr(obj({ secretKey: str, period: int, skew: int, deviceName: str }, ['secretKey'])),
        loginMethods: arr(
          obj(
            {
              recipeId: { enum: ['emailpassword', 'thirdparty', 'passwordless'] },
              tenantIds: strings,
              isVerified: bool,
              isPrimary: bool,
              timeJoinedInMSSinceEpoch: int,
              email: str,
              passwordHash: str,
              hashingAlgorithm: described(
                'BCRYPT, ARGON2, FIREBASE_SCRYPT and this project\'s legacy algorithms (docs/password-hashes.md "Password hashes").',
                str,
              ),
              plainTextPassword: str,
              passwordMigration: described(
                "An emailpassword login method without a password: its first sign-in asks the app's password-migration hook (needs `password_migration_hook_url`; docs/password-migration-hook.md). This project's own.",
                { const: 'hook' },
              ),
              thirdPartyId: str,
              thirdPartyUserId: str,
              phoneNumber: str,
            },
            ['recipeId'],
          ),
        ),
      },
      ['loginMethods'],
    ),
  ),
  DashboardUser: described(
    'A user of the user-management dashboard (never its password hash).',
    closed(obj({ userId: str, email: str, timeJoined: int }, ['userId', 'email', 'timeJoined'])),
  ),
  DashboardConfigField: described(
    'One configuration key as the dashboard shows it.',
    closed(
      obj(
        {
          key: str,
          valueType: { enum: ['string', 'boolean', 'number', 'enum'] },
          value: { type: ['string', 'number', 'boolean', 'null'] },
          description: str,
          isDifferentAcrossTenants: bool,
          possibleValues: nullable(strings),
          isNullable: bool,
          defaultValue: { type: ['string', 'number', 'boolean', 'null'] },
          isPluginProperty: bool,
          isPluginPropertyEditable: bool,
        },
        [
          'key',
          'valueType',
          'value',
          'description',
          'isDifferentAcrossTenants',
          'possibleValues',
          'isNullable',
          'defaultValue',
          'isPluginProperty',
          'isPluginPropertyEditable',
        ],
      ),
    ),
  ),
  DryRunReport: described(
    'What a dry run found: how many users would be imported, and why the others would not (index in `users`).',
    okWith({
      dryRun: { const: true },
      wouldImport: int,
      conflicts: arr(obj({ index: int, externalUserId: str, errors: strings }, ['index', 'errors'])),
    }),
  ),
};
