/**
 * `POST /bulk-import/users`: a request staged at most once per key and app, whatever the client
 * repeats and whenever the core stops. The key is the request's `Idempotency-Key`; a request
 * without one is staged under a key its body's digest makes (docs/bulk-import.md "Without a key").
 *
 * - The first request claims the key with one conditional write: the body's digest, a lease and
 *   a random generation. Every id it stages is derived from the generation and the user's place
 *   in the request, so any attempt of the same claim stages the same users under the same ids.
 * - Rows are written in groups, each with a marker in the same transaction, and each group's
 *   import messages are sent once it has committed (the staging store's `insertNewOnce`): an
 *   attempt that stopped halfway — its time ran out, the table kept refusing, the core died — left
 *   whole groups, and the next does only what is left.
 * - With an Idempotency-Key, the record is then marked DONE with the answer: a repeat with the same
 *   body replays it, another body is refused (422). Without one, the record is freed once
 *   answered: the same body sent again later is staged again, as the reference core does.
 * - A repeat while the lease runs is told to retry (409). A lease outlives the route's timeout, so
 *   a request that lost its lease has stopped; a failed attempt ends its lease at once.
 */
import { createHash, createHmac } from 'node:crypto';
import { cleanupCall, timeLeftMs } from '#functions/shared/call-budget.js';
import { BackpressureError, BadRequestError, CoreHttpError } from '#functions/shared/errors.js';
import { READ_AGAIN, type RereadPolicy, reread } from '#functions/shared/rereads.js';
import type { ImportUser } from '../import/types.js';
import { withFreshIds } from './primary.js';
import { type RepeatWith, refusedForNow, type StagingDeps, stageInRounds } from './staging.js';
import type { IdempotencyClaim, IdempotencyStore, RememberedAnswer } from './staging-ports.js';
import { buildStagingSuccessBody, validateStagingRequest } from './validate-request.js';
import type { ImportValidationContext } from './validate-user.js';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const IDEMPOTENCY_REPLAYED_HEADER = 'idempotency-replayed';

const INVALID_IDEMPOTENCY_KEY_MESSAGE = 'Idempotency-Key must be 1 to 255 printable ASCII characters';
const IDEMPOTENCY_KEY_REUSED_MESSAGE = 'Idempotency-Key is already used with a different request body';
const IDEMPOTENCY_KEY_BUSY_MESSAGE = 'A request with this Idempotency-Key is still being processed; retry later';
/** 409 text for a request without a key whose body is being staged by another request. */
const SAME_BODY_BUSY_MESSAGE = 'A request with the same body is still being staged; retry later';

/** How long an answer is remembered. */
const IDEMPOTENCY_REMEMBER_MS = 24 * 60 * 60_000;
/**
 * How long a claim is presumed alive: longer than the staging route's 29 s timeout, so the request
 * holding a lease that ran out has stopped (locally, where a timed-out function is not stopped,
 * nothing it does after its timeout reaches the table; and an overtaken attempt still stages
 * nothing twice: both write the same groups under the same markers).
 */
export const IDEMPOTENCY_LEASE_MS = 60_000;

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/** The header's key; undefined without the header; 400 for a value outside 1–255 printable ASCII characters. */
export function idempotencyKeyOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!KEY_SHAPE.test(value)) throw new BadRequestError(INVALID_IDEMPOTENCY_KEY_MESSAGE);
  return value;
}

/** "Same body": SHA-256 (hex) of the body's bytes after transport decoding. */
export const requestDigest = (body: Uint8Array): string => createHash('sha256').update(body).digest('hex');

/**
 * The key a request without an Idempotency-Key is staged under: its body's digest. The space
 * keeps it apart from every Idempotency-Key (printable characters without spaces).
 */
const bodyKey = (digest: string) => `body ${digest}`;

/**
 * Ids derived from a claim's generation: the `n`-th id of the user at `index` in `round` is the
 * same in every attempt of the claim, and as unpredictable as the generation (a UUID v4 shape).
 */
