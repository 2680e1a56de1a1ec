import {
  DEFAULT_RESEND_AFTER_MS,
  reconcileStagedUsers,
  resendCutoff,
} from '#functions/domain/bulk-import/reconcile.js';
import { logger } from '#functions/shared/logger.js';
import { importBacklog, reconcilerDeps } from '#functions/wiring/reconciler.js';
import { workerHandler } from '../shell.js';

const msOrUndefined = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

/**
 * Scheduled reconciler (EventBridge on AWS, a timer locally): re-sends staged rows that stayed
 * NEW/PROCESSING although their message is gone (see resendCutoff: it looks at the import queue
 * and its DLQ first). `detail.sentBefore` (epoch ms) sets the cut-off outright: the local runtime
 * uses it at start-up, when every message of the previous run is gone. `detail.resendAfterMs`
 * replaces the default age of a row sent before the queues emptied (the local runtime's timer).
 */
export const handler = workerHandler(
  'reconciler',
  async (event?: { detail?: { sentBefore?: unknown; resendAfterMs?: unknown } }): Promise<{ resent: number }> => {
    const detail = event?.detail;
    const sentBefore =
      msOrUndefined(detail?.sentBefore) ??
      (await resendCutoff(importBacklog, Date.now(), msOrUndefined(detail?.resendAfterMs) ?? DEFAULT_RESEND_AFTER_MS));
    const result = await reconcileStagedUsers(reconcilerDeps(), sentBefore);
    if (result.resent > 0) logger.info('reconciler re-sent staged users', { resent: result.resent });
    return result;
  },
);
