/**
 * The request pipeline: every endpoint is a declaration (a {@link Route}) run by one factory,
 * {@link httpHandler}, through the steps of {@link STEPS} in that written order. A step reads and
 * extends the exchange, throws the core's error, or answers early; moving or inserting a check is
 * an edit of that one list. The path a request takes, from the Lambda event to the answer and the
 * log line, and why no middleware framework wraps it: docs/request-pipeline.md.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import type { EffectiveConfig } from '#functions/config/index.js';
import { PUBLIC_TENANT_ID } from '#functions/contract/tenants.js';
import type { TenantRecord } from '#functions/domain/multitenancy/tenant.js';
import { checkApiKey } from '#functions/shared/api-keys.js';
import { checkTimeLeft } from '#functions/shared/call-budget.js';
import { cdiAtLeast, resolveCdiVersion } from '#functions/shared/cdi.js';
import {
  AppOrTenantNotFoundError,
  BadRequestError,
  BudgetExhaustedError,
  ForbiddenError,
  NotFoundError,
} from '#functions/shared/errors.js';
import { logger } from '#functions/shared/logger.js';
import { type ResolvedPrefix, resolvePrefix } from '#functions/shared/prefix.js';
import { parseRequest, type RequestSchemas } from '#functions/shared/request-schema.js';
import { type RequestBudget, requestBudget, withinBudget } from '#functions/wiring/budget.js';
import { loadRequestTenants, type RequestTenants } from '#functions/wiring/request.js';
import { decodeBody as decodeTransport, LAMBDA_PAYLOAD_BYTES, MAX_STAGING_BODY_BYTES } from './body.js';
import { type CoreResponse, errorToHttp, toHttp } from './responses.js';

export { type CoreResponse, ok } from './responses.js';

/** A request after prefix resolution, API-key and CDI checks: what a route's `input` and `run` receive. */
export interface CoreRequest {
  readonly routeId: string;
  readonly method: string;
  readonly appId: string;
  readonly tenantId: string;
  readonly cdiVersion: string;
  /** Parsed JSON body (always a plain object for methods with a body), else undefined. */
  readonly body: Readonly<Record<string, unknown>> | undefined;
  /** The route's `digestBody` of the body's bytes after transport decoding (base64, gzip). */
  readonly bodyDigest: string | undefined;
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

/** An early answer from a route's `input` (e.g. an empty list needs no app). */
export class Answer {
  constructor(readonly response: CoreResponse) {}
}

/** What a route needs from the pipeline: who it is and which checks run, and when. */
interface RouteNeeds {
  /** The manifest's route id (functions/routes.ts). */
  readonly id: string;
  /**
   * 'app': an app-specific API — a non-public tenant in the path is refused (403 at CDI ≥ 5.0),
   * before anything else of the route. 'tenant': the path's tenant is the target.
   */
  readonly scope: 'app' | 'tenant';
  /**
   * When an unknown app or tenant is refused (400 `AppId or tenantId not found`):
   * 'first' (default): before the input is read;
   * 'after-input': after `input` — the reference validates these requests before it looks the
   *   app up;
   * 'never': the use case answers for a missing tenant itself (it gets `request.tenant`).
   */
  readonly exists?: 'first' | 'after-input' | 'never';
  /**
   * A tenant-scope route that acts on the whole app: a non-public tenant is refused (403 at
   * CDI ≥ 5.0) after the existence check. The reference orders it so for the bulk-import staging
   * and removal endpoints.
   */
  readonly publicTenantOnly?: boolean;
  /** No CDI "supported version" check (only `/apiversion`). */
  readonly skipCdiCheck?: boolean;
  /**
   * Answers without an API key: the JWKS (`/.well-known/jwks.json`), which the SDK fetches with no
   * API key and no `cdi-version` header (public keys only).
   */
  readonly noApiKey?: boolean;
  /**
   * The body may be up to MAX_STAGING_BODY_BYTES once decompressed (staging), for an app that
   * exists; any other body, and any body sent to an app that does not exist (no key to check), is
   * capped at Lambda's payload limit.
   */
  readonly largeBody?: boolean;
  /**
   * A digest of the body's bytes after transport decoding, taken while they are at hand (the
   * bytes themselves are not kept: a staging body may be 64 MiB): CoreRequest.bodyDigest.
   */
  readonly digestBody?: (bytes: Uint8Array) => string;
}

type Output<S> = S extends { _zod: { output: infer O } } ? O : undefined;
/** What the request's schemas made of the body and the query. */
interface Parsed<S extends RequestSchemas> {
  readonly body: Output<S['body']>;
  readonly query: Output<S['query']>;
}

/** What a route without an `input` hands its use case: the parsed body, else the parsed query. */
type ParsedInput<S extends RequestSchemas> = S['body'] extends RequestSchemas['body'] & object
  ? Output<S['body']>
  : Output<S['query']>;

/** A route's declaration: what it needs, how it reads its input, its one domain call. */
export interface Route<I = undefined, S extends RequestSchemas = RequestSchemas> {
  readonly route: RouteNeeds;
  /** The request's schemas, parsed before `input` runs. */
  readonly request?: S;
  /**
   * The route's input from what the schemas parsed (and the request: its CDI version, config…);
   * throws the core's 4xx for what a schema cannot say. Without it, the use case gets the parsed
   * body, else the parsed query.
   */
  readonly input?: (request: CoreRequest, parsed: Parsed<S>) => I | Answer;
  /** The one domain call. */
  readonly run: (input: I, request: CoreRequest) => Promise<CoreResponse> | CoreResponse;
}

/**
 * Methods whose body is read. A DELETE's is not: the reference's DELETE routes take query
 * parameters only, and the SDK sends them without a body.
 */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const ONLY_PUBLIC_TENANT = 'Only public tenantId can call this app specific API';

/** One request on its way through the steps. */
interface Exchange {
  readonly route: Route<unknown, RequestSchemas>;
  readonly event: APIGatewayProxyEventV2;
  readonly method: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly requestId: string;
  raw?: string;
  bodyDigest?: string;
  body?: Record<string, unknown>;
  prefix?: ResolvedPrefix;
  tenants?: RequestTenants;
  cdiVersion?: string;
  request?: CoreRequest;
  input?: unknown;
}

type Step = (x: Exchange) => Promise<CoreResponse | undefined> | CoreResponse | undefined;

const need = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw new Error(`pipeline step out of order: no ${what}`);
  return value;
};

