import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
// Through the package import: the function bundles replace this module (never used on Lambda)
// by that name (SIMULATED_THROTTLING_IMPORT, lib/constructs/service-function.ts).
import { parseThrottlingFraction, simulateThrottling } from '#functions/shared/simulated-throttling.js';
import { awsClientTimeouts } from './aws-timeouts.js';
import { ENV, optionalEnv, requireEnv } from './env.js';

/**
 * AWS clients, created once per process and reused across invocations. Endpoint overrides come
 * only from the environment (DynamoDB Local and the local SQS server).
 */
let documentClient: DynamoDBDocumentClient | undefined;
let sqsClient: SQSClient | undefined;

export function getDocumentClient(): DynamoDBDocumentClient {
  if (!documentClient) {
    const endpoint = optionalEnv(ENV.dynamodbEndpoint);
    const local = endpoint !== undefined && !isAwsEndpoint(endpoint);
    const client = new DynamoDBClient({
      ...(endpoint ? { endpoint } : {}),
      ...(local ? { region: process.env.AWS_REGION ?? 'local', credentials: localCredentials } : {}),
      // The SDK's own retries absorb a blip (its throttling backoff is up to 1 s, then 2 s); beyond
      // that the kit retries under the caller's time budget (functions/storage/kit/retry.ts).
      maxAttempts: 3,
      ...awsClientTimeouts(),
    });
    // A rehearsal of a busy table, locally only (never with AWS's endpoint).
    const fraction = local ? parseThrottlingFraction(optionalEnv(ENV.simulateThrottling)) : undefined;
    if (fraction !== undefined) simulateThrottling(client, fraction);
    documentClient = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    });
  }
  return documentClient;
}

export function getSqsClient(): SQSClient {
  if (!sqsClient) {
    const endpoint = optionalEnv(ENV.sqsEndpoint);
    sqsClient = new SQSClient({
      ...(endpoint ? { endpoint, region: process.env.AWS_REGION ?? 'us-east-1', credentials: localCredentials } : {}),
      ...awsClientTimeouts(),
    });
  }
  return sqsClient;
}

export function tableName(): string {
  return requireEnv(ENV.tableName);
}

/**
 * Whether an endpoint is AWS's own (a region's DynamoDB, which the local runtime may use): its
 * requests are signed with the default credential chain, not the fixed local credentials.
 */
export function isAwsEndpoint(endpoint: string): boolean {
  try {
    const host = new URL(endpoint).hostname;
    return /\.amazonaws\.com(\.cn)?$/.test(host) || host.endsWith('.api.aws');
  } catch {
    return false;
  }
}

/** Local servers accept any credentials; fixed ones keep the SDK from searching the machine. */
const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };
