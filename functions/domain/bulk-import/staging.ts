/**
 * Use case `POST /bulk-import/users` after validation: write the staged rows, then send one import
 * message per user. Rows are written BEFORE sending: a crash or a queue outage in between leaves
 * NEW rows that the reconciler sends later, never messages without rows.
 */
import { JsonBadRequestError } from '#functions/shared/errors.js';
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
}

const MAX_ID_ROUNDS = 5;

/** How one staging writes its rows: a round's insert, and fresh ids for a user whose id was taken. */
export interface StagingRounds {
  insert(users: readonly ImportUser[], round: number): Promise<{ collidedIds: string[] }>;
  /** The user (at `index` in the request) with fresh ids for `round` (1, 2 …). */
  freshIds(user: ImportUser, index: number, round: number): ImportUser;
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
  for (let round = 0; pending.length > 0; round++) {
    if (round >= MAX_ID_ROUNDS) throw new Error('could not find free ids for the staged users');
    if (round > 0) for (const i of pending) staged[i] = rounds.freshIds(staged[i] as ImportUser, i, round);
    const { collidedIds } = await rounds.insert(
      pending.map((i) => staged[i] as ImportUser),
      round,
    );
    const taken = new Set(collidedIds);
    pending = pending.filter((i) => taken.has((staged[i] as ImportUser).id));
  }
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
 * was already taken is given fresh ids, §4.1), in the same order.
 */
export async function stageUsers(
  deps: StagingDeps,
  appId: string,
  users: readonly ImportUser[],
): Promise<ImportUser[]> {
  const now = deps.now();
  return stageInRounds(deps, appId, users, {
    insert: (part) => deps.store.insertNew(appId, part, now),
    freshIds: (user) => withFreshIds(user, deps.newId),
  });
}

/**
 * Use case `POST /bulk-import/users` (spec §4.3) once the body passed its pre-checks: validate
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