/** The path's `/appid-<app>/<tenant>` segments → (appId, tenantId); 404 `Not found` when they do not fit. */
const resolvePathPrefix: Step = (x) => {
  x.prefix = resolvePrefix([x.event.pathParameters?.s1, x.event.pathParameters?.s2]);
  if (!x.prefix) throw new NotFoundError();
  return undefined;
};

/** The app, the tenant and their effective config (one read). */
const loadTenants: Step = async (x) => {
  const prefix = need(x.prefix, 'prefix');
  x.tenants = await loadRequestTenants(prefix.appId, prefix.tenantId);
  return undefined;
};

/**
 * 401 unless the key matches the app's keys. The reference skips the check when the app does not
 * exist (the route then answers 400). api_keys is an app-level key (no tenant may differ from its
 * app), so the tenant's effective config holds the app's keys.
 */
const checkKey: Step = (x) => {
  const tenants = need(x.tenants, 'tenants');
  if (tenants.app && !x.route.route.noApiKey) checkApiKey(tenants.config.apiKeyDigests, x.headers);
  return undefined;
};

/**
 * Undoes transport encodings (base64, `Content-Encoding: gzip`) within the route's cap: 413 above
 * it, 415 for another encoding (functions/http/body.ts). Runs after the API key check, so a
 * caller without the key never gets a byte inflated.
 */
