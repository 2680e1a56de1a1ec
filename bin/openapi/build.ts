/**
 * Builds the API description (OpenAPI 3.1) from the route manifest (functions/routes.ts), what each
 * handler declares (its `route: {…}` needs, read from functions/http/<id>/handler.ts), the request
 * schemas it parses with (./request-schemas.ts) and the table of what each route answers
 * (./operations.ts). `npm run openapi` writes it to
 * docs/openapi/openapi.yaml; test/unit/openapi-description.test.ts fails when the committed file is
 * not what this builds (docs/api-description.md).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { DEFAULT_ROUTE_PATH, ROUTES, type RouteDefinition } from '#functions/routes.js';
import { LATEST_CDI_VERSION } from '#functions/shared/cdi.js';
import { ID_LIMITS } from '#functions/shared/id-limits.js';
import { requestJsonSchema } from '#functions/shared/request-schema.js';
import { REPO_ROOT } from '../../lib/constants.js';
import { DESCRIPTION_FILE, LOCAL_PATHS } from '../local/openapi.js';
import { OPERATIONS, type OperationSpec, type QueryNote, type QueryParameter, SCHEMAS } from './operations.js';
import { REQUEST_SCHEMAS } from './request-schemas.js';
import type { Schema } from './schema.js';
import { anyObject, obj, str } from './schema.js';

/** The four prefix forms of every path (docs/api.md "API"): none, app, tenant, app and tenant. */
export const PREFIX_FORMS = [
  { name: 'bare', prefix: '', suffix: '' },
  { name: 'app', prefix: '/appid-{appId}', suffix: 'InApp' },
  { name: 'tenant', prefix: '/{tenantId}', suffix: 'InTenant' },
  { name: 'app-tenant', prefix: '/appid-{appId}/{tenantId}', suffix: 'InAppTenant' },
] as const;

/** The paths `$default` answers `Hello` on (functions/http/fallback/handler.ts). */
export const DEFAULT_PATHS = ['/', '/hello'] as const;

/** The local runtime's own pages (bin/local/openapi.ts), described as extensions. */
export const LOCAL_RUNTIME_PATHS = [LOCAL_PATHS.description, LOCAL_PATHS.page] as const;

/** What a handler declares about itself (its `route: {…}`), as far as the description needs it. */
export interface RouteNeeds {
  readonly scope: 'app' | 'tenant';
  readonly noApiKey: boolean;
  readonly skipCdiCheck: boolean;
  readonly publicTenantOnly: boolean;
}

/** Reads a handler's `route: {…}` declaration (functions/http/pipeline.ts `RouteNeeds`). */
export function routeNeedsOf(route: RouteDefinition): RouteNeeds {
  const source = readFileSync(join(REPO_ROOT, route.handler), 'utf8');
  const declaration = /route: \{([^}]*)\}/s.exec(source)?.[1];
  if (declaration === undefined || !declaration.includes(`id: '${route.id}'`)) {
    throw new Error(`${route.handler} declares no route { id: '${route.id}', … }`);
  }
  const scope = /scope: '(app|tenant)'/.exec(declaration)?.[1];
  if (scope !== 'app' && scope !== 'tenant') throw new Error(`${route.handler} declares no scope`);
  return {
    scope,
    noApiKey: /noApiKey: true/.test(declaration),
    skipCdiCheck: /skipCdiCheck: true/.test(declaration),
    publicTenantOnly: /publicTenantOnly: true/.test(declaration),
  };
}

const camel = (id: string) => id.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const pascal = (id: string) => camel(id).replace(/^./, (c) => c.toUpperCase());

/** A case-insensitive regular expression source for a word (the prefix grammar ignores case). */
const anyCase = (word: string) => [...word].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c)).join('');

/** Tenant segments the core never reads as a tenant (functions/shared/prefix.ts). */
const RESERVED_TENANT_SEGMENTS = ['recipe', 'config', 'users', 'hello'];

const text = (description: string): Record<string, unknown> => ({
  description,
  content: { 'text/plain': { schema: str } },
});

