import { DEFAULT_RESEND_AFTER_MS, reconcileStagedUsers } from '#functions/domain/bulk-import/reconcile.js';
import { logger } from '#functions/shared/logger.js';
import { importPublisher, stagingStore } from '#functions/storage/staging-deps.js';

/**
 * Scheduled reconciler (EventBridge on AWS, a timer locally): re-sends staged rows that stayed
 * NEW/PROCESSING past the threshold. `detail.sentBefore` (epoch ms) overrides the cut-off; the
 * local runtime uses it at start-up, when every message of the previous run is gone.
 */
export const handler = async (event?: { detail?: { sentBefore?: unknown } }): Promise<{ resent: number }> => {
  const requested = event?.detail?.sentBefore;
  const sentBefore = typeof requested === 'number' ? requested : Date.now() - DEFAULT_RESEND_AFTER_MS;
  const result = await reconcileStagedUsers(
    { store: stagingStore, publisher: importPublisher, now: Date.now },
    sentBefore,
  );
  if (result.resent > 0) logger.info('reconciler re-sent staged users', { resent: result.resent });
  return result;
};
