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

/**
 * Stages validated users as NEW rows and queues them for import.
 *
 * Input: the app and its users in request order. Output: the users as staged (a user whose id
 * was already taken is given fresh ids, §4.1), in the same order. A failed send is logged, not
 * thrown: the rows are safely stored and the reconciler sends them.
 */
export async function stageUsers(
  deps: StagingDeps,
  appId: string,
  users: readonly ImportUser[],
): Promise<ImportUser[]> {
  const staged = [...users];
  const now = deps.now();
  let pending = staged.map((_, index) => index);
  for (let round = 0; pending.length > 0; round++) {
    if (round >= MAX_ID_ROUNDS) throw new Error('could not find free ids for the staged users');
    const { collidedIds } = await deps.store.insertNew(
      appId,
      pending.map((i) => staged[i] as ImportUser),
      now,
    );
    const taken = new Set(collidedIds);
    pending = pending.filter((i) => taken.has((staged[i] as ImportUser).id));
    for (const i of pending) staged[i] = withFreshIds(staged[i] as ImportUser, deps.newId);
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