export function derivedIds(generation: string, round: number, index: number): () => string {
  let n = 0;
  return () => {
    const bytes = createHmac('sha256', generation).update(`${round}:${index}:${n++}`).digest().subarray(0, 16);
    bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
    bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
    const hex = bytes.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
}

export interface KeyedStagingDeps extends StagingDeps {
  readonly requests: IdempotencyStore;
  /** A fresh random generation (at least 128 bits). */
  readonly newGeneration: () => string;
}

export interface KeyedStagingRequest {
  /** The Idempotency-Key; undefined for a request without one (staged under its body's digest). */
  readonly key: string | undefined;
  /** {@link requestDigest} of the body. */
  readonly digest: string;
  /** The body's users after the pre-checks. */
  readonly users: readonly unknown[];
}

export type KeyedStagingOutcome =
  /** The answer: staged (200) or refused by validation (400); `replayed` when it was remembered. */
  | { readonly kind: 'answer'; readonly answer: RememberedAnswer; readonly replayed: boolean }
  /**
   * Another request holds the key (409 with {@link IDEMPOTENCY_KEY_BUSY_MESSAGE}, or without a key
   * {@link SAME_BODY_BUSY_MESSAGE}): retry after about this many seconds.
   */
  | { readonly kind: 'busy'; readonly retryAfterSeconds: number; readonly message: string };

/** A request as staged: under its key, and whether that key is its own or its body's. */
interface Keyed extends KeyedStagingRequest {
  readonly key: string;
  readonly repeat: RepeatWith;
}

/** Reads, claims and takeovers tried before answering "busy" (`message`) to a request that keeps losing races. */
const claimRereads = (message: string): RereadPolicy<KeyedStagingOutcome> => ({
  attempts: 3,
  exhausted: 'the key kept changing hands: the client is told to retry',
  orElse: () => busy(1000, message),
});

/**
 * Stages a validated request's users under a claim: all ids derived from the claim, the rows
 * written group by group with their markers within the request's time, each group's messages sent.
 */
async function stageUsersOnce(
  deps: StagingDeps,
  appId: string,
  users: readonly ImportUser[],
  request: Keyed,
  claim: IdempotencyClaim,
): Promise<ImportUser[]> {
  const now = deps.now();
  const ids = (user: ImportUser, index: number, round: number) =>
    withFreshIds(user, derivedIds(claim.generation, round, index));
  const once = { key: request.key, generation: claim.generation, expiresAt: claim.expiresAt };
  const left = timeLeftMs();
  return stageInRounds(
    deps,
    appId,
    users.map((user, index) => ids(user, index, 0)),
    {
      insert: (part, round, pace) => deps.store.insertNewOnce(appId, part, now, { ...once, round }, pace),
      freshIds: ids,
    },
    { deadline: Number.isFinite(left) ? Date.now() + left : undefined, repeat: request.repeat },
  );
}

/** What the request answers under this claim (validation's 400 is an answer too: it is remembered). */
async function answerOf(
  deps: StagingDeps,
  appId: string,
  request: Keyed,
  validation: () => Promise<ImportValidationContext>,
  claim: IdempotencyClaim,
): Promise<RememberedAnswer> {
  const result = validateStagingRequest(request.users, await validation());
  if (!result.ok) return { status: 400, body: result.body };
  const staged = await stageUsersOnce(deps, appId, result.users, request, claim);
  return { status: 200, body: buildStagingSuccessBody(staged) };
}

async function runClaim(
  deps: KeyedStagingDeps,
  appId: string,
  request: Keyed,
  validation: () => Promise<ImportValidationContext>,
  claim: IdempotencyClaim,
): Promise<KeyedStagingOutcome> {
  try {
    const answer = await answerOf(deps, appId, request, validation, claim);
    if (request.repeat === 'body') {
      // Nothing to replay without a key: the same body sent again later is a new request.
      await deps.requests.forget(appId, request.key, claim);
      return { kind: 'answer', answer, replayed: false };
    }
    if (await deps.requests.complete(appId, request.key, claim, answer, deps.now() + IDEMPOTENCY_REMEMBER_MS)) {
      return { kind: 'answer', answer, replayed: false };
    }
    // Another attempt of this claim answered first: every client of the key gets its answer.
    const remembered = await deps.requests.answer(appId, request.key);
    return { kind: 'answer', answer: remembered ?? answer, replayed: false };
  } catch (error) {
    try {
      // Also when the request's time is over: only this claim's own lease, as it left it.
      await cleanupCall(() => deps.requests.release(appId, request.key, claim));
    } catch {
      // The lease then simply runs out.
    }
    throw error;
  }
}

const busy = (ms: number, message: string): KeyedStagingOutcome => ({
  kind: 'busy',
  retryAfterSeconds: Math.max(1, Math.ceil(ms / 1000)),
  message,
});

/**
 * Use case `POST /bulk-import/users`, once the body passed its pre-checks: claim the request's key
 * — its Idempotency-Key, else its body's digest — (or take over a claim whose lease ran out) and
 * stage, replay, or refuse. The app's validation context is read only when the request is staged
 * (not for a replay).
 */
export async function stageRequestOnce(
  deps: KeyedStagingDeps,
  appId: string,
  request: KeyedStagingRequest,
  validation: () => Promise<ImportValidationContext>,
): Promise<KeyedStagingOutcome> {
  const keyed: Keyed =
    request.key === undefined
      ? { ...request, key: bodyKey(request.digest), repeat: 'body' }
      : { ...request, key: request.key, repeat: 'key' };
  const busyMessage = keyed.repeat === 'key' ? IDEMPOTENCY_KEY_BUSY_MESSAGE : SAME_BODY_BUSY_MESSAGE;
  // 0 once the key is known to be fresh (nothing of this request staged yet); unknown otherwise.
  let stagedBefore: number | undefined;
  try {
    return await claimAndStage(deps, appId, keyed, validation, busyMessage, () => {
      stagedBefore = 0;
    });
  } catch (error) {
    // The table, queue or key service refused before staging or after it (reading or claiming the
    // key, remembering the answer), or the time ran out validating: the request's own 503.
    if (error instanceof BackpressureError)
      throw refusedForNow(deps, error, keyed.repeat, stagedBefore, keyed.users.length);
    throw error;
  }
}

async function claimAndStage(
  deps: KeyedStagingDeps,
  appId: string,
  keyed: Keyed,
  validation: () => Promise<ImportValidationContext>,
  busyMessage: string,
  fresh: () => void,
): Promise<KeyedStagingOutcome> {
  return reread(claimRereads(busyMessage), async () => {
    const now = deps.now();
    const record = await deps.requests.get(appId, keyed.key, now);
    if (!record) {
      fresh();
      const claim: IdempotencyClaim = {
        digest: keyed.digest,
        generation: deps.newGeneration(),
        leaseUntil: now + IDEMPOTENCY_LEASE_MS,
        expiresAt: now + IDEMPOTENCY_REMEMBER_MS,
      };
      if (await deps.requests.claim(appId, keyed.key, claim, now))
        return runClaim(deps, appId, keyed, validation, claim);
      return READ_AGAIN;
    }
    if (record.digest !== keyed.digest) throw new CoreHttpError(422, IDEMPOTENCY_KEY_REUSED_MESSAGE);
    if (record.state === 'DONE') {
      const answer = await deps.requests.answer(appId, keyed.key, record.answer);
      if (answer) return { kind: 'answer', answer, replayed: true };
      return READ_AGAIN;
    }
    if (record.leaseUntil > now) return busy(record.leaseUntil - now, busyMessage);
    const claim: IdempotencyClaim = {
      digest: record.digest,
      generation: record.generation,
      leaseUntil: now + IDEMPOTENCY_LEASE_MS,
      expiresAt: record.expiresAt,
    };
    if (await deps.requests.takeOver(appId, keyed.key, record.leaseUntil, claim))
      return runClaim(deps, appId, keyed, validation, claim);
    return READ_AGAIN;
  });
}
