import type { CompanionWrites, UserStore, UserWritePlan, WriteResult } from './ports.js';

/**
 * A write that kept failing for a transient reason (e.g. the metadata it merges kept changing):
 * nothing was written; the caller may retry later (the import worker returns the message to the queue).
 */
export class TransientWriteError extends Error {
  constructor(message = 'the user write kept failing for transient reasons (conflict, throttling or network)') {
    super(message);
    this.name = 'TransientWriteError';
  }
}

/** One plan as one atomic write (with its companion writes). */
export function writePlan(
  store: UserStore,
  appId: string,
  plan: UserWritePlan,
  companions?: CompanionWrites,
): Promise<WriteResult> {
  const write = store.newWrite(appId);
  write.add(plan, companions);
  return store.commit(write);
}
