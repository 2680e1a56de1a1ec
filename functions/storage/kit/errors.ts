/**
 * How this core classifies failures of AWS calls (DynamoDB above all; SQS and KMS throttling too).
 * One classification for every store, so a caller can tell what to do with a failure without
 * knowing the SDK's error names:
 *
 * - `conditional`: a condition failed (the data is not as the write expected) — an outcome, never
 *   retried blindly;
 * - `throttled`: capacity ran out (throttling, provisioned throughput, request limit, KMS or SQS
 *   throttling) — retried here with backoff; when retries run out the caller slows down
 *   (backpressure), never fails data;
 * - `conflict`: another transaction held an item — retried;
 * - `unavailable`: 5xx answers, timeouts, network errors — retried;
 * - `permanent`: anything else (a validation error, a bug) — thrown as is.
 *
 * A `permanent` failure may be DynamoDB refusing a value of the write (item too large, too deeply
 * nested, a number out of range, an empty map key — {@link valueRefusal}): the kit's writes throw
 * it as a {@link StoredValueRefusedError} (400) that names what was refused, never the value.
 *
 * The three transient kinds are backpressure (functions/shared/errors.ts): a failure of one of
 * them that outlasts the retries is thrown as {@link TransientStorageError}, a `BackpressureError`.
 */
import { BackpressureError, type BackpressureKind, StoredValueRefusedError } from '#functions/shared/errors.js';
import { STORABLE_NUMBER_RULE } from '#functions/shared/storable.js';

export interface AwsError {
  name?: string;
  code?: string;
  $retryable?: unknown;
  $metadata?: { httpStatusCode?: number };
  message?: string;
  CancellationReasons?: { Code?: string; Message?: string }[];
}

export type FailureKind = 'conditional' | 'throttled' | 'conflict' | 'unavailable' | 'permanent';
export type TransientKind = BackpressureKind;

const BY_NAME: Readonly<Record<string, FailureKind>> = {
  ConditionalCheckFailedException: 'conditional',
  ThrottlingException: 'throttled',
  ProvisionedThroughputExceededException: 'throttled',
  RequestLimitExceeded: 'throttled',
  // KMS (the table's and the queues' customer-managed key) and SQS throttling.
  KMSThrottlingException: 'throttled',
  KmsThrottled: 'throttled',
  RequestThrottled: 'throttled',
  OverLimit: 'throttled',
  TransactionConflictException: 'conflict',
  TransactionInProgressException: 'conflict',
  InternalServerError: 'unavailable',
  ServiceUnavailable: 'unavailable',
  TimeoutError: 'unavailable',
  KMSInternalException: 'unavailable',
  DependencyTimeoutException: 'unavailable',
};

/** Cancellation reason codes of a cancelled transaction (`None` = that action was fine). */
const BY_REASON: Readonly<Record<string, FailureKind>> = {
  ConditionalCheckFailed: 'conditional',
  ThrottlingError: 'throttled',
  ProvisionedThroughputExceeded: 'throttled',
  RequestLimitExceeded: 'throttled',
  TransactionConflict: 'conflict',
  InternalServerError: 'unavailable',
};

const NETWORK_ERROR_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN']);

export type Cancellation =
  /** Not a cancelled transaction. */
  | { readonly kind: 'none' }
  /** Cancelled for a reason worth retrying (a conflicting transaction, throttling, a 5xx). */
  | { readonly kind: TransientKind }
  /** Cancelled because these actions' conditions failed (indexes into TransactItems). */
  | { readonly kind: 'conditions'; readonly failedIndexes: readonly number[] }
  /** Cancelled for another reason (e.g. a validation error): a bug, not an outcome. */
  | { readonly kind: 'permanent' };

/** A cancelled transaction by its per-action reasons: transient reasons win over condition failures. */
export function classifyCancellation(error: unknown): Cancellation {
  const e = error as AwsError;
  if (e.name !== 'TransactionCanceledException') return { kind: 'none' };
  const reasons = e.CancellationReasons ?? [];
  for (const kind of ['throttled', 'conflict', 'unavailable'] as const) {
    if (reasons.some((r) => r.Code !== undefined && BY_REASON[r.Code] === kind)) return { kind };
  }
  const failedIndexes = reasons.flatMap((r, i) => (r.Code === 'ConditionalCheckFailed' ? [i] : []));
  return failedIndexes.length > 0 ? { kind: 'conditions', failedIndexes } : { kind: 'permanent' };
}

/** What kind of failure `error` is (see the module comment). A bug in our code is `permanent`. */
export function classifyError(error: unknown): FailureKind {
  if (error instanceof BackpressureError) return error.kind;
  const cancellation = classifyCancellation(error);
  if (cancellation.kind === 'conditions') return 'conditional';
  if (cancellation.kind !== 'none') return cancellation.kind;
  const e = (error ?? {}) as AwsError;
  const byName = e.name !== undefined ? BY_NAME[e.name] : undefined;
  if (byName) return byName;
  if (e.$retryable) return 'unavailable';
  if (e.code && NETWORK_ERROR_CODES.has(e.code)) return 'unavailable';
  const status = e.$metadata?.httpStatusCode;
  return status !== undefined && status >= 500 ? 'unavailable' : 'permanent';
}

