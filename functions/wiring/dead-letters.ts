/**
 * Wiring of the DLQ consumer: the staged rows of the apps its dead letters name, and the import
 * queue for the rows that only met backpressure. It imports no one, so it carries neither the
 * import function nor its validation.
 */
import { appRoutedStagingStore, backpressurePolicy, configCache } from './staged-apps.js';

/** The DLQ consumer: rows whose messages ran out of retries become FAILED, or go back to the queue. */
export const dlqDeps = () => ({
  store: appRoutedStagingStore(configCache()),
  now: Date.now,
  policy: backpressurePolicy(),
});
