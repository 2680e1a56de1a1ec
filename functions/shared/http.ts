import { gunzipSync } from 'node:zlib';
import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { type EffectiveConfig, getBaseConfig, resolveEffectiveConfig } from '#functions/config/index.js';
import { loadTenantPair, type TenantRecord } from '#functions/storage/tenant-store.js';
import { checkApiKey } from './api-keys.js';
import { cdiAtLeast, resolveCdiVersion } from './cdi.js';
import {
  AppOrTenantNotFoundError,
  BadRequestError,
  CoreHttpError,
  ForbiddenError,
  JsonBadRequestError,
  NotFoundError,
} from './errors.js';
import { logger } from './logger.js';
import { PUBLIC, resolvePrefix } from './prefix.js';

/** A request after prefix resolution, API-key and CDI checks: what a route's `run` receives. */
export interface CoreRequest {
  readonly routeId: string;
  readonly method: string;
  readonly appId: string;
  readonly tenantId: string;
  readonly cdiVersion: string;
  /** Parsed JSON body (always a plain object for methods with a body), else undefined. */
  readonly body: Readonly<Record<string, unknown>> | undefined;
  readonly query: Readonly<Record<string, string | undefined>>;
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The app's public tenant (holds the app-level config), if the app exists. */
  readonly app: TenantRecord | undefined;
  /** The tenant named by the path, if it exists. */
  readonly tenant: TenantRecord | undefined;
  /** Effective config of the path's tenant (or of the base, when the app does not exist). */
  readonly config: EffectiveConfig;
  readonly requestId: string;
}

export interface CoreResponse {
  readonly statusCode?: number;
  /** Serialised as JSON with `application/json`. */
  readonly json?: unknown;
  /** Sent as `text/plain`. */
  readonly text?: string;
}

export interface RouteOptions {
  readonly routeId: string;
  /**
   * 'app': an app-specific API — a non-public tenant in the path is refused (403, CDI ≥ 5.0).
   * 'tenant': the path's tenant is the target.
   */
  readonly scope: 'app' | 'tenant';
  /**
   * 'tenant' (default): an unknown app or tenant is refused with 400 before `run`.
   * 'lazy': `run` decides when to check (the reference validates some bodies first); use
   * `requireTenant`.
   */
  readonly existence?: 'tenant' | 'lazy';
  /** Skip the CDI "supported version" check (only `/apiversion`). */
  readonly skipCdiCheck?: boolean;
  /** Skip the API-key check (only `/`, `/hello`). */
  readonly public?: boolean;
  readonly run: (request: CoreRequest) => Promise<CoreResponse>;
}

/** Throws the core's 400 unless the request's app and tenant both exist. */
export function requireTenant(request: CoreRequest): { app: TenantRecord; tenant: TenantRecord } {
  if (!request.app || !request.tenant) throw new AppOrTenantNotFoundError(request.appId, request.tenantId);
  return { app: request.app, tenant: request.tenant };
}

export function ok(json: Record<string, unknown>): CoreResponse {
  return { statusCode: 200, json };
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function lowerCaseHeaders(headers: APIGatewayProxyEventV2['headers'] | undefined): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(headers ?? {})) out[k.toLowerCase()] = v;
  return out;
}

function response(statusCode: number, body: string, contentType: string): APIGatewayProxyResultV2 {
  return { statusCode, headers: { 'content-type': contentType }, body };
}

const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';

function toHttp(result: CoreResponse): APIGatewayProxyResultV2 {
  const status = result.statusCode ?? 200;
  if (result.text !== undefined) return response(status, `${result.text}\n`, TEXT_TYPE);
  return response(status, `${JSON.stringify(result.json ?? {})}\n`, JSON_TYPE);
}

/** Maps any error to the core's response; only < 500 errors expose their message. */
export function errorToHttp(error: unknown, context: Record<string, unknown>): APIGatewayProxyResultV2 {
  if (error instanceof JsonBadRequestError) return response(400, `${error.message}\n`, JSON_TYPE);
  if (error instanceof CoreHttpError && error.statusCode < 500) {
    return response(error.statusCode, `${error.message}\n`, TEXT_TYPE);
  }
  const isJsonParserError =
    typeof error === 'object' &&
    error !== null &&
    (error as { cause?: { package?: string } }).cause?.package === '@middy/http-json-body-parser';
  if (isJsonParserError) return response(400, 'Invalid Json Input\n', TEXT_TYPE);
  logger.error('request failed', { ...context, error });
  return response(500, 'Internal Error\n', TEXT_TYPE);
}

interface Internal extends Record<string, unknown> {
  hasBody: boolean;
}

/**
 * Undoes transport encodings before the JSON parser: base64 (API Gateway) and
 * `Content-Encoding: gzip` (lets a 10,000-user request fit Lambda's 6 MB payload limit).
 */
