/**
 * DynamoDB's refusals of a value (and the document client's, before sending) become a
 * StoredValueRefusedError: 400, naming what was refused and why, never the value.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { errorToHttp } from '#functions/http/responses.js';
import { StoredValueRefusedError } from '#functions/shared/errors.js';
import { isStorableNumber, jsonShapeProblem } from '#functions/shared/storable.js';
import { asRefusal, valueRefusal } from '#functions/storage/kit/errors.js';
import { classifyError, defineEntity, putItem, type Table, transact } from '#functions/storage/kit/index.js';

const NUMBER_RULE = 'between -9007199254740991 and 9007199254740991, and 0 or at least 1e-130 in magnitude';

const awsError = (name: string, message: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), { name, $metadata: { httpStatusCode: 400 }, ...extra });

/** The document client's own error for a number it will not write (nothing is sent: the endpoint is never reached). */
async function marshallError(value: unknown): Promise<unknown> {
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: 'local',
      endpoint: 'http://127.0.0.1:9',
      maxAttempts: 1,
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    }),
  );
  return client.send(new PutCommand({ TableName: 't', Item: { PK: 'a', SK: 'b', value } })).then(
    () => undefined,
    (error: unknown) => error,
  );
}

const thing = defineEntity({
  type: 'UNIT_REFUSAL_THING',
  subject: 'The thing',
  key: (k: { id: string }) => ({ PK: `T#${k.id}`, SK: 'T' }),
});

/** A table whose client throws `error` on every call. */
const failingTable = (error: unknown): Table =>
  ({
    name: 'refusals',
    client: () => ({
      send: async () => {
        throw error;
      },
    }),
  }) as unknown as Table;

describe('valueRefusal', () => {
  it("recognises DynamoDB's refusals of a value", () => {
    const cases: [string, string][] = [
      ['Item size has exceeded the maximum allowed size', 'size'],
      ['Item size to update has exceeded the maximum allowed size', 'size'],
      [
        'Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit',
        'depth',
      ],
      ['Number overflow. Attempting to store a number with magnitude larger than supported range', 'number'],
      ['Number underflow. Attempting to store a number with magnitude smaller than supported range', 'number'],
      ['Attempting to store more than 38 significant digits in a Number', 'number'],
      ['Empty attribute name', 'emptyKey'],
    ];
    for (const [message, reason] of cases) {
      const error = awsError('ValidationException', message);
      expect(valueRefusal(error), message).toEqual({ reason });
      // Still a permanent failure: never retried, a worker fails the row at once.
      expect(classifyError(error)).toBe('permanent');
    }
  });

  it('names the refused action of a cancelled transaction', () => {
    const error = awsError('TransactionCanceledException', 'Transaction cancelled', {
      CancellationReasons: [
        { Code: 'None' },
        { Code: 'ValidationError', Message: 'Item size has exceeded the maximum allowed size' },
      ],
    });
    expect(valueRefusal(error)).toEqual({ reason: 'size', index: 1 });
  });

  it("recognises the document client's refusal of numbers beyond ±(2^53 − 1)", async () => {
    for (const value of [1e200, -1e200, 2 ** 53 + 2, [1e20], { deep: { n: -1e300 } }]) {
      const error = await marshallError(value);
      expect(valueRefusal(error), JSON.stringify(value)).toEqual({ reason: 'number' });
    }
  });

  it('leaves every other failure alone', () => {
    const others = [
      awsError('ValidationException', 'One or more parameter values were invalid: Missing the key PK in the item'),
      awsError('ValidationException', 'The provided key element does not match the schema'),
      awsError('ConditionalCheckFailedException', 'The conditional request failed'),
      awsError('ThrottlingException', 'Rate exceeded'),
      awsError('TransactionCanceledException', 'Transaction cancelled', {
        CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'ValidationError', Message: 'Other' }],
      }),
      new TypeError('x is not a function'),
      undefined,
    ];
    for (const error of others) {
      expect(valueRefusal(error)).toBeUndefined();
      expect(asRefusal(error, () => 'The thing')).toBe(error);
    }
  });
});

