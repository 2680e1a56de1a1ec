/**
 * Use case of the reconciler (design §6, invariant 2): staged rows that stayed NEW or PROCESSING
 * although their message was last sent long ago — the message was lost (a local queue restarted),
 * never sent (the producer died between write and send) or its worker was killed — are sent
 * again. Re-sending is always safe: the import is idempotent.
 */
import { type ImportPublisher, importMessage } from './message.js';
import type { StagingStore } from './staging-ports.js';

/** On AWS: well beyond the queue's visibility timeout (6 × 60 s) and a normal backlog. */
export const DEFAULT_RESEND_AFTER_MS = 15 * 60_000;

const MARK_PARALLELISM = 25;

export interface ReconcileDeps {
  readonly store: StagingStore;
  readonly publisher: ImportPublisher;
  readonly now: () => number;
}

/**
 * Re-sends every NEW/PROCESSING row whose message was last sent before `sentBefore`, then records
 * the send time on each (send first: a crash in between only causes one more harmless send).
 * Returns how many rows were re-sent.
 */
export async function reconcileStagedUsers(deps: ReconcileDeps, sentBefore: number): Promise<{ resent: number }> {
  let resent = 0;
  await deps.store.pendingSentBefore(sentBefore, async (page) => {
    await deps.publisher.publish(page.map((r) => importMessage(r.appId, r.id)));
    const now = deps.now();
    for (let i = 0; i < page.length; i += MARK_PARALLELISM) {
      await Promise.all(page.slice(i, i + MARK_PARALLELISM).map((r) => deps.store.markSent(r.appId, r.id, now)));
    }
    resent += page.length;
  });
  return { resent };
}