export function isTransient(kind: FailureKind): kind is TransientKind {
  return kind === 'throttled' || kind === 'conflict' || kind === 'unavailable';
}

/** A single-item write whose condition failed (ConditionalCheckFailedException). */
export const isConditionFailure = (error: unknown): boolean => classifyError(error) === 'conditional';

/**
 * A storage call that kept failing for a transient reason after the kit's retries: nothing was
 * written by it (a transaction is atomic; a batch reports what it left undone). `kind` lets the
 * caller choose: a worker returns the message to the queue (with a delay when `throttled`).
 */
export class TransientStorageError extends BackpressureError {
  constructor(kind: TransientKind, options?: { cause?: unknown }) {
    super(kind, `${describeKind(kind)} after retries${causeName(options?.cause)}`, options);
    this.name = 'TransientStorageError';
  }
}

function describeKind(kind: TransientKind): string {
  if (kind === 'throttled') return 'DynamoDB kept throttling (capacity exceeded)';
  if (kind === 'conflict') return 'DynamoDB kept reporting conflicting transactions';
  return 'DynamoDB kept failing (unavailable)';
}

/** The SDK error's name only: its message may quote the request. */
const causeName = (cause: unknown) =>
  cause instanceof Error && cause.name !== 'Error' ? ` (last: ${cause.name})` : '';

/** Why DynamoDB (or the document client) refused a value of a write. */
export type ValueRefusal = 'size' | 'depth' | 'number' | 'emptyKey';

/** DynamoDB's ValidationException texts about the data written (not about the request's form). */
const DYNAMODB_REFUSALS: readonly [RegExp, ValueRefusal][] = [
  [/^Item size (to update )?has exceeded the maximum allowed size/, 'size'],
  [/^Nesting Levels have exceeded supported limits/, 'depth'],
  [/^Number (overflow|underflow)\./, 'number'],
  [/significant digits/, 'number'],
  [/^Empty attribute name/, 'emptyKey'],
];

/** The document client's marshalling errors (thrown before anything is sent; their text quotes the number). */
const MARSHALL_REFUSALS: readonly RegExp[] = [
  /is (greater|lesser|less) than Number\.(MAX|MIN)_SAFE_INTEGER/,
  /^Special numeric value .* is not allowed/,
];

function refusalOfMessage(message: string | undefined): ValueRefusal | undefined {
  if (message === undefined) return undefined;
  return DYNAMODB_REFUSALS.find(([pattern]) => pattern.test(message))?.[1];
}

/**
 * Why a failed write's value was refused, with the index of the refused action of a cancelled
 * transaction when DynamoDB says which; undefined for any other failure.
 */
export function valueRefusal(error: unknown): { reason: ValueRefusal; index?: number } | undefined {
  const e = (error ?? {}) as AwsError;
  if (e.name === 'ValidationException') {
    const reason = refusalOfMessage(e.message);
    return reason ? { reason } : undefined;
  }
  if (e.name === 'TransactionCanceledException') {
    const reasons = e.CancellationReasons ?? [];
    for (const [index, r] of reasons.entries()) {
      const reason = r.Code === 'ValidationError' ? refusalOfMessage(r.Message) : undefined;
      if (reason) return { reason, index };
    }
    return undefined;
  }
  if (error instanceof Error && MARSHALL_REFUSALS.some((pattern) => pattern.test(error.message))) {
    return { reason: 'number' };
  }
  return undefined;
}

/** When nothing says what was written: the subject of a refusal message. */
export const UNKNOWN_SUBJECT = "The request's data";

/** The 400 message of a refusal: what (`subject`, e.g. "The tenant's configuration") and why. */
function refusalMessage(subject: string, reason: ValueRefusal): string {
  switch (reason) {
    case 'size':
      return `${subject} is too large to store: a DynamoDB item holds at most 400 KB.`;
    case 'depth':
      return `${subject} is nested too deeply to store: DynamoDB holds at most 32 levels.`;
    case 'number':
      return `${subject} holds a number DynamoDB cannot store: numbers must be ${STORABLE_NUMBER_RULE}.`;
    case 'emptyKey':
      return `${subject} holds an empty key, which DynamoDB cannot store.`;
  }
}

/**
 * `error` as the 400 of a refused value when it is one (see {@link valueRefusal}); `subjectOf`
 * names what was written (given the refused action's index when DynamoDB tells it). Any other
 * error is returned as it is.
 */
export function asRefusal(error: unknown, subjectOf: (index?: number) => string): unknown {
  const refusal = valueRefusal(error);
  if (!refusal) return error;
  return new StoredValueRefusedError(refusalMessage(subjectOf(refusal.index), refusal.reason));
}