const decodeBody: middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyResultV2, Error, Context> = {
  before: (request) => {
    const event = request.event;
    const method = event.requestContext?.http?.method ?? 'GET';
    const hasBody = BODY_METHODS.has(method);
    (request.internal as Internal).hasBody = hasBody;
    if (!hasBody) return;
    const headers = lowerCaseHeaders(event.headers);
    let raw: Buffer =
      event.body === undefined ? Buffer.alloc(0) : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
    if ((headers['content-encoding'] ?? '').toLowerCase().includes('gzip')) {
      try {
        raw = gunzipSync(raw);
      } catch {
        throw new BadRequestError('Invalid Json Input');
      }
    }
    event.body = raw.toString('utf8');
    event.isBase64Encoded = false;
    if (event.body.trim() === '') throw new BadRequestError('Invalid Json Input');
  },
};

// The reference core parses the body whatever its Content-Type says.
const jsonBody = httpJsonBodyParser({ disableContentTypeCheck: true } as Parameters<typeof httpJsonBodyParser>[0]);
const parseJsonBody: middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyResultV2, Error, Context> = {
  before: async (request) => {
    if (!(request.internal as Internal).hasBody) return;
    await jsonBody.before?.(request as never);
    const parsed = request.event.body as unknown;
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new BadRequestError('Invalid Json Input');
    }
  },
};

/**
 * Builds a Lambda handler for one core endpoint. The chain is written once, here:
 * body decoding → JSON parsing → prefix resolution → app/tenant load → API key → CDI version →
 * app-specific check → existence check → `run` → response; any error → the core's status/text.
 */
export function httpHandler(options: RouteOptions) {
  const core = async (event: APIGatewayProxyEventV2, context: Context): Promise<APIGatewayProxyResultV2> => {
    const started = Date.now();
    const requestId = context.awsRequestId ?? event.requestContext?.requestId ?? 'unknown';
    const method = event.requestContext?.http?.method ?? 'GET';
    let status = 500;
    try {
      const result = await handle(options, event, requestId, method);
      status = (result as { statusCode?: number }).statusCode ?? 200;
      return result;
    } catch (error) {
      const result = errorToHttp(error, { route: options.routeId, requestId });
      status = (result as { statusCode?: number }).statusCode ?? 500;
      return result;
    } finally {
      logger.info('request', { route: options.routeId, method, status, ms: Date.now() - started, requestId });
    }
  };
  return middy<APIGatewayProxyEventV2, APIGatewayProxyResultV2, Error, Context>({ timeoutEarlyInMillis: 0 })
    .use(decodeBody)
    .use(parseJsonBody)
    .use({
      onError: (request) => {
        request.response = errorToHttp(request.error, { route: options.routeId });
      },
    })
    .handler(core);
}

async function handle(
  options: RouteOptions,
  event: APIGatewayProxyEventV2,
  requestId: string,
  method: string,
): Promise<APIGatewayProxyResultV2> {
  const prefix = resolvePrefix([event.pathParameters?.s1, event.pathParameters?.s2]);
  if (!prefix) throw new NotFoundError();
  const headers = lowerCaseHeaders(event.headers);
  const base = await getBaseConfig();
  const { app, tenant } = await loadTenantPair(prefix.appId, prefix.tenantId);
  const config = resolveEffectiveConfig(
    base,
    app?.coreConfig,
    tenant && tenant !== app ? tenant.coreConfig : undefined,
  );

  // The reference skips the key check when the app does not exist; the handler then answers 400.
  // api_keys is an app-level key (no tenant may differ from its app), so the tenant's effective
  // config already holds the app's keys.
  if (!options.public && app) checkApiKey(config.apiKeys, headers);

  const limits = { max: config.maxCdiVersion, min: config.minCdiVersion };
  const cdiVersion =
    options.skipCdiCheck && headers['cdi-version'] === undefined
      ? (limits.max ?? '5.6')
      : resolveCdiVersion(headers['cdi-version'], limits);

  if (options.scope === 'app' && prefix.tenantId !== PUBLIC && cdiAtLeast(cdiVersion, '5.0')) {
    throw new ForbiddenError('Only public tenantId can call this app specific API');
  }
  const request: CoreRequest = {
    routeId: options.routeId,
    method,
    appId: prefix.appId,
    tenantId: prefix.tenantId,
    cdiVersion,
    body: BODY_METHODS.has(method) ? (event.body as unknown as Record<string, unknown>) : undefined,
    query: event.queryStringParameters ?? {},
    headers,
    app,
    tenant,
    config,
    requestId,
  };
  if ((options.existence ?? 'tenant') === 'tenant') requireTenant(request);
  return toHttp(await options.run(request));
}
