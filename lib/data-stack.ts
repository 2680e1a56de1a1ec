import { CfnOutput, Duration, Fn, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Table, WarmThroughput } from 'aws-cdk-lib/aws-dynamodb';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { ALARM_PERIOD, notifyingAlarm, TABLE_OPERATIONS, THRESHOLDS } from './alarms.js';
import { ImportQueue } from './constructs/import-queue.js';
import { coreTable } from './tables.js';

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
  /**
   * The prefix of every table the stage's functions may use besides the base table (lib/tables.ts);
   * output for operators adding app tables. @default none: no app tables
   */
  readonly appTablePrefix?: string;
  /** Full names of the app tables to create, each starting with `appTablePrefix`. @default none */
  readonly appTables?: readonly string[];
  /**
   * Create the base API key: a Secrets Manager secret holding one random key (docs/deploying-aws.md),
   * output with the command that prints it. Off when the operator names a secret of their
   * own (`-c apiKeysSecretArn`) or deploys an open API on purpose (`-c openApi=true`). @default false
   */
  readonly generateApiKey?: boolean;
}

/**
 * The generated API key: 48 letters and digits, within the core's rules for `api_keys` (at least 20
 * characters of `A-Z a-z 0-9 = -`, functions/config/validate.ts); one key, so no comma.
 */
export const GENERATED_API_KEY = { passwordLength: 48, excludePunctuation: true, includeSpace: false } as const;

/**
 * Stateful resources: the customer-managed key, the base table, the app tables, and the import
 * queues. Code deploys (the API stack) never touch this stack.
 */
export class DataStack extends Stack {
  readonly key: Key;
  /**
   * Seals credentials at rest (staged credentials, app secrets: envelope encryption, docs/security.md
   * "Credentials at rest"). Not the table's key: every function that reads the table may decrypt
   * with that one, while this one is granted only where the manifests say (`access.credentials`).
   */
  readonly credentialsKey: Key;
  /** The base table: apps, tenants, configuration, and the data of apps without a table of their own. */
  readonly table: Table;
  /** Tables apps name in `dynamodb_table_name` (same definition and protections as the base table). */
  readonly appTables: readonly Table[];
  /** Their full names, in the same order. */
  readonly appTableNames: readonly string[];
  readonly importQueue: ImportQueue;
  /** Every alarm of the stage notifies this topic (on ALARM and on recovery). */
  readonly alarmTopic: Topic;
  /** The generated base API key (props.generateApiKey); undefined otherwise. */
  readonly apiKeysSecret?: Secret;

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

    const tableProps = {
      encryptionKey: this.key,
      retain: props.retain,
      ...(props.warmThroughput ? { warmThroughput: props.warmThroughput } : {}),
    };
    this.table = coreTable(this, 'Table', tableProps);
    this.appTableNames = props.appTables ?? [];
    this.appTables = this.appTableNames.map((tableName) => {
      if (props.appTablePrefix === undefined || !tableName.startsWith(props.appTablePrefix)) {
        throw new Error(`app table ${tableName} is outside the stage's table-name prefix`);
      }
      return coreTable(this, `AppTable-${tableName.slice(props.appTablePrefix.length)}`, { ...tableProps, tableName });
    });
    this.outputs(props.appTablePrefix);
    if (props.generateApiKey) this.apiKeysSecret = this.generatedApiKey(removalPolicy);

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

  /**
   * A random base API key, so that no stage deploys an open admin API by default. Kept with the
   * data (retained like the table): a new key would lock out every client of the stage. Encrypted
   * with the account's `aws/secretsmanager` key, which the route functions' read grant covers.
   */
  private generatedApiKey(removalPolicy: RemovalPolicy): Secret {
    const secret = new Secret(this, 'ApiKeysSecret', {
      description: `The base API key of the auth core (${this.stackName}); the value is comma-separated keys`,
      generateSecretString: GENERATED_API_KEY,
      removalPolicy,
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions::AwsSolutions-SMG4',
      reason:
        "The API key is shared with the apps' backends, which must switch to a new key before the old one stops working: rotation is the documented manual procedure (put 'new,old', update the clients, then put 'new'), not a rotation Lambda that would replace the only key at once",
    });
    new CfnOutput(this, 'ApiKeysSecretArn', {
      value: secret.secretArn,
      description: 'The secret holding the base API key (generated; the functions read it)',
    });
    new CfnOutput(this, 'ApiKeysSecretName', { value: secret.secretName, description: 'Its name' });
    new CfnOutput(this, 'ApiKeyCommand', {
      value: Fn.join('', [
        'aws secretsmanager get-secret-value --secret-id ',
        secret.secretArn,
        ' --region ',
        this.region,
        ' --query SecretString --output text',
      ]),
      description: "Prints the API key: send it as the 'api-key' header (the SDK's apiKey)",
    });
    return secret;
  }

  /** What an operator needs to point an app at a table (docs/per-app-tables.md). */
  private outputs(appTablePrefix: string | undefined): void {
    new CfnOutput(this, 'BaseTableName', { value: this.table.tableName, description: 'The base table' });
    new CfnOutput(this, 'DataKeyArn', {
      value: this.key.keyArn,
      description: 'The customer-managed key of the tables and queues (an app table added later must use it)',
    });
    if (appTablePrefix !== undefined) {
      new CfnOutput(this, 'AppTableNamePrefix', {
        value: appTablePrefix,
        description: "The functions may use any table whose name starts with this (an app's dynamodb_table_name)",
      });
    }
    if (this.appTables.length > 0) {
      new CfnOutput(this, 'AppTableNames', {
        value: this.appTableNames.join(','),
        description: "The app tables (context appTables): name one in an app's dynamodb_table_name",
      });
    }
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
    this.tableAlarms(this.table, 'Table', 'the table');
    this.appTables.forEach((table, i) => {
      this.tableAlarms(table, table.node.id, `app table ${this.appTableNames[i]}`);
    });
  }

  private tableAlarms(table: Table, id: string, what: string): void {
    const topic = this.alarmTopic;
    const operations = [...TABLE_OPERATIONS];
    notifyingAlarm(this, `${id}ThrottleAlarm`, topic, {
      description: `DynamoDB has been throttling requests for 15 minutes: ${what} (or an index) is at its capacity; imports slow down, see docs/deploying-aws.md on warm throughput`,
      metric: table.metricThrottledRequestsForOperations({ operations, period: ALARM_PERIOD }),
      threshold: THRESHOLDS.tableThrottledRequests,
      evaluationPeriods: 3,
    });
    notifyingAlarm(this, `${id}SystemErrorsAlarm`, topic, {
      description: `DynamoDB answered requests to ${what} with internal server errors (HTTP 500); the SDK retries them`,
      metric: table.metricSystemErrorsForOperations({ operations, period: ALARM_PERIOD }),
      threshold: THRESHOLDS.tableSystemErrors,
    });
  }
}
