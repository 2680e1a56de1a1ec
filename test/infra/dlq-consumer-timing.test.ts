/**
 * The DLQ consumer's timings come from the one place the CDK reads them: its time budget from its
 * worker-manifest timeout (the function's Timeout and, × VISIBILITY_TIMEOUT_FACTOR, the dead-letter
 * queue's visibility timeout), and its re-queue delays from IMPORT_BACKPRESSURE, which no stage
 * overrides. Checked against the synthesized stage, so a second copy anywhere fails here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_BACKPRESSURE } from '#functions/domain/bulk-import/backoff.js';
import { ENV } from '#functions/shared/env.js';
import { backpressurePolicy } from '#functions/wiring/staged-apps.js';
import { workerDeadline } from '#functions/workers/shell.js';
import { WORKERS, workerNamed } from '#functions/workers.js';
import { DLQ_CONSUMER_TIMEOUT_SECONDS, VISIBILITY_TIMEOUT_FACTOR } from '../../lib/constants.js';
import { resourcesOfType, type Synthesized, synth } from './synth.js';
import { type RouteFunction, routeFunctions } from './template-helpers.js';

let synthesized: Synthesized;
let consumer: RouteFunction;

beforeAll(() => {
  synthesized = synth();
  const found = routeFunctions([synthesized.workersTemplate]).find((f) => f.routeId === 'dlq-consumer');
  if (found === undefined) throw new Error('no dlq-consumer function in the workers stack');
  consumer = found;
});

describe('the DLQ consumer against the synthesized stage', () => {
  it("budgets with the function's deployed timeout", () => {
    const timeout = consumer.properties.Timeout as number;
    const DLQ_CONSUMER_RESERVE_SECONDS = workerNamed('dlq-consumer').budget?.reserveSeconds as number;
    const dlqConsumerDeadline = (now: number, context?: { getRemainingTimeInMillis: () => number }) =>
      workerDeadline('dlq-consumer', context, now);
    expect(DLQ_CONSUMER_TIMEOUT_SECONDS).toBe(timeout);
    expect(WORKERS.find((w) => w.id === 'dlq-consumer')?.timeoutSeconds).toBe(timeout);
    // Without a Lambda context (the local runtime's fallback) the budget is the whole timeout.
    const now = 1_700_000_000_000;
    expect(dlqConsumerDeadline(now)).toBe(now + (timeout - DLQ_CONSUMER_RESERVE_SECONDS) * 1000);
    // With one, what it says is left.
    expect(dlqConsumerDeadline(now, { getRemainingTimeInMillis: () => 12_345 })).toBe(
      now + 12_345 - DLQ_CONSUMER_RESERVE_SECONDS * 1000,
    );
    expect(DLQ_CONSUMER_RESERVE_SECONDS).toBeGreaterThan(0);
    expect(DLQ_CONSUMER_RESERVE_SECONDS).toBeLessThan(timeout / 2);
  });

  it('is fed by a dead-letter queue whose visibility timeout was sized for that timeout', () => {
    const queues = resourcesOfType(synthesized.dataTemplate, 'AWS::SQS::Queue');
    const dlq = queues.find(([, q]) => q.Properties?.RedrivePolicy === undefined);
    expect(dlq?.[1].Properties?.VisibilityTimeout).toBe(DLQ_CONSUMER_TIMEOUT_SECONDS * VISIBILITY_TIMEOUT_FACTOR);
  });

  it('re-queues with the manifest backoff: the stage sets no IMPORT_BACKPRESSURE override', () => {
    const variables = (consumer.properties.Environment?.Variables ?? {}) as Record<string, unknown>;
    expect(ENV.importBackpressure in variables).toBe(false);
    expect(backpressurePolicy({})).toBe(IMPORT_BACKPRESSURE);
    // SQS delays a message by at most 900 s.
    expect(IMPORT_BACKPRESSURE.maxDelaySeconds).toBeLessThanOrEqual(900);
  });
});
