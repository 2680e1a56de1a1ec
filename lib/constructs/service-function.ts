import { join } from 'node:path';
import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import {
  Architecture,
  ParamsAndSecretsLayerVersion,
  ParamsAndSecretsLogLevel,
  ParamsAndSecretsVersions,
  Runtime,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NodejsFunction, type NodejsFunctionProps, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { CredentialsAccess } from '#functions/routes.js';
import { ENV } from '#functions/shared/env.js';
import { TABLE_SCHEMA } from '#functions/storage/table.js';
import { DEFAULT_ROUTE_MEMORY_MB, DEFAULT_ROUTE_TIMEOUT_SECONDS, LAMBDA_NODE_MAJOR, REPO_ROOT } from '../constants.js';

/**
 * Table actions per access level. Narrower than CDK's grantReadData/grantReadWriteData: no Scan
 * (no request path may scan) and no stream actions (the table has no stream). Transactions are
 * authorised per contained action, so write needs ConditionCheckItem for their conditions.
 */
export const TABLE_ACTIONS = {
  read: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'],
  write: [
    'dynamodb:GetItem',
    'dynamodb:BatchGetItem',
    'dynamodb:Query',
    'dynamodb:ConditionCheckItem',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:BatchWriteItem',
  ],
} as const;

/** The KMS actions of each credentials access (routes.ts `access.credentials`). */
const CREDENTIALS_ACTIONS = {
  seal: ['kms:GenerateDataKey'],
  open: ['kms:Decrypt'],
  'seal-and-open': ['kms:GenerateDataKey', 'kms:Decrypt'],
} as const;
/** The encryption-context purposes data keys are made for (KeyContext in functions/domain/credentials/ports.ts). */
export const CREDENTIAL_PURPOSES = ['staged-credentials', 'app-secret', 'totp-secret', 'signing-key'] as const;

/**
 * Makes CommonJS dependencies work inside the ESM bundle: esbuild's `require` shim calls the
 * `require` this banner defines.
 */
const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/**
 * Bundled in place of the SDK's default credential chain: on Lambda only its first link (the
 * environment) is ever used, and the rest is ~130 KB of every bundle (lib/bundling/lambda-credentials.ts).
 */
const LAMBDA_CREDENTIALS_MODULE = join(REPO_ROOT, 'lib', 'bundling', 'lambda-credentials.ts');

/** Bundled in place of the KMS client into functions without credentials access (lib/bundling/no-kms.ts). */
const NO_KMS_MODULE = join(REPO_ROOT, 'lib', 'bundling', 'no-kms.ts');

/**
 * The module of the local runtime's throttling rehearsal, as functions/shared/clients.ts imports
 * it, and what every bundle gets in its place: on Lambda it is never used
 * (lib/bundling/no-simulated-throttling.ts).
 */
const SIMULATED_THROTTLING_IMPORT = '#functions/shared/simulated-throttling.js';
const NO_SIMULATED_THROTTLING_MODULE = join(REPO_ROOT, 'lib', 'bundling', 'no-simulated-throttling.ts');

/**
 * The AWS Parameters and Secrets Lambda Extension, through which the functions given the API-keys
 * secret read it (functions/config/secrets-manager-extension.ts): an AWS-published layer, so no Secrets
 * Manager client in any bundle. The function keeps its base config at most 5 minutes
 * (functions/config/base.ts, BASE_CONFIG_MAX_AGE_MS), the bound on a rotated key: the extension's
 * own cache is off, or it would add its TTL to that bound. Its call to Secrets Manager is cut off
 * after 3 s, within the 5 s the function waits for it.
 */
const PARAMS_AND_SECRETS = ParamsAndSecretsLayerVersion.fromVersion(ParamsAndSecretsVersions.V1_0_103, {
  cacheEnabled: false,
  cacheSize: 0,
  secretsManagerTimeout: Duration.seconds(3),
  logLevel: ParamsAndSecretsLogLevel.WARN,
});

export interface ServiceFunctionProps
  extends Omit<NodejsFunctionProps, 'entry' | 'runtime' | 'architecture' | 'logGroup' | 'timeout' | 'memorySize'> {
  /** Repository-relative path of the module that exports `handler` (resolved from the repo root). */
  readonly entry: string;
  /** @default 10 seconds */
  readonly timeout?: Duration;
  /** @default 1024 */
  readonly memorySize?: number;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** Of the function's log group. */
  readonly logRemovalPolicy: RemovalPolicy;
  /**
   * The function seals or opens credentials at rest (its manifest entry's `access.credentials`):
   * only then is the KMS client bundled — the others never load it. @default none
   */
  readonly credentials?: CredentialsAccess;
  /**
   * The secret holding the comma-separated base API keys, for a function that answers HTTP requests
   * and so checks API keys: it gets read access to exactly this secret, its ARN in
   * API_KEYS_SECRET_ARN and the Parameters and Secrets extension layer ({@link PARAMS_AND_SECRETS})
   * to read it through. Functions without it get none of the three. @default none
   */
  readonly apiKeysSecret?: ISecret;
}

/**
 * The Lambda runtime of every function: Node.js {@link LAMBDA_NODE_MAJOR} (`nodejs24.x`). Its
 * runtime accepts async handlers only (no callback argument): every handler is an async function
 * of (event, context), which test/infra/node-runtime.test.ts checks module by module.
 */
export const LAMBDA_RUNTIME = Runtime.NODEJS_24_X;
/** What esbuild builds the bundles for: the runtime's Node.js. */
export const BUNDLE_TARGET = `node${LAMBDA_NODE_MAJOR}`;

/**
 * A NodejsFunction with the house defaults: Node.js 24 on ARM64, an ESM bundle built by the local
 * esbuild (minified, with source maps), active tracing, an explicit timeout, memory and log group.
 * Caller environment is merged with the defaults, and the bind helpers grant least privilege and
 * set the matching environment variable in one move.
 * Used for route functions (lib/api-stack.ts) and workers (lib/workers-stack.ts) alike.
 */
export class ServiceFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const { entry, logRetention, logRemovalPolicy, bundling, environment, credentials, apiKeysSecret, ...rest } = props;
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: logRemovalPolicy,
    });
    super(scope, id, {
      ...rest,
      entry: join(REPO_ROOT, entry),
      handler: 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
      runtime: LAMBDA_RUNTIME,
      architecture: Architecture.ARM_64,
      timeout: props.timeout ?? Duration.seconds(DEFAULT_ROUTE_TIMEOUT_SECONDS),
      memorySize: props.memorySize ?? DEFAULT_ROUTE_MEMORY_MB,
      tracing: Tracing.ACTIVE,
      logGroup,
      ...(apiKeysSecret === undefined ? {} : { paramsAndSecrets: PARAMS_AND_SECRETS }),
      environment: { NODE_OPTIONS: '--enable-source-maps', ...environment },
      bundling: {
        format: OutputFormat.ESM,
        target: BUNDLE_TARGET,
        mainFields: ['module', 'main'],
        banner: ESM_REQUIRE_BANNER,
        minify: true,
        sourceMap: true,
        // Stack traces need file and line only; embedding the sources would double the bundle.
        sourcesContent: false,
        // Bundle the AWS SDK too: the versions the tests ran against, not the runtime's copy.
        externalModules: [],
        esbuildArgs: {
          '--alias': [
            `@aws-sdk/credential-provider-node=${LAMBDA_CREDENTIALS_MODULE}`,
            `${SIMULATED_THROTTLING_IMPORT}=${NO_SIMULATED_THROTTLING_MODULE}`,
            // Only functions with credentials access carry the KMS client (~38 KB).
            ...(credentials === undefined ? [`@aws-sdk/client-kms=${NO_KMS_MODULE}`] : []),
          ],
        },
        forceDockerBundling: false,
        ...bundling,
      },
    });
    if (apiKeysSecret !== undefined) {
      apiKeysSecret.grantRead(this);
      this.addEnvironment(ENV.apiKeysSecretArn, apiKeysSecret.secretArn);
    }
    // cdk-nag (AwsSolutions) findings every function has, each acknowledged for its reason.
    Validations.of(this).acknowledge(
      {
        id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason:
          "Lambda's basic execution policy only lets the function create log streams and put log events; its log group is its own, with a retention",
      },
      {
        id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
        reason:
          'Active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions (the infra tests hold every other statement to named resources)',
      },
      {
        id: 'AwsSolutions::AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
        reason: 'Writing to the KMS-encrypted table and queue; the action family is granted on the one data key only',
      },
      {
        id: 'AwsSolutions::AwsSolutions-IAM5[Action::kms:ReEncrypt*]',
        reason: 'Writing to the KMS-encrypted table; the action family is granted on the one data key only',
      },
    );
  }

  /**
   * Table access per `mode`, on the table and each of its indexes by name (no `index/*`
   * wildcard), plus the key's matching KMS actions.
   */
  bindTable(table: ITable, mode: 'read' | 'write'): this {
    this.addToRolePolicy(
      new PolicyStatement({
        actions: [...TABLE_ACTIONS[mode]],
        resources: [
          table.tableArn,
          ...TABLE_SCHEMA.globalIndexes.map((index) => `${table.tableArn}/index/${index.indexName}`),
        ],
      }),
    );
    if (mode === 'read') table.encryptionKey?.grantDecrypt(this);
    else table.encryptionKey?.grantEncryptDecrypt(this);
    this.addEnvironment(ENV.tableName, table.tableName);
    return this;
  }

  /**
   * Table access per `mode` on every table whose name starts with `prefix` (the stage's app
   * tables, including ones an operator adds later) and on each of their indexes by name — nothing
   * broader. Their key is the base table's (granted by {@link bindTable}). `describe` adds
   * DescribeTable on those tables, for the check of an app's `dynamodb_table_name`. The prefix is
   * also the functions' `dynamodb_table_name_prefix`, so config validation refuses any name the
   * grants do not cover.
   */
  bindAppTables(prefix: string, mode: 'read' | 'write', options: { describe?: boolean } = {}): this {
    const stack = Stack.of(this);
    const tables = stack.formatArn({ service: 'dynamodb', resource: 'table', resourceName: `${prefix}*` });
    this.addToRolePolicy(
      new PolicyStatement({
        actions: [...TABLE_ACTIONS[mode]],
        resources: [tables, ...TABLE_SCHEMA.globalIndexes.map((index) => `${tables}/index/${index.indexName}`)],
      }),
    );
    if (options.describe) {
      this.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:DescribeTable'], resources: [tables] }));
    }
    this.addEnvironment(ENV.appTablePrefix, prefix);
    const arn = (resource: string) =>
      `arn:<AWS::Partition>:dynamodb:<AWS::Region>:<AWS::AccountId>:table/${prefix}*${resource}`;
    Validations.of(this).acknowledge(
      ...['', ...TABLE_SCHEMA.globalIndexes.map((index) => `/index/${index.indexName}`)].map((resource) => ({
        id: `AwsSolutions::AwsSolutions-IAM5[Resource::${arn(resource)}]`,
        reason:
          "The stage's app tables are every table named with its prefix (an operator may add one without a code deploy); no other table matches it",
      })),
    );
    return this;
  }

  /** Send-only access to `queue` (and its key); `envName` carries its URL. */
  bindQueue(queue: IQueue, mode: 'send', envName: string): this {
    if (mode === 'send') queue.grantSendMessages(this);
    this.addEnvironment(envName, queue.queueUrl);
    return this;
  }

  /** Read access to `queue`'s message counts (sqs:GetQueueAttributes, nothing else); `envName` carries its URL. */
  watchQueue(queue: IQueue, envName: string): this {
    queue.grant(this, 'sqs:GetQueueAttributes');
    this.addEnvironment(envName, queue.queueUrl);
    return this;
  }

  /**
   * Makes `queue` this function's SQS event source with partial batch responses (the handler
   * returns `batchItemFailures`), which also grants exactly the consume actions on it (and its
   * key); `envName` carries its URL.
   */
  consumeQueue(
    queue: IQueue,
    envName: string,
    options: { batchSize: number; maxConcurrency: number; batchingWindowSeconds?: number },
  ): this {
    this.addEventSource(
      new SqsEventSource(queue, {
        batchSize: options.batchSize,
        maxConcurrency: options.maxConcurrency,
        ...(options.batchingWindowSeconds === undefined
          ? {}
          : { maxBatchingWindow: Duration.seconds(options.batchingWindowSeconds) }),
        reportBatchItemFailures: true,
      }),
    );
    this.addEnvironment(envName, queue.queueUrl);
    return this;
  }

  /**
   * Credentials at rest: `seal` may generate data keys (kms:GenerateDataKey), `open` may unwrap
   * them (kms:Decrypt), `seal-and-open` both, on the credentials key only, and only with an encryption context that
   * names an app and one of the purposes the functions use (functions/domain/credentials/ports.ts).
   */
  bindCredentials(key: IKey, access: CredentialsAccess): this {
    this.addToRolePolicy(
      new PolicyStatement({
        actions: [...CREDENTIALS_ACTIONS[access]],
        resources: [key.keyArn],
        conditions: {
          StringEquals: { 'kms:EncryptionContext:purpose': [...CREDENTIAL_PURPOSES] },
          Null: { 'kms:EncryptionContext:appId': 'false' },
        },
      }),
    );
    this.addEnvironment(ENV.credentialsKeyArn, key.keyArn);
    return this;
  }
}
