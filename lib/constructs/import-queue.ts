import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  DLQ_CONSUMER_TIMEOUT_SECONDS,
  IMPORT_DLQ_RETENTION_DAYS,
  IMPORT_MAX_RECEIVE_COUNT,
  IMPORT_WORKER_TIMEOUT_SECONDS,
  VISIBILITY_TIMEOUT_FACTOR,
} from '../constants.js';

export interface ImportQueueProps {
  /** Customer-managed key that encrypts messages in both queues (staged-user ids and app ids). */
  readonly encryptionKey: IKey;
  /** Applied to both queues. */
  readonly removalPolicy: RemovalPolicy;
  /**
   * Timeout of the function that consumes `queue`; its visibility timeout is derived from it.
   * @default IMPORT_WORKER_TIMEOUT_SECONDS (the import worker's timeout in functions/workers.ts)
   */
  readonly workerTimeout?: Duration;
  /**
   * Timeout of the function that consumes `deadLetterQueue`; its visibility timeout is derived from it.
   * @default DLQ_CONSUMER_TIMEOUT_SECONDS (the DLQ consumer's timeout in functions/workers.ts)
   */
  readonly deadLetterConsumerTimeout?: Duration;
}

/**
 * The bulk-import work queue, its dead-letter queue and the alarm on dead letters.
 *
 * The consumers (import worker on `queue`, DLQ consumer on `deadLetterQueue`) are stateless and
 * live in the workers stack; they attach to the two queues exposed here and must not run longer
 * than the timeouts the queues were sized for.
 */
export class ImportQueue extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  /** The timeout `queue` was sized for; the import worker must not exceed it. */
  readonly workerTimeout: Duration;
  /** The timeout `deadLetterQueue` was sized for; the DLQ consumer must not exceed it. */
  readonly deadLetterConsumerTimeout: Duration;
  /**
   * In alarm while any message waits in the DLQ: a staged user failed transiently
   * IMPORT_MAX_RECEIVE_COUNT times, or the DLQ consumer itself is failing. Add an action
   * (e.g. an SNS topic) where the stage has one.
   */
  readonly deadLetterAlarm: Alarm;

  constructor(scope: Construct, id: string, props: ImportQueueProps) {
    super(scope, id);
    this.workerTimeout = props.workerTimeout ?? Duration.seconds(IMPORT_WORKER_TIMEOUT_SECONDS);
    this.deadLetterConsumerTimeout = props.deadLetterConsumerTimeout ?? Duration.seconds(DLQ_CONSUMER_TIMEOUT_SECONDS);

    const common = {
      encryption: QueueEncryption.KMS,
      encryptionMasterKey: props.encryptionKey,
      // Reuse a data key for 5 minutes: KMS calls (and their cost) stay low at import rates.
      dataKeyReuse: Duration.minutes(5),
      enforceSSL: true,
      removalPolicy: props.removalPolicy,
    };

    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      ...common,
      visibilityTimeout: Duration.seconds(this.deadLetterConsumerTimeout.toSeconds() * VISIBILITY_TIMEOUT_FACTOR),
      retentionPeriod: Duration.days(IMPORT_DLQ_RETENTION_DAYS),
    });

    this.queue = new Queue(this, 'Queue', {
      ...common,
      visibilityTimeout: Duration.seconds(this.workerTimeout.toSeconds() * VISIBILITY_TIMEOUT_FACTOR),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: IMPORT_MAX_RECEIVE_COUNT },
    });

    this.deadLetterAlarm = new Alarm(this, 'DeadLetterAlarm', {
      alarmDescription: 'Bulk-import messages are waiting in the dead-letter queue',
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: 'Maximum',
      }),
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      threshold: 0,
      evaluationPeriods: 1,
      // SQS publishes queue metrics only while the queue is active; no data means no dead letters.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
}
