/**
 * Use case `POST /bulk-import/users` after validation: write the staged rows group by group, each
 * group's import messages sent as soon as it has committed. Rows are written BEFORE their messages:
 * a crash or a queue outage in between leaves NEW rows whose messages a repeat of the request (or
 * the reconciler) sends, never messages without rows. Every staging request is staged under a key
 * (idempotency.ts: its Idempotency-Key, else its body's digest), so a request cut short — its time
 * ran out, the table or the queue kept refusing — keeps what it wrote and its repeat writes the rest.
 */
import {
  BackpressureError,
  BudgetExhaustedError,
  DependencyUnavailableError,
  KeyServiceUnavailableError,
  ServiceUnavailableError,
} from '#functions/shared/errors.js';
import { METRIC } from '#functions/shared/metric-names.js';
import type { MetricsPort } from '#functions/shared/metrics.js';
import type { ImportUser } from '../import/types.js';
import { type ImportPublisher, importMessage } from './message.js';
import { GroupPace } from './pace.js';
import type { StagingPace, StagingStore } from './staging-ports.js';

export interface StagingDeps {
  readonly store: StagingStore;
  readonly publisher: ImportPublisher;
  readonly now: () => number;
  readonly warn: (message: string, fields: Record<string, unknown>) => void;
  /** Users staged, and requests answered 503 (functions/shared/metric-names.ts). */
  readonly metrics?: MetricsPort;
}

const MAX_ID_ROUNDS = 5;

/** How one staging writes its rows: a round's insert, and fresh ids for a user whose id was taken. */
export interface StagingRounds {
  insert(
    users: readonly ImportUser[],
    round: number,
    pace: StagingPace,
  ): Promise<{ collidedIds: string[]; complete: boolean }>;
  /** The user (at `index` in the request) with fresh ids for `round` (1, 2 …). */
  freshIds(user: ImportUser, index: number, round: number): ImportUser;
}

/** How a request cut short is sent again: with its Idempotency-Key, or (none) the same body. */
export type RepeatWith = 'key' | 'body';

/** `Retry-After` of a staging request refused for throttling, another transient failure, and its time. */
const STAGING_RETRY_AFTER_SECONDS = { throttled: 30, other: 5, outOfTime: 2 } as const;

const plural = (n: number) => `${n.toLocaleString('en-US')} user${n === 1 ? '' : 's'}`;

/**
 * What a 503 tells the client to do: the same request again, and what that stages. `staged`: the
 * users of the request staged so far (by any attempt), undefined when not known.
 */
function sendAgain(repeat: RepeatWith, staged: number | undefined, total: number, afterSeconds: number): string {
  if (repeat === 'body' && staged === 0) return `nothing was staged; send the request again after ${afterSeconds} s`;
  const progress = staged ? `${plural(staged)} of ${total.toLocaleString('en-US')} staged; ` : '';
  return repeat === 'key'
    ? `${progress}send the request again with the same Idempotency-Key after ${afterSeconds} s (it stages only the users not staged yet)`
    : `${progress}send the same request again after ${afterSeconds} s (the same body stages only the users not staged yet)`;
}

/**
 * The 503 of a staging request that stopped before every user was staged: its time ran out (it
 * stopped at a group boundary), the table kept refusing its writes within its time, the import
 * queue did not take its messages, or its credentials could not be sealed (the key service did not
 * answer). The groups written stay; the same request sent again (docs/bulk-import.md) writes only
 * the others.
 */
function stagingUnavailable(
  error: BackpressureError,
  repeat: RepeatWith,
  staged: number | undefined,
  total: number,
): ServiceUnavailableError {
  if (error instanceof BudgetExhaustedError) {
    const after = STAGING_RETRY_AFTER_SECONDS.outOfTime;
    return new ServiceUnavailableError(
      `The request ran out of time before every user was staged: ${sendAgain(repeat, staged, total, after)}`,
      after,
    );
  }
  const throttled = error.kind === 'throttled';
  const after = throttled ? STAGING_RETRY_AFTER_SECONDS.throttled : STAGING_RETRY_AFTER_SECONDS.other;
  const why =
    error instanceof KeyServiceUnavailableError
      ? 'The credentials key service did not answer (KMS throttling or an outage, or the local key file cannot be read)'
      : error instanceof DependencyUnavailableError
        ? error.publicMessage
        : throttled
          ? 'DynamoDB is throttling writes (the table is at its capacity)'
          : 'DynamoDB did not complete the writes (a conflict or a brief outage)';
  return new ServiceUnavailableError(`${why}: ${sendAgain(repeat, staged, total, after)}`, after);
}