const decodeBody: Step = async (x) => {
  if (!BODY_METHODS.has(x.method)) return undefined;
  const cap = x.route.route.largeBody && need(x.tenants, 'tenants').app ? MAX_STAGING_BODY_BYTES : LAMBDA_PAYLOAD_BYTES;
  const raw = await decodeTransport(x.event.body, x.event.isBase64Encoded, x.headers['content-encoding'], cap);
  if (raw === 'invalid') throw new BadRequestError('Invalid Json Input');
  x.bodyDigest = x.route.route.digestBody?.(raw);
  x.raw = raw.toString('utf8');
  if (x.raw.trim() === '') throw new BadRequestError('Invalid Json Input');
  return undefined;
};

/** The body as a JSON object (the reference parses it whatever its Content-Type says). */
const parseJson: Step = (x) => {
  if (x.raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(x.raw);
  } catch {
    throw new BadRequestError('Invalid Json Input');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new BadRequestError('Invalid Json Input');
  }
  x.body = parsed as Record<string, unknown>;
  return undefined;
};

/**
 * A large body takes its time to inflate and parse: what is left must still be worth starting the
 * route's work (503 with `Retry-After` otherwise, before anything is written).
 */
const stillInTime: Step = () => {
  checkTimeLeft('the route, after reading its body');
  return undefined;
};

/** The `cdi-version` header against the app's limits; builds the request the route sees. */
const checkCdiVersion: Step = (x) => {
  const prefix = need(x.prefix, 'prefix');
  const { app, tenant, config } = need(x.tenants, 'tenants');
  const limits = { max: config.maxCdiVersion, min: config.minCdiVersion };
  const header = x.headers['cdi-version'];
  const cdiVersion =
    x.route.route.skipCdiCheck && header === undefined ? (limits.max ?? '5.6') : resolveCdiVersion(header, limits);
  x.request = {
    routeId: x.route.route.id,
    method: x.method,
    appId: prefix.appId,
    tenantId: prefix.tenantId,
    cdiVersion,
    body: BODY_METHODS.has(x.method) ? x.body : undefined,
    bodyDigest: x.bodyDigest,
    query: x.event.queryStringParameters ?? {},
    headers: x.headers,
    app,
    tenant,
    config,
    requestId: x.requestId,
  };
  return undefined;
};

const refuseNonPublicTenant = (request: CoreRequest) => {
  if (request.tenantId !== PUBLIC_TENANT_ID && cdiAtLeast(request.cdiVersion, '5.0'))
    throw new ForbiddenError(ONLY_PUBLIC_TENANT);
};

const requireTenant = (request: CoreRequest) => {
  if (!request.app || !request.tenant) throw new AppOrTenantNotFoundError(request.appId, request.tenantId);
};

const checkAppScope: Step = (x) => {
  if (x.route.route.scope === 'app') refuseNonPublicTenant(need(x.request, 'request'));
  return undefined;
};

const existenceAt =
  (when: 'first' | 'after-input'): Step =>
  (x) => {
    if ((x.route.route.exists ?? 'first') === when) requireTenant(need(x.request, 'request'));
    return undefined;
  };

const readInput: Step = (x) => {
  const request = need(x.request, 'request');
  const schemas = x.route.request;
  const parsed = {
    body: schemas?.body ? parseRequest(schemas.body, request.body ?? {}, 'body') : undefined,
    query: schemas?.query ? parseRequest(schemas.query, request.query, 'query') : undefined,
  };
  // Without an `input`, the use case takes what the schemas parsed: the body's, else the query's.
  const input = x.route.input ? x.route.input(request, parsed) : (parsed.body ?? parsed.query);
  if (input instanceof Answer) return input.response;
  x.input = input;
  return undefined;
};

const checkPublicTenantOnly: Step = (x) => {
  if (x.route.route.publicTenantOnly) refuseNonPublicTenant(need(x.request, 'request'));
  return undefined;
};

