/**
 * Errors that become HTTP responses. Status codes and message texts are the reference core's
 * (docs/reference-behaviour.md "Conventions every endpoint follows"); only errors below 500 expose their message.
 */
export class CoreHttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** 400 with a plain-text message. */
export class BadRequestError extends CoreHttpError {
  constructor(message: string) {
    super(400, message);
  }
}

/**
 * 400 whose body is a JSON document (bulk-import validation). Sent as application/json.
 * `message` is the JSON text itself.
 */
export class JsonBadRequestError extends CoreHttpError {
  constructor(readonly body: unknown) {
    super(400, JSON.stringify(body));
  }
}

export class UnauthorizedError extends CoreHttpError {
  constructor(message = 'Invalid API key') {
    super(401, message);
  }
}

export class ForbiddenError extends CoreHttpError {
  constructor(message: string) {
    super(403, message);
  }
}

export class NotFoundError extends CoreHttpError {
  constructor(message = 'Not found') {
    super(404, message);
  }
}

/** 413: a body larger than the core decodes (functions/http/body.ts). */
export class PayloadTooLargeError extends CoreHttpError {
  constructor(message: string) {
    super(413, message);
  }
}

/** 415: a body in an encoding the core does not decode. */
export class UnsupportedMediaTypeError extends CoreHttpError {
  constructor(message: string) {
    super(415, message);
  }
}

export class MethodNotAllowedError extends CoreHttpError {
  constructor() {
    super(405, 'Method not supported');
  }
}

/** The reference core's text for an unknown app or tenant in the path prefix. */
function tenantNotFoundText(appId: string, tenantId: string): string {
  return `Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, ${appId}, ${tenantId})`;
}

/** 400 `AppId or tenantId not found => …` */
export class AppOrTenantNotFoundError extends BadRequestError {
  constructor(appId: string, tenantId: string) {
    super(`AppId or tenantId not found => ${tenantNotFoundText(appId, tenantId)}`);
  }
}

/** Message for a missing or wrongly-typed body field, as the reference core's generic parser words it. */
export function invalidFieldMessage(field: string): string {
  return `Field name '${field}' is invalid in JSON input`;
}

/** Why a dependency refused work for now: capacity (throttling), a competing write, or a brief outage. */
export type BackpressureKind = 'throttled' | 'conflict' | 'unavailable';

/**
 * A call that kept failing for a reason that says "not now" rather than "never" — DynamoDB, SQS
 * or KMS throttling or capacity errors, a competing transaction, a 5xx — after the retries the
 * caller was allowed. Nothing was written by the failing call. Callers slow down and try again
 * later (backpressure); such a failure is never a reason to fail a user's data. An HTTP request
 * that ends with one answers 503 with `Retry-After`.
 */
export class BackpressureError extends Error {
  constructor(
    readonly kind: BackpressureKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'BackpressureError';
  }
}

/**
 * The invocation's time ran out before its work was done: a call refused because its request (or
 * worker) is past the end of its budget (functions/shared/call-budget.ts), or work that grows with
 * its input stopped between two of its steps. Backpressure like a busy table: an HTTP route answers
 * 503 with `Retry-After` (never 500 because it was slow), a worker hands its messages back. The
 * refused call wrote nothing; what the work wrote before stays, and each use case says how a retry
 * finds it (staging continues where it stopped). `message` names the step, never data.
 */
export class BudgetExhaustedError extends BackpressureError {
  constructor(message = "the invocation's time budget ran out") {
    super('unavailable', message);
    this.name = 'BudgetExhaustedError';
  }
}

/**
 * A dependency other than the table did not answer for now: backpressure like the table's (503
 * with `Retry-After` from a route, the message back to the queue from a worker, never a FAILED
 * user). `publicMessage` is what a 503 says; `message` (logged) names the failure — an error
 * name, a file error code — never a key or a credential.
 */
export class DependencyUnavailableError extends BackpressureError {
  constructor(
    kind: 'throttled' | 'unavailable',
    message: string,
    readonly publicMessage: string,
    options?: { cause?: unknown },
  ) {
    super(kind, message, options);
    this.name = 'DependencyUnavailableError';
  }
}

/**
 * The key service that seals and opens credentials at rest did not answer for now: KMS throttling
 * or a KMS outage (its internal errors, an unavailable key, a timeout, the network) on AWS, the key
 * file unreadable locally.
 */
export class KeyServiceUnavailableError extends DependencyUnavailableError {
  constructor(kind: 'throttled' | 'unavailable', message: string, options?: { cause?: unknown }) {
    super(kind, message, 'The credentials key service is unavailable; retry later', options);
    this.name = 'KeyServiceUnavailableError';
  }
}

/**
 * The base API keys' secret (Secrets Manager, read through the Lambda extension) could not be read
 * when they were due to be read again: the core never answers with keys older than their bound
 * (docs/security.md "API key rotation"), so it answers 503 until it can read them.
 */
export class ApiKeysSecretUnavailableError extends DependencyUnavailableError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unavailable', message, 'The API keys cannot be read; retry later', options);
    this.name = 'ApiKeysSecretUnavailableError';
  }
}

/** 503 with `Retry-After`: the request did nothing that needs undoing and may be sent again later. */
export class ServiceUnavailableError extends CoreHttpError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(503, message);
  }
}

/**
 * 400: a value DynamoDB (or the document client, before sending) refuses to store — an item above
 * 400 KB, nesting beyond 32 levels, a number out of range, an empty map key. Nothing was written
 * (a single write or a transaction is all or nothing). The message names what was refused and
 * why, never the value, which may hold a credential.
 */
export class StoredValueRefusedError extends BadRequestError {}
