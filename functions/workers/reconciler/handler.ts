import type { Context } from 'aws-lambda';
import {
  DEFAULT_RESEND_AFTER_MS,
  reconcileStagedUsers,
  resendCutoff,
} from '#functions/domain/bulk-import/reconcile.js';
import { logger } from '#functions/shared/logger.js';
import { withinBudget } from '#functions/wiring/budget.js';
import { importBacklog, reconcilerDeps } from '#functions/wiring/reconciler.js';
import { WORKERS } from '#functions/workers.js';

const TIMEOUT_MS = (WORKERS.find((w) => w.id === 'reconciler')?.timeoutSeconds ?? 300) * 1000;
/** Storage retries stop this long before the timeout, so a run that meets a busy table ends cleanly. */
const RESERVE_MS = 10_000;

const msOrUndefined = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

/**
 * Scheduled reconciler (EventBridge on AWS, a timer locally): re-sends staged rows that stayed
 * NEW/PROCESSING although their message is gone (see resendCutoff: it looks at the import queue
 * and its DLQ first). `detail.sentBefore` (epoch ms) sets the cut-off outright: the local runtime
 * uses it at start-up, when every message of the previous run is gone. `detail.resendAfterMs`
 * replaces the default age of a row sent before the queues emptied (the local runtime's timer).
 */
export const handler = async (
  event?: { detail?: { sentBefore?: unknown; resendAfterMs?: unknown } },
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<{ resent: number }> => {
  const detail = event?.detail;
  const deadline = Date.now() + (context?.getRemainingTimeInMillis?.() ?? TIMEOUT_MS) - RESERVE_MS;
  const result = await withinBudget({ deadline }, async () => {
    const sentBefore =
      msOrUndefined(detail?.sentBefore) ??
      (await resendCutoff(importBacklog, Date.now(), msOrUndefined(detail?.resendAfterMs) ?? DEFAULT_RESEND_AFTER_MS));
    return reconcileStagedUsers(reconcilerDeps(), sentBefore);
  });
  if (result.resent > 0) logger.info('reconciler re-sent staged users', { resent: result.resent });
  return result;
};
