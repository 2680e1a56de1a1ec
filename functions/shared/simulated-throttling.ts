/**
 * A rehearsal tool for the local runtime (`npm start -- --simulate-throttling=<fraction>`): the
 * DynamoDB client fails that fraction of its calls with DynamoDB's own throttling exceptions, so
 * the paths a busy table takes on AWS — retries, 503s, messages returned to the queue with a
 * delay — run on one machine, where DynamoDB Local never throttles.
 *
 * The failure is thrown by a client middleware in the `initialize` step: before the SDK's own
 * retries and before anything reaches DynamoDB Local, so a failed call wrote nothing. The
 * fraction is of the calls the core makes (what a caller sees once the SDK gave up), not of HTTP
 * attempts. Read only where the client is given a local endpoint (functions/shared/clients.ts):
 * never on AWS.
 */
import {
  type DynamoDBClient,
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ThrottlingException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';

/** The fraction from its text: a decimal from 0 (off: undefined) to below 1. */
export function parseThrottlingFraction(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (!/^\d*\.?\d+$/.test(trimmed) || value >= 1) {
    throw new RangeError(`the throttling fraction must be a decimal from 0 to below 1 (e.g. 0.3), got '${text}'`);
  }
  return value > 0 ? value : undefined;
}

const metadata = { httpStatusCode: 400 };
const MARK = '(simulated by --simulate-throttling)';

/** One of DynamoDB's throttling errors, as the SDK would throw it for this command. */
export function simulatedThrottlingError(commandName: string | undefined, input: unknown, pick: number): Error {
  if (commandName === 'TransactWriteItemsCommand') {
    const count = ((input as { TransactItems?: unknown[] }).TransactItems ?? []).length;
    if (count > 0 && pick < 0.75) {
      // What DynamoDB answers when an item of a transaction is throttled: the transaction is
      // cancelled, the throttled action's reason says so, the others' say None.
      const throttled = Math.floor((pick / 0.75) * Math.max(1, count));
      return new TransactionCanceledException({
        message: `Transaction cancelled: an item was throttled ${MARK}`,
        $metadata: metadata,
        CancellationReasons: Array.from({ length: count }, (_, i) =>
          i === throttled
            ? { Code: 'ThrottlingError', Message: `Throughput exceeds the current capacity of the table ${MARK}` }
            : { Code: 'None' },
        ),
      });
    }
  }
  if (pick < 0.5) {
    return new ProvisionedThroughputExceededException({
      message: `The table's throughput was exceeded ${MARK}`,
      $metadata: metadata,
      ThrottlingReasons: [{ reason: 'TableWriteKeyRangeThroughputExceeded' }],
    });
  }
  if (pick < 0.85) {
    return new ThrottlingException({
      message: `Throughput exceeds the current capacity of the table ${MARK}`,
      $metadata: metadata,
      throttlingReasons: [{ reason: 'TableWriteAccountLimitExceeded' }],
    });
  }
  return new RequestLimitExceeded({ message: `Throughput exceeds the account's quota ${MARK}`, $metadata: metadata });
}

/** The part of a DynamoDB client (or DocumentClient: they share it) the middleware goes into. */
type WithMiddleware = Pick<DynamoDBClient, 'middlewareStack'>;

const NAME = 'simulatedThrottling';

/**
 * Fails every call of `client` for which `decide(commandName, input)` says so, with a throttling error
 * (see the module comment). Returns a function that removes it again.
 */
export function throttleCalls(
  client: WithMiddleware,
  decide: (commandName: string | undefined, input: unknown) => boolean,
  random: () => number = Math.random,
): () => void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (decide(context.commandName, args.input))
        throw simulatedThrottlingError(context.commandName, args.input, random());
      return next(args);
    },
    { step: 'initialize', priority: 'high', name: NAME, override: true },
  );
  return () => void client.middlewareStack.remove(NAME);
}

/** Makes `client` fail `fraction` of its calls with a throttling error. */
export const simulateThrottling = (client: WithMiddleware, fraction: number, random: () => number = Math.random) =>
  throttleCalls(client, () => random() < fraction, random);
