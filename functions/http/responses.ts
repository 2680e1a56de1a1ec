/** Responses of the core: JSON or plain text, and the one mapping of errors to status codes. */
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import {
  BackpressureError,
  BudgetExhaustedError,
  CoreHttpError,
  DependencyUnavailableError,
  JsonBadRequestError,
  ServiceUnavailableError,
} from '#functions/shared/errors.js';
import { logger } from '#functions/shared/logger.js';

export interface CoreResponse {
  readonly statusCode?: number;
  /** Serialised as JSON with `application/json`. */
  readonly json?: unknown;
  /** Sent as `text/plain`. */
  readonly text?: string;
  /** Further response headers (lower-case names). */
  readonly headers?: Readonly<Record<string, string>>;
}

export function ok(json: object): CoreResponse {
  return { statusCode: 200, json };
}

const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';

function response(
  statusCode: number,
  body: string,
  contentType: string,
  headers: Readonly<Record<string, string>> = {},
): APIGatewayProxyResultV2 {
  return { statusCode, headers: { ...headers, 'content-type': contentType }, body };
}

export function toHttp(result: CoreResponse): APIGatewayProxyResultV2 {
  const status = result.statusCode ?? 200;
  if (result.text !== undefined) return response(status, `${result.text}\n`, TEXT_TYPE, result.headers);
  return response(status, `${JSON.stringify(result.json ?? {})}\n`, JSON_TYPE, result.headers);
}

/** The 503 of a request whose time ran out before its work was done (a route that words it not itself). */
export const OUT_OF_TIME_MESSAGE = 'The request ran out of time; retry later (a smaller request finishes sooner)';

/** `Retry-After` of a request that met backpressure the route did not word itself. */
const BACKPRESSURE_RETRY_AFTER_SECONDS = 5;

/**
 * Maps any error to the core's response; only < 500 errors expose their message, and 503s
 * (backpressure: the table, the credentials key service or the API-keys secret was busy or
 * unavailable, or the request's time ran out; the request may be sent again) say why with
 * `Retry-After`.
 */
export function errorToHttp(error: unknown, context: Record<string, unknown>): APIGatewayProxyResultV2 {
  if (error instanceof JsonBadRequestError) return response(400, `${error.message}\n`, JSON_TYPE);
  if (error instanceof ServiceUnavailableError) return unavailable(error.message, error.retryAfterSeconds, context);
  if (error instanceof DependencyUnavailableError) {
    return unavailable(error.publicMessage, BACKPRESSURE_RETRY_AFTER_SECONDS, context, error);
  }
  if (error instanceof BudgetExhaustedError) {
    return unavailable(OUT_OF_TIME_MESSAGE, BACKPRESSURE_RETRY_AFTER_SECONDS, context, error);
  }
  if (error instanceof BackpressureError) {
    return unavailable('The database is busy; retry later', BACKPRESSURE_RETRY_AFTER_SECONDS, context, error);
  }
  if (error instanceof CoreHttpError && error.statusCode < 500) {
    return response(error.statusCode, `${error.message}\n`, TEXT_TYPE);
  }
  logger.error('request failed', { ...context, error });
  return response(500, 'Internal Error\n', TEXT_TYPE);
}

function unavailable(
  message: string,
  retryAfterSeconds: number,
  context: Record<string, unknown>,
  error?: BackpressureError,
): APIGatewayProxyResultV2 {
  logger.warn('request met backpressure', {
    ...context,
    retryAfterSeconds,
    ...(error ? { error: error.message } : {}),
  });
  return {
    statusCode: 503,
    headers: { 'content-type': TEXT_TYPE, 'retry-after': String(retryAfterSeconds) },
    body: `${message}\n`,
  };
}
