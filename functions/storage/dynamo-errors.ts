/**
 * How this core classifies DynamoDB failures: transient ones (conflicts, throttling, 5xx,
 * network) are retried; a cancelled transaction reports per-action reasons by index.
 */
export interface AwsError {
  name?: string;
  code?: string;
  $retryable?: unknown;
  $metadata?: { httpStatusCode?: number };
  CancellationReasons?: { Code?: string }[];
}

const TRANSIENT_ERRORS = new Set([
  'TransactionConflictException',
  'TransactionInProgressException',
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
]);

const NETWORK_ERROR_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN']);

const TRANSIENT_CANCELLATION_REASONS = new Set([
  'TransactionConflict',
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
  'InternalServerError',
]);

/**
 * A failure that may succeed when simply tried again (after the SDK's own retries): throttling,
 * conflicts, 5xx answers, network errors. A bug in our code is never transient.
 */
export function isTransientError(error: unknown): boolean {
  const e = error as AwsError;
  if (e.name && TRANSIENT_ERRORS.has(e.name)) return true;
  if (e.$retryable) return true;
  if (e.code && NETWORK_ERROR_CODES.has(e.code)) return true;
  const status = e.$metadata?.httpStatusCode;
  return status !== undefined && status >= 500;
}

export type Cancellation =
  /** Not a cancelled transaction. */
  | { readonly kind: 'none' }
  /** Cancelled for a reason worth retrying (a conflicting transaction, throttling). */
  | { readonly kind: 'transient' }
  /** Cancelled because these actions' conditions failed (indexes into TransactItems). */
  | { readonly kind: 'conditions'; readonly failedIndexes: readonly number[] }
  /** Cancelled for another reason (e.g. a validation error): a bug, not an outcome. */
  | { readonly kind: 'other' };

export function classifyCancellation(error: unknown): Cancellation {
  const e = error as AwsError;
  if (e.name !== 'TransactionCanceledException') return { kind: 'none' };
  const reasons = e.CancellationReasons ?? [];
  if (reasons.some((r) => r.Code && TRANSIENT_CANCELLATION_REASONS.has(r.Code))) return { kind: 'transient' };
  const failedIndexes = reasons.flatMap((r, i) => (r.Code === 'ConditionalCheckFailed' ? [i] : []));
  return failedIndexes.length > 0 ? { kind: 'conditions', failedIndexes } : { kind: 'other' };
}
