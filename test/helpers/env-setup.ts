import { inject } from 'vitest';

// Point the functions' clients at the DynamoDB Local started by the global setup.
process.env.DYNAMODB_ENDPOINT = inject('dynamodbEndpoint');
process.env.TABLE_NAME = inject('tableName');
process.env.AWS_REGION = 'local';
process.env.LOG_LEVEL ??= 'warn';