const ONLY_PUBLIC_TENANT = 'Only public tenantId can call this app specific API';

function components(): Record<string, unknown> {
  return {
    securitySchemes: {
      apiKey: {
        type: 'apiKey',
        in: 'header',
        name: 'api-key',
        description:
          'One of the app\'s API keys (`api_keys`, docs/configuration.md "Configuration"). An app without API keys needs none. A missing or wrong key: 401 `Invalid API key`.',
      },
      authorizationHeader: {
        type: 'apiKey',
        in: 'header',
        name: 'Authorization',
        description: 'The same key in `Authorization`, with or without `Bearer ` (read when `api-key` is absent).',
      },
    },
    parameters: {
      appId: {
        name: 'appId',
        in: 'path',
        required: true,
        description: 'The app (`appid-` and an empty id is the `public` app). Case-insensitive.',
        schema: { type: 'string', pattern: '^[A-Za-z0-9-]*$', maxLength: ID_LIMITS.appId },
      },
      tenantId: {
        name: 'tenantId',
        in: 'path',
        required: true,
        description: `The tenant. Case-insensitive; never \`appid-…\` nor ${RESERVED_TENANT_SEGMENTS.map((s) => `\`${s}\``).join(', ')} (those are API paths).`,
        schema: {
          type: 'string',
          pattern: `^(?!${anyCase('appid-')}|(?:${RESERVED_TENANT_SEGMENTS.map(anyCase).join('|')})$)[A-Za-z0-9-]+$`,
          maxLength: ID_LIMITS.tenantId,
        },
      },
      cdiVersion: {
        name: 'cdi-version',
        in: 'header',
        description: `The CDI version the caller speaks (\`<major>.<minor>\`); missing: the app's maximum (${LATEST_CDI_VERSION} unless \`max_cdi_version\` says less). An unsupported one: 400.`,
        schema: { type: 'string', pattern: '^[0-9]+\\.[0-9]+$' },
      },
      contentEncoding: {
        name: 'Content-Encoding',
        in: 'header',
        description: 'The body may be gzip-compressed; another encoding: 415.',
        schema: { enum: ['gzip', 'identity'] },
      },
    },
    headers: {
      RetryAfter: {
        description: 'Seconds to wait before sending the request again.',
        required: true,
        schema: { type: 'integer', minimum: 0 },
      },
    },
    responses: {
      BadRequest: text(
        "The request is refused with the reference's plain-text message, e.g. `Invalid Json Input`, `Field name 'email' is invalid in JSON input`, `AppId or tenantId not found => …`, `cdi-version 9.9 not supported`.",
      ),
      Unauthorized: text('`Invalid API key`.'),
      NotFound: text('`Not found`: the tenant of the path does not exist, or no route has this path.'),
      MethodNotAllowed: text('`Method not supported`: a route has this path with another method.'),
      PayloadTooLarge: text('The body (after decompression) is larger than the route accepts.'),
      UnsupportedMediaType: text('`Unsupported Content-Encoding: only gzip and identity are accepted`.'),
      InternalError: text('`Internal Error` (nothing more is said; the request id is in the logs).'),
      Unavailable: {
        description:
          'Backpressure: the database, the key service or the API-keys secret was busy or unavailable, or the request ran out of time (a smaller one finishes sooner; a staging request keeps what it staged: docs/bulk-import.md "A request cut short"); send the request again after `Retry-After` seconds.',
        headers: { 'Retry-After': refTo('headers', 'RetryAfter') },
        content: { 'text/plain': { schema: str } },
      },
    },
    schemas: SCHEMAS,
  };
}

const refTo = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** A route's request as the description shows it. */
interface Request {
  readonly body?: Schema;
  readonly query?: readonly QueryParameter[];
}

/**
 * What a route takes: its request body's schema and its query parameters, generated from the
 * handler's request schemas (bin/openapi/request-schemas.ts), else as the table writes them
 * (routes whose handlers read their input by hand). A route is described one way, never both.
 */
