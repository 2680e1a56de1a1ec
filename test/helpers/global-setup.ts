import type { TestProject } from 'vitest/node';
import { ensureTable, startDynamoDbLocal } from '../../bin/local/dynamodb.js';

/**
 * Starts one in-memory DynamoDB Local for the whole run and creates the table from the shared
 * schema. Test files isolate themselves by using their own app ids.
 */
export default async function setup(project: TestProject) {
  const ddb = await startDynamoDbLocal();
  const tableName = 'core-test';
  await ensureTable(ddb.endpoint, tableName);
  project.provide('dynamodbEndpoint', ddb.endpoint);
  project.provide('tableName', tableName);
  return async () => {
    await ddb.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    tableName: string;
  }
}
