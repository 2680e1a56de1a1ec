import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
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
   * Timeout of the function that consumes `queue`; the visibility timeout is derived from it.
   * @default IMPORT_WORKER_TIMEOUT_SECONDS
   */
  readonly workerTimeout?: Duration;
}

/**
 * The bulk-import work queue and its dead-letter queue.
 *
 * This construct is the extension point of the import pipeline: the import worker (event source
 * with partial batch responses on `queue`), the DLQ consumer (on `deadLetterQueue`) and the alarm
 * on DLQ depth attach to the two queues exposed here.
 */
export class ImportQueue extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  /** The timeout the queue was sized for; the worker function must not exceed it. */
  readonly workerTimeout: Duration;

  constructor(scope: Construct, id: string, props: ImportQueueProps) {
    super(scope, id);
    this.workerTimeout = props.workerTimeout ?? Duration.seconds(IMPORT_WORKER_TIMEOUT_SECONDS);

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
      retentionPeriod: Duration.days(IMPORT_DLQ_RETENTION_DAYS),
    });

    this.queue = new Queue(this, 'Queue', {
      ...common,
      visibilityTimeout: Duration.seconds(this.workerTimeout.toSeconds() * VISIBILITY_TIMEOUT_FACTOR),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: IMPORT_MAX_RECEIVE_COUNT },
    });
  }
}
