/**
 * Names of the environment variables the functions read. The CDK stack sets them from the same
 * constants, so a rename cannot leave a function reading a variable nobody sets.
 */
export const ENV = {
  tableName: 'TABLE_NAME',
  /** Local runtime and tests only: the DynamoDB to use (DynamoDB Local, or a region's endpoint). */
  dynamodbEndpoint: 'DYNAMODB_ENDPOINT',
  /**
   * Local runtime only (`true`): a table an app's `dynamodb_table_name` names is created when it
   * does not exist yet. Never set on AWS, where tables are only checked.
   */
  createTables: 'DYNAMODB_CREATE_TABLES',
  /**
   * The base config key `dynamodb_table_name_prefix` (every key may be set by its upper-case
   * variable): the stack sets it to the prefix its grants cover.
   */
  appTablePrefix: 'DYNAMODB_TABLE_NAME_PREFIX',
  importQueueUrl: 'IMPORT_QUEUE_URL',
  importDlqUrl: 'IMPORT_DLQ_URL',
  /** Local runtime and tests only: the local SQS server's URL. */
  sqsEndpoint: 'SQS_ENDPOINT',
  /** Comma-separated base API keys (as in the reference core's container). */
  apiKeys: 'API_KEYS',
  /** On AWS: ARN of a Secrets Manager secret whose string value is the comma-separated API keys. */
  apiKeysSecretArn: 'API_KEYS_SECRET_ARN',
  logLevel: 'LOG_LEVEL',
  /** On AWS: ARN of the KMS key that seals credentials at rest (functions with credentials access only). */
  credentialsKeyArn: 'CREDENTIALS_KEY_ARN',
  /** Local runtime: the key file (32 bytes) under DATA_DIR that seals credentials at rest. */
  credentialsKeyFile: 'CREDENTIALS_KEY_FILE',
  /** Local runtime in memory, tests: the process-lifetime key (32 bytes, Base64) instead of a file. */
  credentialsKey: 'CREDENTIALS_KEY',
  /**
   * Local runtime only (`--simulate-throttling`): the fraction of DynamoDB calls that fail with
   * throttling errors; ignored unless DYNAMODB_ENDPOINT is set.
   */
  simulateThrottling: 'SIMULATE_THROTTLING',
  /**
   * Local runtime and tests only: the import's backoff as `<first>,<max>,<give up>` seconds
   * instead of the defaults of functions/domain/bulk-import/backoff.ts (IMPORT_BACKPRESSURE).
   */
  importBackpressure: 'IMPORT_BACKPRESSURE',
  /**
   * Local runtime and tests only (`true`): the core may call loopback addresses, and `http:` to
   * them (the password-migration hook against a legacy endpoint on the same machine; docs/security.md
   * "Outbound requests"). Never set on AWS.
   */
  localRuntime: 'LOCAL_RUNTIME',
  /**
   * The import worker: `<start>[,<ceiling>]` table write units per second the import of one table
   * starts at and never exceeds (functions/shared/import-pace.ts). Set by the stack (the table's
   * warm throughput, -c importMaxWriteUnits) and by the local runtime (--write-capacity).
   */
  importWriteUnits: 'IMPORT_WRITE_UNITS',
  /** The import worker: how many execution environments share those units (its maximum concurrency). */
  importConcurrency: 'IMPORT_CONCURRENCY',
} as const;

/** Reads a variable that must be set; throws at cold start rather than running half-configured. */
export function requireEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    throw new Error(`Environment variable ${name} is not set`);
  }
  return value;
}

export function optionalEnv(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}
