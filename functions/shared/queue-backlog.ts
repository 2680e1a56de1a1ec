/**
 * How many messages a set of SQS queues hold, from GetQueueAttributes: waiting (visible), in flight
 * (received, not yet deleted) and delayed. SQS reports these counts approximately, lagging sends
 * by up to about a minute; callers allow for that.
 */
import { GetQueueAttributesCommand, type QueueAttributeName, type SQSClient } from '@aws-sdk/client-sqs';

const COUNTS: QueueAttributeName[] = [
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesNotVisible',
  'ApproximateNumberOfMessagesDelayed',
];

export interface QueueBacklogOptions {
  readonly client: () => SQSClient;
  /** Resolved at each look, so the environment may be completed after import. */
  readonly queueUrls: () => readonly string[];
}

export function createQueueBacklog(options: QueueBacklogOptions) {
  return {
    /** True when no queue holds a message: none waiting, in flight or delayed. */
    async isDrained(): Promise<boolean> {
      const counts = await Promise.all(
        options.queueUrls().map(async (QueueUrl) => {
          const out = await options.client().send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: COUNTS }));
          return COUNTS.reduce((sum, name) => sum + Number(out.Attributes?.[name] ?? 0), 0);
        }),
      );
      return counts.every((count) => count === 0);
    },
  };
}
