import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { ensureTable, startDynamoDbLocal } from '../../bin/local/dynamodb.js';
import { startLocalSqs } from '../../bin/local/sqs.js';

/**
 * Starts one in-memory DynamoDB Local and one local SQS server (fauxqs, with a default import
 * queue and its DLQ) for the whole run and creates the table from the shared schema. Test files
 * isolate themselves by using their own app ids (and, when they consume messages, their own
 * queue pairs on the same server).
 */
export default async function setup(project: TestProject) {
  const [ddb, sqs] = await Promise.all([
    startDynamoDbLocal(),
    startLocalSqs({ region: 'local', queueName: 'core-test-import', visibilityTimeoutSeconds: 30 }),
  ]);
  const tableName = 'core-test';
  await ensureTable(ddb.endpoint, tableName);
  project.provide('dynamodbEndpoint', ddb.endpoint);
  project.provide('tableName', tableName);
  project.provide('sqsEndpoint', sqs.endpoint);
  project.provide('importQueueUrl', sqs.queueUrl);
  project.provide('importDlqUrl', sqs.dlqUrl);
  // The run's key for credentials at rest (the local runtime's process-lifetime key, as --in-memory).
  project.provide('credentialsKey', randomBytes(32).toString('base64'));
  return async () => {
    await Promise.all([ddb.stop(), sqs.stop()]);
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    tableName: string;
    sqsEndpoint: string;
    importQueueUrl: string;
    importDlqUrl: string;
    credentialsKey: string;
  }
}
