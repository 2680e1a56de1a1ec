/**
 * Use case of the reconciler (docs/import-pipeline.md, invariant 2): staged rows that stayed NEW or PROCESSING
 * although their message was last sent long ago — the message was lost (a local queue restarted),
 * never sent (the producer died between write and send) or its worker was killed — are sent
 * again. Re-sending is always safe: the import is idempotent.
 */
import { type ImportPublisher, importMessage } from './message.js';
import type { StagingAppMarker, StagingAppMarkers, StagingStore } from './staging-ports.js';

/**
 * Once the queues are empty, a row is re-sent when its message was sent this long ago. On AWS:
 * well beyond the lag of SQS's approximate message counts (about a minute).
 */
export const DEFAULT_RESEND_AFTER_MS = 15 * 60_000;
/**
 * While the queues still hold messages, a row's message may simply be waiting behind a backlog
 * (100,000 plain-text users take hours): it is re-sent only when it was sent this long ago, so a
 * lost message is found even on a queue that never empties, and a backlog is not sent twice.
 */
export const BUSY_RESEND_AFTER_MS = 6 * 3_600_000;

const MARK_PARALLELISM = 25;

/**
 * A staging request takes well under this (API Gateway answers within 30 s): a marker older than
 * this whose app has nothing pending belongs to no request still writing rows.
 */
export const MARKER_QUIET_MS = 10 * 60_000;

/** The import queue and its dead-letter queue, as far as the reconciler needs to see them. */
export interface ImportBacklog {
  /** True when neither queue holds a message: none waiting, in flight (being handled) or delayed. */
  isDrained(): Promise<boolean>;
}

/**
 * The cut-off of a scheduled run. When both queues are empty, every message sent before now has
 * been handled (the user imported or FAILED) or lost, so a row still NEW/PROCESSING that was sent
 * before `now - resendAfterMs` lost its message. When they are not empty, its message may still
 * be queued: only rows sent before `now - busyResendAfterMs` are re-sent. The queues are looked at
 * before the rows are read, so a row sent after that look is never taken for lost.
 */
export async function resendCutoff(
  backlog: ImportBacklog,
  now: number,
  resendAfterMs = DEFAULT_RESEND_AFTER_MS,
  busyResendAfterMs = BUSY_RESEND_AFTER_MS,
): Promise<number> {
  const drained = await backlog.isDrained();
  return now - (drained ? resendAfterMs : Math.max(resendAfterMs, busyResendAfterMs));
}

export interface ReconcileDeps {
  /** The apps that staged users (whatever table holds their rows). */
  readonly markers: StagingAppMarkers;
  /**
   * The store of an app's staged rows — its table, from the app's configuration — and that table's
   * name; undefined when the app no longer exists.
   */
  readonly appStore: (appId: string) => Promise<{ store: StagingStore; table: string } | undefined>;
  readonly publisher: ImportPublisher;
  readonly now: () => number;
  readonly warn: (message: string, fields: Record<string, unknown>) => void;
}

/**
 * Re-sends every NEW/PROCESSING row whose message was last sent before `sentBefore`, then records
 * the send time on each (send first: a crash in between only causes one more harmless send).
 * Apps come from the staging markers; each app's rows are read in the table its configuration
 * names. A marker whose app is gone, or whose app has nothing pending and that no request wrote
 * for {@link MARKER_QUIET_MS}, is removed. Returns how many rows were re-sent; throws, after every
 * app had its turn, when any app could not be reconciled.
 */
export async function reconcileStagedUsers(deps: ReconcileDeps, sentBefore: number): Promise<{ resent: number }> {
  let resent = 0;
  const failed: unknown[] = [];
  for (const marker of await deps.markers.list()) {
    try {
      resent += await reconcileApp(deps, marker, sentBefore);
    } catch (error) {
      // One app failing (its table throttled or deleted by hand) must not keep the others waiting;
      // the run still fails in the end, so it is seen (and the next run tries again).
      failed.push(error);
      deps.warn('could not reconcile the staged users of an app', {
        appId: marker.appId,
        error: error instanceof Error ? error.name : 'unknown error',
      });
    }
  }
  if (failed.length > 0) {
    throw new AggregateError(failed, `reconciling ${failed.length} app(s) failed (${resent} staged users re-sent)`);
  }
  return { resent };
}

async function reconcileApp(deps: ReconcileDeps, marker: StagingAppMarker, sentBefore: number): Promise<number> {
  const { appId } = marker;
  const app = await deps.appStore(appId);
  if (!app) {
    await deps.markers.remove(appId, marker.stagedAt);
    return 0;
  }
  const { store } = app;
  // Staged into another table than the app's (a table change that raced with a staging request):
  // those rows are not where the import worker looks. Nothing is deleted and the marker stays (so this
  // is said every run) until the operator points the app back at that table or removes the app.
  const strayTable = marker.table !== undefined && marker.table !== app.table;
  if (strayTable) {
    deps.warn('staged users may remain in a table the app no longer uses', {
      appId,
      stagedIn: marker.table,
      appTable: app.table,
    });
  }
  const pending = (await store.count(appId, 'NEW')) + (await store.count(appId, 'PROCESSING'));
  if (pending === 0) {
    if (!strayTable && marker.stagedAt < deps.now() - MARKER_QUIET_MS) {
      await deps.markers.remove(appId, marker.stagedAt);
    }
    return 0;
  }
  let resent = 0;
  await store.pendingSentBefore(appId, sentBefore, async (page) => {
    await deps.publisher.publish(page.map((r) => importMessage(r.appId, r.id)));
    const now = deps.now();
    for (let i = 0; i < page.length; i += MARK_PARALLELISM) {
      await Promise.all(page.slice(i, i + MARK_PARALLELISM).map((r) => store.markSent(r.appId, r.id, now)));
    }
    resent += page.length;
  });
  return resent;
}
