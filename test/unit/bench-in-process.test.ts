import { describe, expect, it } from 'vitest';
import { commandKind, reportedCapacity, writeActions } from '../../bench/lib/calls.js';

describe('bench recorder: command classification (low-level command names)', () => {
  it('classifies the names the middleware sees', () => {
    expect(commandKind('GetItemCommand')).toBe('read');
    expect(commandKind('BatchGetItemCommand')).toBe('read');
    expect(commandKind('QueryCommand')).toBe('read');
    expect(commandKind('TransactWriteItemsCommand')).toBe('write');
    expect(commandKind('UpdateItemCommand')).toBe('write');
    expect(commandKind('DescribeTableCommand')).toBe('other');
    // The DocumentClient names never reach the middleware.
    expect(commandKind('GetCommand')).toBe('other');
  });
});

describe('bench recorder: write actions', () => {
  it('lists the items of a transaction with their keys', () => {
    const actions = writeActions('TransactWriteItemsCommand', {
      TransactItems: [
        { Put: { TableName: 't', Item: { PK: 'a', SK: 'b', x: 1 } } },
        { Update: { TableName: 't', Key: { PK: 'c', SK: 'd' }, UpdateExpression: 'SET x = :x' } },
        { Delete: { TableName: 't', Key: { PK: 'e', SK: 'f' } } },
        { ConditionCheck: { TableName: 't', Key: { PK: 'g', SK: 'h' }, ConditionExpression: 'x' } },
      ],
    });
    expect(actions.map((a) => [a.kind, a.key])).toEqual([
      ['Put', { PK: 'a', SK: 'b' }],
      ['Update', { PK: 'c', SK: 'd' }],
      ['Delete', { PK: 'e', SK: 'f' }],
      ['ConditionCheck', { PK: 'g', SK: 'h' }],
    ]);
    expect(actions[0]?.putItem).toEqual({ PK: 'a', SK: 'b', x: 1 });
  });

  it('lists batch writes and single-item writes', () => {
    const batch = writeActions('BatchWriteItemCommand', {
      RequestItems: {
        t: [{ PutRequest: { Item: { PK: 'a', SK: 'b' } } }, { DeleteRequest: { Key: { PK: 'c', SK: 'd' } } }],
      },
    });
    expect(batch.map((a) => a.kind)).toEqual(['Put', 'Delete']);
    expect(writeActions('UpdateItemCommand', { TableName: 't', Key: { PK: 'a', SK: 'b' } })).toHaveLength(1);
    expect(writeActions('GetItemCommand', { TableName: 't', Key: { PK: 'a', SK: 'b' } })).toEqual([]);
  });
});

describe("bench recorder: DynamoDB Local's reported capacity", () => {
  it('sums CapacityUnits, Table and per-index units over the list of a transaction', () => {
    expect(
      reportedCapacity([
        {
          TableName: 't',
          CapacityUnits: 8,
          Table: { CapacityUnits: 4 },
          GlobalSecondaryIndexes: { GSI1: { CapacityUnits: 2 }, GSI2: { CapacityUnits: 2 } },
        },
      ]),
    ).toEqual({ total: 8, table: 4, indexes: { GSI1: 2, GSI2: 2, GSI3: 0 } });
    expect(reportedCapacity({ CapacityUnits: 1 })).toEqual({
      total: 1,
      table: undefined,
      indexes: { GSI1: 0, GSI2: 0, GSI3: 0 },
    });
    expect(reportedCapacity(undefined)).toBeUndefined();
  });
});
