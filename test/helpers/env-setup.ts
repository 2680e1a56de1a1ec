import { inject } from 'vitest';

// Point the functions' clients at the DynamoDB Local and the local SQS server started by the
// global setup.
process.env.DYNAMODB_ENDPOINT = inject('dynamodbEndpoint');
process.env.TABLE_NAME = inject('tableName');
process.env.SQS_ENDPOINT = inject('sqsEndpoint');
process.env.IMPORT_QUEUE_URL = inject('importQueueUrl');
process.env.IMPORT_DLQ_URL = inject('importDlqUrl');
process.env.CREDENTIALS_KEY = inject('credentialsKey');
process.env.AWS_REGION = 'local';
// As the local runtime: the hook tests' legacy endpoints listen on loopback.
process.env.LOCAL_RUNTIME = 'true';
process.env.LOG_LEVEL ??= 'warn';
// The functions' EMF metric documents (functions/shared/metrics.ts) stay out of the test output;
// the metrics test turns them on for itself.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
