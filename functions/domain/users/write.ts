import type { UserStore, UserWritePlan, WriteEntity, WriteResult } from './ports.js';

/**
 * A write that kept failing for transient reasons (TransactionConflict, throttling, network):
 * nothing was written; the caller may retry later (the bulk worker returns the message to the queue).
 */
export class TransientWriteError extends Error {
  constructor(message = 'the user write kept failing for transient reasons (conflict, throttling or network)') {
    super(message);
    this.name = 'TransientWriteError';
  }
}

export const WRITE_ATTEMPTS = 6;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs one atomic user write, retrying TransactionConflict/throttling a few times with jittered
 * exponential backoff. Condition failures are returned; persistent transient failures throw
 * {@link TransientWriteError}. The store rebuilds reads a plan depends on (metadata) per attempt.
 */
export function writeWithRetry(
  deps: { store: UserStore; sleep?: (ms: number) => Promise<void> },
  appId: string,
  plan: UserWritePlan,
): Promise<{ ok: true } | { ok: false; failed: readonly WriteEntity[] }> {
  return retrying(deps, () => deps.store.write(appId, plan));
}

/** {@link writeWithRetry} for several plans written in one transaction (UserStore.writeGroup). */
export function writeGroupWithRetry(
  deps: { store: UserStore; sleep?: (ms: number) => Promise<void> },
  appId: string,
  plans: readonly UserWritePlan[],
  extra: readonly object[],
): Promise<{ ok: true } | { ok: false; failed: readonly WriteEntity[]; plans?: readonly (number | undefined)[] }> {
  return retrying(deps, () => deps.store.writeGroup(appId, plans, extra));
}

async function retrying(
  deps: { sleep?: (ms: number) => Promise<void> },
  write: () => Promise<WriteResult>,
): Promise<{ ok: true } | { ok: false; failed: readonly WriteEntity[]; plans?: readonly (number | undefined)[] }> {
  const sleep = deps.sleep ?? defaultSleep;
  for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
    if (attempt > 0) await sleep(25 * 2 ** attempt * (0.5 + Math.random()));
    const result = await write();
    if (result.ok) return result;
    if (!result.retryable) return result;
  }
  throw new TransientWriteError();
}