describe('the refusal as a 400', () => {
  it('says what and why, never the value, and maps to 400 text/plain', async () => {
    const error = asRefusal(await marshallError({ secret: 'hunter2-secret', n: 1e200 }), () => 'The thing');
    expect(error).toBeInstanceOf(StoredValueRefusedError);
    const message = `The thing holds a number DynamoDB cannot store: numbers must be ${NUMBER_RULE}.`;
    expect((error as Error).message).toBe(message);
    const http = errorToHttp(error, {});
    expect(http).toEqual({
      statusCode: 400,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body: `${message}\n`,
    });
  });

  it("the kit's writes name the item's entity subject", async () => {
    const size = awsError('ValidationException', 'Item size has exceeded the maximum allowed size');
    await expect(putItem(failingTable(size), thing.item({ id: '1' }, { big: 'x' }))).rejects.toThrow(
      new StoredValueRefusedError('The thing is too large to store: a DynamoDB item holds at most 400 KB.'),
    );
    // An item without a declared subject.
    await expect(putItem(failingTable(size), { PK: 'a', SK: 'b' })).rejects.toThrow(
      "The request's data is too large to store: a DynamoDB item holds at most 400 KB.",
    );
    // A transaction: the action DynamoDB names.
    const cancelled = awsError('TransactionCanceledException', 'Transaction cancelled', {
      CancellationReasons: [
        { Code: 'None' },
        { Code: 'ValidationError', Message: 'Nesting Levels have exceeded supported limits' },
      ],
    });
    const items = [
      { Put: { TableName: 'refusals', Item: { PK: 'a', SK: 'b' } } },
      { Put: { TableName: 'refusals', Item: thing.item({ id: '2' }, {}) } },
    ];
    await expect(transact(failingTable(cancelled), items)).rejects.toThrow(
      'The thing is nested too deeply to store: DynamoDB holds at most 32 levels.',
    );
    // Unnamed by DynamoDB: the subject only when every written item shares it.
    await expect(transact(failingTable(size), items)).rejects.toThrow("The request's data is too large to store");
    await expect(transact(failingTable(size), [items[1] as (typeof items)[number]])).rejects.toThrow(
      'The thing is too large to store',
    );
  });
});

describe('isStorableNumber and jsonShapeProblem', () => {
  it('a number is storable exactly when the document client writes it and DynamoDB keeps it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.double({ noNaN: true, noDefaultInfinity: true }), async (value) => {
        const refusal = valueRefusal(await marshallError(value));
        // The document client refuses beyond ±(2^53 − 1); DynamoDB refuses non-zero magnitudes
        // below 1e-130 (not checked by the client, so such a number reaches the unreachable endpoint).
        const clientRefuses = Math.abs(value) > Number.MAX_SAFE_INTEGER;
        expect(refusal !== undefined).toBe(clientRefuses);
        expect(isStorableNumber(value)).toBe(!clientRefuses && (value === 0 || Math.abs(value) >= 1e-130));
      }),
      { numRuns: 30 },
    );
  });

  it('finds depth first, then numbers and empty keys', () => {
    expect(jsonShapeProblem({ a: { b: 1 } }, 2)).toBeUndefined();
    expect(jsonShapeProblem({ a: { b: {} } }, 2)).toBe('depth');
    expect(jsonShapeProblem([[[]]], 2)).toBe('depth');
    expect(jsonShapeProblem({ a: 1e200, b: { c: { d: {} } } }, 2)).toBe('depth');
    expect(jsonShapeProblem({ a: [1, 2 ** 53] }, 5)).toBe('number');
    expect(jsonShapeProblem({ a: 1e-131 }, 5)).toBe('number');
    expect(jsonShapeProblem({ a: { '': 1 } }, 5)).toBe('emptyKey');
    expect(jsonShapeProblem({ a: 0, b: -0, c: 1e-130, d: 'text', e: null, f: true }, 5)).toBeUndefined();
  });
});