/** {@link stagingUnavailable}, counted (a request out of time, or refused by the table, queue or key service). */
export function refusedForNow(
  deps: Pick<StagingDeps, 'metrics' | 'warn'>,
  error: BackpressureError,
  repeat: RepeatWith,
  staged: number | undefined,
  total: number,
): ServiceUnavailableError {
  // The error's own text names the failure (an error name, a kind), never a credential.
  deps.warn('staging stopped before every user was staged', { staged, users: total, error: error.message });
  deps.metrics?.record({
    [error instanceof BudgetExhaustedError ? METRIC.stagingOutOfTime : METRIC.stagingThrottled]: 1,
  });
  return stagingUnavailable(error, repeat, staged, total);
}

/** What the 503 says when the import queue did not take a group's messages. */
const QUEUE_UNAVAILABLE = 'The import queue did not take the messages (SQS throttling or an outage)';

/**
 * Stages users in rounds — all of them, then again those whose id was taken, with fresh ids, a few
 * rounds at most — each round group by group within the request's time (pace.ts), each group's
 * import messages sent once it has committed. Returns the users as staged, in order; throws a 503
 * ({@link ServiceUnavailableError}) when the request stopped before every user was staged.
 */
export async function stageInRounds(
  deps: StagingDeps,
  appId: string,
  users: readonly ImportUser[],
  rounds: StagingRounds,
  budget: {
    /** Epoch ms of the request's deadline (undefined: no budget). */
    readonly deadline: number | undefined;
    readonly repeat: RepeatWith;
    /** The clock the pace reads (tests). @default Date.now */
    readonly now?: () => number;
  },
): Promise<ImportUser[]> {
  const staged = [...users];
  const pace = new GroupPace(budget.deadline, budget.now);
  const stagingPace: StagingPace = {
    mayStart: () => pace.mayStart(),
    send: async (ids) => {
      try {
        await deps.publisher.publish(ids.map((id) => importMessage(appId, id)));
      } catch (error) {
        if (error instanceof BackpressureError) throw error;
        throw new DependencyUnavailableError('unavailable', (error as Error).message, QUEUE_UNAVAILABLE, {
          cause: error,
        });
      }
    },
    done: (n, ms) => pace.done(n, ms),
    doneBefore: (n) => pace.doneBefore(n),
  };
  let pending = staged.map((_, index) => index);
  try {
    for (let round = 0; pending.length > 0; round++) {
      if (round >= MAX_ID_ROUNDS) throw new Error('could not find free ids for the staged users');
      if (round > 0) for (const i of pending) staged[i] = rounds.freshIds(staged[i] as ImportUser, i, round);
      const batch = pending.map((i) => staged[i] as ImportUser);
      const { collidedIds, complete } = await rounds.insert(batch, round, stagingPace);
      if (!complete) throw new BudgetExhaustedError('staging stopped at a group boundary');
      const taken = new Set(collidedIds);
      pending = pending.filter((i) => taken.has((staged[i] as ImportUser).id));
    }
  } catch (error) {
    if (!(error instanceof BackpressureError)) throw error;
    if (pace.stagedByThisAttempt > 0) deps.metrics?.record({ [METRIC.usersStaged]: pace.stagedByThisAttempt });
    throw refusedForNow(deps, error, budget.repeat, pace.staged, users.length);
  }
  if (pace.stagedByThisAttempt > 0) deps.metrics?.record({ [METRIC.usersStaged]: pace.stagedByThisAttempt });
  return staged;
}