const run: Step = (x) => x.route.run(x.input, need(x.request, 'request'));

/** The steps, in the order they run. */
const STEPS: readonly Step[] = [
  resolvePathPrefix,
  loadTenants,
  checkKey,
  decodeBody,
  parseJson,
  stillInTime,
  checkCdiVersion,
  checkAppScope,
  existenceAt('first'),
  readInput,
  existenceAt('after-input'),
  checkPublicTenantOnly,
  run,
];

async function runSteps(x: Exchange): Promise<CoreResponse> {
  for (const step of STEPS) {
    const answer = await step(x);
    if (answer) return answer;
  }
  throw new Error(`route ${x.route.route.id} gave no answer`);
}

/**
 * How long after the end of its working time a request is answered 503 if its route has not
 * answered yet — left to the calls cut off at that end (aws-timeouts.ts) to fail in their own
 * words first ("the database is busy"); well before the function's timeout, which the reserve of
 * functions/wiring/budget.ts keeps 1.5 s after it: a process starved of CPU runs its timers late.
 */
const LATE_ANSWER_GRACE_MS = 250;

/**
 * `work`, or {@link BudgetExhaustedError} once the request's working time is over (plus a grace):
 * no route answers 500 because it was slow. Past `stopAt` nothing the work still does reaches AWS
 * (functions/shared/call-budget.ts), so answering does not leave a write in flight behind the answer
 * beyond the attempts already cut off then.
 */
function answerInTime<T>(work: Promise<T>, budget: RequestBudget): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new BudgetExhaustedError('the route had not answered at the end of its working time')),
      Math.max(0, budget.stopAt + LATE_ANSWER_GRACE_MS - Date.now()),
    );
  });
  // The work's own late failure, once the answer is given, is nobody's to handle.
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

function lowerCaseHeaders(headers: APIGatewayProxyEventV2['headers'] | undefined): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(headers ?? {})) out[k.toLowerCase()] = v;
  return out;
}

/**
 * Builds the Lambda handler of one route: the steps run inside the request's time budget, and any
 * error becomes the core's status and text (docs/request-pipeline.md). The handler carries its
 * route's needs (`handler.route`) and request schemas (`handler.request`), so a test can hold them
 * to the manifest (functions/routes.ts) and the API description's registry
 * (bin/openapi/request-schemas.ts).
 */
export function httpHandler<S extends RequestSchemas = RequestSchemas, I = ParsedInput<S>>(route: Route<I, S>) {
  const handler = async (
    event: APIGatewayProxyEventV2,
    context?: Partial<Pick<Context, 'awsRequestId' | 'getRemainingTimeInMillis'>>,
  ): Promise<APIGatewayProxyResultV2> => {
    const started = Date.now();
    const requestId = context?.awsRequestId ?? event.requestContext?.requestId ?? 'unknown';
    const method = event.requestContext?.http?.method ?? 'GET';
    let status = 500;
    try {
      const exchange: Exchange = {
        route: route as unknown as Route<unknown, RequestSchemas>,
        event,
        method,
        headers: lowerCaseHeaders(event.headers),
        requestId,
      };
      // Storage retries and growing work stop in time for the route to answer (503 when the table
      // stayed busy or the request was too large for its time), and nothing of it reaches AWS after.
      const budget = requestBudget(context?.getRemainingTimeInMillis?.());
      const result = toHttp(
        await answerInTime(
          withinBudget(budget, () => runSteps(exchange)),
          budget,
        ),
      );
      status = (result as { statusCode?: number }).statusCode ?? 200;
      return result;
    } catch (error) {
      const result = errorToHttp(error, { route: route.route.id, requestId });
      status = (result as { statusCode?: number }).statusCode ?? 500;
      return result;
    } finally {
      logger.info('request', { route: route.route.id, method, status, ms: Date.now() - started, requestId });
    }
  };
  return Object.assign(handler, { route: route.route as Readonly<RouteNeeds>, request: route.request });
}
