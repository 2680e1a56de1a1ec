/**
 * The physical schema of the single table, as plain data.
 *
 * The CDK stack (lib/) and the local runtime / test setup both build their table from this
 * object, so the deployed table and the local one cannot drift apart.
 */
export const TABLE_SCHEMA = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Generic, sparse global secondary indexes; every index projects all attributes. */
  globalIndexes: [
    { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
    { indexName: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' },
    { indexName: 'GSI3', partitionKey: 'GSI3PK', sortKey: 'GSI3SK' },
  ],
  /** Epoch seconds; DynamoDB deletes expired items in the background. */
  ttlAttribute: 'expiresAt',
  /** Written on every item, so a stray item can always be traced to its owner. */
  entityTypeAttribute: 'entityType',
} as const;

export type IndexName = (typeof TABLE_SCHEMA.globalIndexes)[number]['indexName'];

/** The input of a DynamoDB CreateTable call for this schema (on-demand billing). */
export function createTableInput(tableName: string) {
  const { partitionKey, sortKey, globalIndexes } = TABLE_SCHEMA;
  const keyNames = [partitionKey, sortKey, ...globalIndexes.flatMap((g) => [g.partitionKey, g.sortKey])];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: keyNames.map((name) => ({ AttributeName: name, AttributeType: 'S' as const })),
    KeySchema: [
      { AttributeName: partitionKey, KeyType: 'HASH' as const },
      { AttributeName: sortKey, KeyType: 'RANGE' as const },
    ],
    GlobalSecondaryIndexes: globalIndexes.map((g) => ({
      IndexName: g.indexName,
      KeySchema: [
        { AttributeName: g.partitionKey, KeyType: 'HASH' as const },
        { AttributeName: g.sortKey, KeyType: 'RANGE' as const },
      ],
      Projection: { ProjectionType: 'ALL' as const },
    })),
  };
}
