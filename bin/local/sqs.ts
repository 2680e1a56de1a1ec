/**
 * The local SQS server (fauxqs, in-process) and the import queue with its dead-letter queue,
 * created with the stack's redrive (maxReceiveCount = IMPORT_MAX_RECEIVE_COUNT).
 *
 * fauxqs keeps messages in memory only: they are lost when the runtime stops. The reconciler's
 * start-up pass re-sends every staged row that is still waiting (docs/import-pipeline.md).
 */
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { buildApp } from 'fauxqs';
import { IMPORT_MAX_RECEIVE_COUNT } from '#functions/workers.js';

export interface ImportQueuePair {
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly dlqUrl: string;
  readonly dlqArn: string;
}

export interface LocalSqs extends ImportQueuePair {
  /** The endpoint every SQS client must be given (fauxqs' queue URL hosts do not resolve). */
  readonly endpoint: string;
  readonly client: SQSClient;
  stop(): Promise<void>;
}

/** An SQS client for a local endpoint (fixed dummy credentials: nothing searches the machine). */
export function localSqsClient(endpoint: string, region: string): SQSClient {
  return new SQSClient({ endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}

const LOOPBACK = '127.0.0.1';

/** Dead letters are kept as long as SQS allows (14 days), as in the stack. */
const DLQ_RETENTION_SECONDS = 14 * 24 * 3600;

/**
 * Creates `<name>-dlq` and `<name>` (redrive after {@link IMPORT_MAX_RECEIVE_COUNT} receives) through
 * the SQS API; idempotent, so tests can create their own pairs on a shared server.
 */
export async function createImportQueuePair(
  client: SQSClient,
  name: string,
  options: { visibilityTimeoutSeconds: number },
): Promise<ImportQueuePair> {
  const dlq = await client.send(
    new CreateQueueCommand({
      QueueName: `${name}-dlq`,
      Attributes: { MessageRetentionPeriod: String(DLQ_RETENTION_SECONDS) },
    }),
  );
  const dlqUrl = dlq.QueueUrl as string;
  const dlqArn = await queueArn(client, dlqUrl);
  const queue = await client.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: {
        VisibilityTimeout: String(options.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: IMPORT_MAX_RECEIVE_COUNT }),
      },
    }),
  );
  const queueUrl = queue.QueueUrl as string;
  return { queueUrl, queueArn: await queueArn(client, queueUrl), dlqUrl, dlqArn };
}

async function queueArn(client: SQSClient, queueUrl: string): Promise<string> {
  const out = await client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }));
  return out.Attributes?.QueueArn as string;
}

/**
 * fauxqs 1.9.2's `startFauxqs` always listens on every interface (its `host` option names the
 * queue URLs' host, not the address). So the local SQS server is fauxqs' own app (`buildApp`, the
 * same routes and stores) listened on 127.0.0.1 only, and it answers this machine's own clients
 * only: a request with an Origin header, or a Host other than 127.0.0.1:<port> / localhost:<port>
 * (a DNS name rebound to 127.0.0.1), is refused with 403 before fauxqs sees it.
 */
async function listenOnLoopback(options: { region: string; port: number }) {
  const app = buildApp({ logger: false, host: LOOPBACK, defaultRegion: options.region });
  let ownHosts: readonly string[] = [];
  app.addHook('onRequest', async (request, reply) => {
    if (request.headers.origin !== undefined || !ownHosts.includes(request.headers.host ?? '')) {
      return reply.code(403).type('text/plain').send("The local SQS server answers this machine's own clients only");
    }
    return undefined;
  });
  await app.listen({ port: options.port, host: LOOPBACK });
  const address = app.server.address();
  if (address === null || typeof address !== 'object') throw new Error('the local SQS server has no address');
  ownHosts = [`${LOOPBACK}:${address.port}`, `localhost:${address.port}`];
  return { port: address.port, stop: () => app.close() };
}

/** Starts fauxqs on the loopback interface and creates the import queue pair. */
export async function startLocalSqs(options: {
  readonly region: string;
  readonly queueName: string;
  readonly visibilityTimeoutSeconds: number;
  readonly port?: number;
}): Promise<LocalSqs> {
  const server = await listenOnLoopback({ region: options.region, port: options.port ?? 0 });
  const endpoint = `http://${LOOPBACK}:${server.port}`;
  const client = localSqsClient(endpoint, options.region);
  try {
    const pair = await createImportQueuePair(client, options.queueName, options);
    return {
      ...pair,
      endpoint,
      client,
      stop: async () => {
        client.destroy();
        await server.stop();
      },
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
