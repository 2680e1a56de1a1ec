import { Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { AttributeType, BillingMode, Table, TableEncryption, type WarmThroughput } from 'aws-cdk-lib/aws-dynamodb';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { TABLE_SCHEMA } from '#functions/storage/table.js';
import { ALARM_PERIOD, notifyingAlarm, TABLE_OPERATIONS, THRESHOLDS } from './alarms.js';
import { ImportQueue } from './constructs/import-queue.js';

export interface DataStackProps extends StackProps {
  /**
   * Keep the key, table and queues when they leave the stack (or the stack is deleted), and turn
   * on table deletion protection. Only a throw-away development stage should set this to false.
   */
  readonly retain: boolean;
  /**
   * Warm throughput (read and/or write units per second the table serves at once), applied to the
   * table and to every GSI. Raising it pre-warms them (billed once per increase); it can never be
   * lowered. @default - none: a new on-demand table starts at 12,000 read and 4,000 write units/s
   */
  readonly warmThroughput?: WarmThroughput;
  /** Subscribed to the alarm topic by email (the address must confirm the subscription). @default none */
  readonly alarmEmail?: string;
}

/**
 * Stateful resources: the customer-managed key, THE table and the import queues. Code deploys
 * (the API stack) never touch this stack.
 */
export class DataStack extends Stack {
  readonly key: Key;
  /**
   * Seals credentials at rest (staged credentials, app secrets: envelope encryption, README
   * "Credentials at rest"). Not the table's key: every function that reads the table may decrypt
   * with that one, while this one is granted only where the manifests say (`access.credentials`).
   */
  readonly credentialsKey: Key;
  readonly table: Table;
  readonly importQueue: ImportQueue;
  /** Every alarm of the stage notifies this topic (on ALARM and on recovery). */
  readonly alarmTopic: Topic;

  constructor(scope: Construct, id: string, props: DataStackProps) {
    super(scope, id, props);
    const removalPolicy = props.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.key = new Key(this, 'DataKey', {
      description: 'Encrypts the auth core table and import queues',
      enableKeyRotation: true,
      removalPolicy,
    });

    this.credentialsKey = new Key(this, 'CredentialsKey', {
      description: 'Seals staged credentials and app secrets of the auth core (data keys for envelope encryption)',
      enableKeyRotation: true,
      removalPolicy,
    });

    const { partitionKey, sortKey, globalIndexes, ttlAttribute } = TABLE_SCHEMA;
    this.table = new Table(this, 'Table', {
      partitionKey: { name: partitionKey, type: AttributeType.STRING },
      sortKey: { name: sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.CUSTOMER_MANAGED,
      encryptionKey: this.key,
      deletionProtection: props.retain,
      removalPolicy,
      ...(props.warmThroughput ? { warmThroughput: props.warmThroughput } : {}),
    });
    for (const index of globalIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        ...(props.warmThroughput ? { warmThroughput: props.warmThroughput } : {}),
      });
    }

    this.importQueue = new ImportQueue(this, 'ImportQueue', { encryptionKey: this.key, removalPolicy });

    // The alarm topic is encrypted with the data key; CloudWatch must be able to use the key to
    // publish to it.
    this.alarmTopic = new Topic(this, 'AlarmTopic', {
      displayName: `${this.stackName} alarms`,
      masterKey: this.key,
      enforceSSL: true,
    });
    this.key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    if (props.alarmEmail) this.alarmTopic.addSubscription(new EmailSubscription(props.alarmEmail));
    this.alarms();
  }

  /** Dead letters, a stuck import queue, a throttled or failing table. */
  private alarms(): void {
    const topic = this.alarmTopic;
    const action = new SnsAction(topic);
    this.importQueue.deadLetterAlarm.addAlarmAction(action);
    this.importQueue.deadLetterAlarm.addOkAction(action);
    notifyingAlarm(this, 'ImportQueueAgeAlarm', topic, {
      description: `The oldest staged-user message has waited over ${THRESHOLDS.importQueueAgeMinutes} minutes: the import is stalled or far slower than planned`,
      metric: this.importQueue.queue.metricApproximateAgeOfOldestMessage({
        period: ALARM_PERIOD,
        statistic: 'Maximum',
      }),
      threshold: Duration.minutes(THRESHOLDS.importQueueAgeMinutes).toSeconds(),
      evaluationPeriods: 3,
    });
    const operations = [...TABLE_OPERATIONS];
    notifyingAlarm(this, 'TableThrottleAlarm', topic, {
      description:
        'DynamoDB has been throttling requests for 15 minutes: the table (or an index) is at its capacity; imports slow down, see the README on warm throughput',
      metric: this.table.metricThrottledRequestsForOperations({ operations, period: ALARM_PERIOD }),
      threshold: THRESHOLDS.tableThrottledRequests,
      evaluationPeriods: 3,
    });
    notifyingAlarm(this, 'TableSystemErrorsAlarm', topic, {
      description: 'DynamoDB answered with internal server errors (HTTP 500); the SDK retries them',
      metric: this.table.metricSystemErrorsForOperations({ operations, period: ALARM_PERIOD }),
      threshold: THRESHOLDS.tableSystemErrors,
    });
  }
}
