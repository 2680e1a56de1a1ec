/**
 * Use case `POST /bulk-import/users` after validation: write the staged rows, then send one import
 * message per user. Rows are written BEFORE sending: a crash or a queue outage in between leaves
 * NEW rows that the reconciler sends later, never messages without rows.
 */
import {
  BackpressureError,
  JsonBadRequestError,
  KeyServiceUnavailableError,
  ServiceUnavailableError,
} from '#functions/shared/errors.js';
import { METRIC } from '#functions/shared/metric-names.js';
import type { MetricsPort } from '#functions/shared/metrics.js';
import { type ImportPublisher, importMessage } from './message.js';
import { withFreshIds } from './primary.js';
import type { StagingStore } from './staging-ports.js';
import type { ImportUser } from './types.js';
import { buildStagingSuccessBody, type StagingSuccessBody, validateStagingRequest } from './validate-request.js';
import type { ImportValidationContext } from './validate-user.js';

export interface StagingDeps {
  readonly store: StagingStore;
  readonly publisher: ImportPublisher;
  readonly now: () => number;
  readonly newId: () => string;
  readonly warn: (message: string, fields: Record<string, unknown>) => void;
  /** Users staged, and requests answered 503 (functions/shared/metric-names.ts). */
  readonly metrics?: MetricsPort;
}

const MAX_ID_ROUNDS = 5;

/** How one staging writes its rows: a round's insert, and fresh ids for a user whose id was taken. */
export interface StagingRounds {
  insert(users: readonly ImportUser[], round: number): Promise<{ collidedIds: string[] }>;
  /** The user (at `index` in the request) with fresh ids for `round` (1, 2 …). */
  freshIds(user: ImportUser, index: number, round: number): ImportUser;
  /**
   * Whether a failed staging removes the rows it wrote (plain staging: all or nothing). Keyed
   * staging keeps them: its repeat finishes exactly the groups that did not commit.
   */
  readonly allOrNothing: boolean;
}

/** `Retry-After` of a staging request refused for throttling, and for another transient failure. */
const STAGING_RETRY_AFTER_SECONDS = { throttled: 30, other: 5 } as const;

/**
 * The 503 of a staging request whose writes the table kept refusing within the request's time, or
 * whose credentials could not be sealed (the key service did not answer; nothing was written).
 * Without an Idempotency-Key every row it had written was removed again (the store's insert is all
 * or nothing), so the same request can simply be sent again. With one, the groups already written
 * stay (each with its marker) and a repeat with the same key writes only the others.
 */
function stagingUnavailable(error: BackpressureError, keyed = false): ServiceUnavailableError {
  const throttled = error.kind === 'throttled';
  const after = throttled ? STAGING_RETRY_AFTER_SECONDS.throttled : STAGING_RETRY_AFTER_SECONDS.other;
  const why =
    error instanceof KeyServiceUnavailableError
      ? 'The credentials key service did not answer (KMS throttling or an outage, or the local key file cannot be read)'
      : throttled
        ? 'DynamoDB is throttling writes (the table is at its capacity)'
        : 'DynamoDB did not complete the writes (a conflict or a brief outage)';
  const what = keyed
    ? `send the request again with the same Idempotency-Key after ${after} s (it stages only the users not staged yet)`
    : `nothing was staged; send the request again after ${after} s`;
  return new ServiceUnavailableError(`${why}: ${what}`, after);
}

/**
 * Stages users in rounds: all of them, then again those whose id was taken, with fresh ids, a few
 * rounds at most; then sends one import message per user. Returns the users as staged, in order.
 * A failed send is logged, not thrown: the rows are safely stored and the reconciler sends them.
 */
export async function stageInRounds(
  deps: StagingDeps,
  appId: string,
  users: readonly ImportUser[],
  rounds: StagingRounds,
): Promise<ImportUser[]> {
  const staged = [...users];
  let pending = staged.map((_, index) => index);
  const written: string[] = [];
  for (let round = 0; pending.length > 0; round++) {
    if (round >= MAX_ID_ROUNDS) throw new Error('could not find free ids for the staged users');
    if (round > 0) for (const i of pending) staged[i] = rounds.freshIds(staged[i] as ImportUser, i, round);
    const batch = pending.map((i) => staged[i] as ImportUser);
    let collidedIds: string[];
    try {
      ({ collidedIds } = await rounds.insert(batch, round));
    } catch (error) {
      // insertNew removed its own rows; rows of earlier rounds (after an id collision) go too.
      if (rounds.allOrNothing && written.length > 0) await deps.store.remove(appId, written).catch(() => undefined);
      if (!(error instanceof BackpressureError)) throw error;
      deps.metrics?.record({ [METRIC.stagingThrottled]: 1 });
      throw stagingUnavailable(error, !rounds.allOrNothing);
    }
    const taken = new Set(collidedIds);
    written.push(...batch.filter((u) => !taken.has(u.id)).map((u) => u.id));
    pending = pending.filter((i) => taken.has((staged[i] as ImportUser).id));
  }
  deps.metrics?.record({ [METRIC.usersStaged]: staged.length });
  try {
    await deps.publisher.publish(staged.map((u) => importMessage(appId, u.id)));
  } catch (error) {
    deps.warn('staged users could not all be queued; the reconciler will send them', {
      appId,
      users: staged.length,
      error: error instanceof Error ? error.message : String(error),
    });
  }
  return staged;
}

/**
 * Stages validated users as NEW rows and queues them for import.
 *
 * Input: the app and its users in request order. Output: the users as staged (a user whose id
 * was already taken is given fresh ids: docs/import-pipeline.md "Staged ids"), in the same order.
 */
async function stageUsers(deps: StagingDeps, appId: string, users: readonly ImportUser[]): Promise<ImportUser[]> {
  const now = deps.now();
  return stageInRounds(deps, appId, users, {
    insert: (part) => deps.store.insertNew(appId, part, now),
    freshIds: (user) => withFreshIds(user, deps.newId),
    allOrNothing: true,
  });
}

/**
 * Use case `POST /bulk-import/users` (docs/import-pipeline.md "Staging") once the body passed its pre-checks: validate
 * every user (all or nothing: a 400 listing the invalid ones by index), then stage them.
 */
export async function stageRequest(
  deps: StagingDeps,
  appId: string,
  users: readonly unknown[],
  validation: ImportValidationContext,
): Promise<StagingSuccessBody> {
  const result = validateStagingRequest({ users }, validation);
  if (!result.ok) throw new JsonBadRequestError(result.body);
  return buildStagingSuccessBody(await stageUsers(deps, appId, result.users));
}