export function requestOf(route: RouteDefinition, spec: OperationSpec): Request {
  const schemas = REQUEST_SCHEMAS[route.id];
  if (schemas === undefined) {
    const notes = (spec.query ?? []).filter((q) => !('schema' in q)).map((q) => q.name);
    if (notes.length > 0) throw new Error(`${route.id}: query parameters without a schema: ${notes}`);
    return { body: spec.body, query: spec.query as readonly QueryParameter[] | undefined };
  }
  if (spec.body !== undefined || spec.query?.some((q) => 'schema' in q)) {
    throw new Error(`bin/openapi/operations.ts restates the request of ${route.id}, which its schemas describe`);
  }
  const notes = new Map((spec.query ?? []).map((q) => [q.name, q]));
  const query = schemas.query ? queryFrom(requestJsonSchema(schemas.query), notes) : undefined;
  for (const name of notes.keys()) {
    if (!query?.some((q) => q.name === name)) throw new Error(`${route.id}: no query parameter ${name} in its schema`);
  }
  return { body: schemas.body ? requestJsonSchema(schemas.body) : undefined, query };
}

/** An object schema's properties as query parameters, with the table's descriptions and extensions. */
function queryFrom(schema: Schema, notes: ReadonlyMap<string, QueryNote>): QueryParameter[] {
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries((schema.properties as Record<string, Schema> | undefined) ?? {}).map(([name, property]) => ({
    ...notes.get(name),
    name,
    schema: property,
    ...(required.has(name) ? { required: true } : {}),
  }));
}

function queryParameters(spec: Request): Record<string, unknown>[] {
  return (spec.query ?? []).map((q) => ({
    name: q.name,
    in: 'query',
    ...(q.required ? { required: true } : {}),
    ...(q.description ? { description: q.description } : {}),
    schema: q.schema,
    ...(q.extension ? { 'x-auth-core-extension': q.extension } : {}),
  }));
}

function headerParameters(spec: OperationSpec): Record<string, unknown>[] {
  return (spec.headers ?? []).map((h) => ({
    name: h.name,
    in: 'header',
    ...(h.description ? { description: h.description } : {}),
    schema: h.schema,
    ...(h.extension ? { 'x-auth-core-extension': h.extension } : {}),
  }));
}

const oneOrOneOf = (ok: Schema | readonly Schema[]): Schema =>
  Array.isArray(ok) ? (ok.length === 1 ? (ok[0] as Schema) : { oneOf: [...ok] }) : (ok as Schema);

function okResponse(route: RouteDefinition, spec: OperationSpec): Record<string, unknown> {
  const named = Array.isArray(spec.ok)
    ? (spec.ok as Schema[])
        .map((s) => ((s.properties as Record<string, Schema> | undefined)?.status?.const as string | undefined) ?? '')
        .filter((s) => s !== '' && s !== 'OK')
    : [];
  return {
    description: `${spec.summary}${named.length > 0 ? `; or ${named.map((s) => `\`${s}\``).join(', ')}` : ''}.`,
    ...(spec.okHeaders ? { headers: spec.okHeaders } : {}),
    content: { 'application/json': { schema: oneOrOneOf(spec.ok) } },
    'x-route-id': route.id,
  };
}

function forbidden(messages: readonly string[]): Record<string, unknown> {
  return text(`Refused for this app or tenant: ${messages.map((m) => `\`${m}\``).join('; ')}.`);
}

function operation(
  route: RouteDefinition,
  spec: OperationSpec,
  request: Request,
  needs: RouteNeeds,
  form: (typeof PREFIX_FORMS)[number],
): Record<string, unknown> {
  if (needs.scope === 'app' && form.name === 'app-tenant') return refusedForm(route, spec, request, form);
  const hasBody = request.body !== undefined;
  const inTenant = form.name === 'tenant' || form.name === 'app-tenant';
  const forbiddenMessages = [
    ...(inTenant && (needs.scope === 'app' || needs.publicTenantOnly) ? [ONLY_PUBLIC_TENANT] : []),
    ...(spec.forbidden ?? []),
  ];
  const pathParameters = [
    ...(form.name === 'app' || form.name === 'app-tenant' ? [refTo('parameters', 'appId')] : []),
    ...(inTenant ? [refTo('parameters', 'tenantId')] : []),
  ];
  const responses: Record<string, unknown> = {
    '200': refTo('responses', `${pascal(route.id)}Ok`),
    '400': spec.more?.['400'] ?? refTo('responses', 'BadRequest'),
    ...(needs.noApiKey ? {} : { '401': refTo('responses', 'Unauthorized') }),
    ...(forbiddenMessages.length > 0 ? { '403': forbidden(forbiddenMessages) } : {}),
    ...Object.fromEntries(Object.entries(spec.more ?? {}).filter(([code]) => code !== '400')),
    ...(hasBody
      ? { '413': refTo('responses', 'PayloadTooLarge'), '415': refTo('responses', 'UnsupportedMediaType') }
      : {}),
    '500': refTo('responses', 'InternalError'),
    '503': refTo('responses', 'Unavailable'),
  };
  const scopeNote =
    needs.scope === 'app'
      ? 'App-wide: under a tenant prefix only `public` is accepted (403 otherwise, CDI ≥ 5.0).'
      : needs.publicTenantOnly
        ? 'Acts on the whole app: only from the `public` tenant (403 otherwise, CDI ≥ 5.0).'
        : 'Acts in the tenant of the path (`public` without a tenant prefix).';
  return {
    operationId: `${camel(route.id)}${form.suffix}`,
    tags: [spec.tag],
    summary: spec.summary,
    description: [
      spec.description,
      scopeNote,
      spec.difference ? `Differs from the reference: ${spec.difference}` : undefined,
    ]
      .filter((s) => s !== undefined)
      .join('\n\n'),
    ...(needs.noApiKey ? { security: [] } : {}),
    parameters: [
      ...pathParameters,
      ...(needs.skipCdiCheck && needs.noApiKey ? [] : [refTo('parameters', 'cdiVersion')]),
      ...(hasBody ? [refTo('parameters', 'contentEncoding')] : []),
      ...headerParameters(spec),
      ...queryParameters(request),
    ],
    ...(hasBody ? { requestBody: { required: true, content: { 'application/json': { schema: request.body } } } } : {}),
    responses,
    'x-route-id': route.id,
    ...(spec.extension ? { 'x-auth-core-extension': spec.extension } : {}),
    ...(spec.difference ? { 'x-auth-core-difference': spec.difference } : {}),
  };
}

/**
 * An app-specific API under `/appid-{appId}/{tenantId}`: no gateway route (functions/routes.ts
 * gatewayPaths), the fallback answers with the route's checks and never runs the route
 * (docs/reference-behaviour.md "Path prefixes").
 */
function refusedForm(
  route: RouteDefinition,
  spec: OperationSpec,
  request: Request,
  form: (typeof PREFIX_FORMS)[number],
): Record<string, unknown> {
  const hasBody = request.body !== undefined;
  return {
    operationId: `${camel(route.id)}${form.suffix}`,
    tags: [spec.tag],
    summary: spec.summary,
    description: [
      spec.description,
      'App-wide, and this form names a tenant: the core refuses it before the API runs — 403 for a tenant other than `public` (CDI ≥ 5.0), 404 `Not found` for `public` (call `/appid-{appId}` instead) or below CDI 5.0.',
    ].join('\n\n'),
    parameters: [
      refTo('parameters', 'appId'),
      refTo('parameters', 'tenantId'),
      refTo('parameters', 'cdiVersion'),
      ...(hasBody ? [refTo('parameters', 'contentEncoding')] : []),
      ...headerParameters(spec),
      ...queryParameters(request),
    ],
    ...(hasBody ? { requestBody: { required: true, content: { 'application/json': { schema: request.body } } } } : {}),
    responses: {
      '400': refTo('responses', 'BadRequest'),
      '401': refTo('responses', 'Unauthorized'),
      '403': forbidden([ONLY_PUBLIC_TENANT]),
      '404': refTo('responses', 'NotFound'),
      ...(hasBody
        ? { '413': refTo('responses', 'PayloadTooLarge'), '415': refTo('responses', 'UnsupportedMediaType') }
        : {}),
      '500': refTo('responses', 'InternalError'),
      '503': refTo('responses', 'Unavailable'),
    },
    'x-route-id': route.id,
    'x-auth-core-difference':
      'The reference runs the API for `/appid-<app>/public/…` (and for any tenant below CDI 5.0); this core answers 404 `Not found` there.',
  };
}

const PATH_PARAMS_OF: Record<(typeof PREFIX_FORMS)[number]['name'], string[]> = {
  bare: [],
  app: ['appId'],
  tenant: ['tenantId'],
  'app-tenant': ['appId', 'tenantId'],
};

function defaultOperation(path: string, form: (typeof PREFIX_FORMS)[number]): Record<string, unknown> {
  return {
    operationId: `${path === '/' ? 'root' : 'hello'}${form.suffix}`,
    tags: ['Core'],
    summary: path === '/' ? 'Whether the core is up' : 'Whether the core is up (`/hello`)',
    description:
      'Answers `Hello` with no API key, under any prefix; an unknown app is 400 `AppId or tenantId not found => …` and an unknown tenant 404 `Not found`. Any method is answered alike.',
    security: [],
    parameters: PATH_PARAMS_OF[form.name].map((p) => refTo('parameters', p)),
    responses: {
      '200': { description: '`Hello`.', content: { 'text/plain': { schema: { const: 'Hello\n' } } } },
      '400': refTo('responses', 'BadRequest'),
      '404': refTo('responses', 'NotFound'),
      '500': refTo('responses', 'InternalError'),
      '503': refTo('responses', 'Unavailable'),
    },
    'x-route-id': 'fallback',
  };
}

function localRuntimePaths(): Record<string, unknown> {
  const common = {
    tags: ['Local runtime'],
    security: [],
    'x-auth-core-extension': 'Served by the local runtime (`npm start`) only, not by the deployed stack.',
  };
  return {
    [LOCAL_PATHS.description]: {
      get: {
        ...common,
        operationId: 'openapiDescription',
        summary: 'This description, as JSON',
        responses: {
          '200': {
            description: 'docs/openapi/openapi.yaml as JSON.',
            headers: { 'Cache-Control': { description: '`no-cache`.', schema: { const: 'no-cache' } } },
            content: {
              'application/json': {
                schema: obj({ openapi: { const: '3.1.1' }, paths: anyObject }, ['openapi', 'paths']),
              },
            },
          },
          '405': refTo('responses', 'MethodNotAllowed'),
        },
      },
    },
    [LOCAL_PATHS.page]: {
      get: {
        ...common,
        operationId: 'openapiPage',
        summary: 'This description as a reference page (Swagger UI)',
        responses: {
          '200': {
            description:
              'The page; its scripts and style sheet are served under `/openapi-ui/`, nothing from elsewhere.',
            headers: {
              'Content-Security-Policy': {
                description: "Only the core's own scripts; no framing.",
                required: true,
                schema: str,
              },
              'Cache-Control': { description: '`no-cache`.', schema: { const: 'no-cache' } },
            },
            content: { 'text/html': { schema: str } },
          },
          '405': refTo('responses', 'MethodNotAllowed'),
        },
      },
    },
  };
}

const TAGS = [
  ['Core', 'Whether the core is up, and the CDI versions it speaks.'],
  ['Apps and tenants', 'Apps, their tenants and third-party providers.'],
  ['Users', 'Users across recipes, user id mappings.'],
  ['Email and password', 'Sign-in, sign-up, password reset and account updates.'],
  ['Email verification', 'Verification tokens and verified emails.'],
  ['Third party', 'Sign-in-up with a third-party account.'],
  ['Account linking', 'Primary users and linked accounts.'],
  ['Passwordless', 'Codes and magic links by email or phone.'],
  ['Passkeys', 'WebAuthn: options, sign-up and sign-in with a passkey, the passkeys of a user, account recovery.'],
  ['Bulk import', 'Migrating users: staging for the import worker, and one user at a time.'],
  ['Roles', 'Roles, permissions and their assignments.'],
  ['User metadata', 'Free-form JSON per user id.'],
  ['TOTP', 'TOTP devices and codes.'],
  ['OAuth2 clients', "The OAuth2 provider recipe's client management (its flows are not served)."],
  ['Sessions', 'Sessions and their tokens.'],
  ['JWT', 'Signing keys and JWTs.'],
  ['Dashboard', "The user-management dashboard's own users and sessions, and what its pages ask the core."],
  ['Local runtime', "Pages of `npm start` only (this project's own)."],
] as const;

/** The description as an object, in a stable order (the manifest's). */
export function buildDescription(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const okResponses: Record<string, unknown> = {};
  for (const route of ROUTES) {
    if (route.path === DEFAULT_ROUTE_PATH) continue;
    const spec = OPERATIONS[route.id];
    if (!spec) throw new Error(`bin/openapi/operations.ts describes no route ${route.id}`);
    const needs = routeNeedsOf(route);
    const request = requestOf(route, spec);
    okResponses[`${pascal(route.id)}Ok`] = okResponse(route, spec);
    for (const form of PREFIX_FORMS) {
      const template = `${form.prefix}${route.path}`;
      paths[template] ??= {};
      (paths[template] as Record<string, unknown>)[route.method.toLowerCase()] = operation(
        route,
        spec,
        request,
        needs,
        form,
      );
    }
  }
  for (const path of DEFAULT_PATHS) {
    for (const form of PREFIX_FORMS) {
      const template = `${form.prefix}${path === '/' ? '' : path}` || '/';
      paths[template] = { get: defaultOperation(path, form) };
    }
  }
  Object.assign(paths, localRuntimePaths());
  const described = new Set(Object.keys(OPERATIONS));
  for (const route of ROUTES) described.delete(route.id);
  if (described.size > 0)
    throw new Error(`bin/openapi/operations.ts describes routes not in the manifest: ${[...described]}`);
  const base = components();
  return {
    openapi: '3.1.1',
    info: {
      title: 'Auth Core API',
      version: LATEST_CDI_VERSION,
      summary: "A serverless, multi-app authentication core that speaks the SuperTokens core's API (CDI 5.4).",
      description: [
        'Every route of the core (functions/routes.ts) under each prefix form it accepts: none, `/appid-<appId>`, `/<tenantId>` and `/appid-<appId>/<tenantId>`. Generated by `npm run openapi` (docs/api-description.md); do not edit by hand.',
        "Errors are plain text (`text/plain`) with the reference core's messages; JSON error bodies only where the reference sends them (bulk import). `x-auth-core-extension` marks this project's own parameters, headers and operations; `x-auth-core-difference` where an answer deliberately differs from the reference's; `x-route-id` names the route in the manifest.",
      ].join('\n\n'),
      license: { name: 'UNLICENSED', identifier: 'UNLICENSED' },
    },
    servers: [{ url: '/', description: 'The core that serves this description (`npm start`: http://localhost:3567)' }],
    security: [{ apiKey: [] }, { authorizationHeader: [] }],
    tags: TAGS.map(([name, description]) => ({ name, description })),
    paths,
    components: { ...base, responses: { ...(base.responses as object), ...okResponses } },
  };
}

/** The description as the YAML text committed in docs/openapi/openapi.yaml. */
export function descriptionYaml(): string {
  return `# Generated by \`npm run openapi\` (bin/openapi/build.ts) from functions/routes.ts and bin/openapi/operations.ts: do not edit.\n${stringify(buildDescription(), { lineWidth: 0, aliasDuplicateObjects: false })}`;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  writeFileSync(DESCRIPTION_FILE, descriptionYaml());
}
