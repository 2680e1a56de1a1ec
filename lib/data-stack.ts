import { RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { TABLE_SCHEMA } from '#functions/storage/table.js';
import { ImportQueue } from './constructs/import-queue.js';

export interface DataStackProps extends StackProps {
  /**
   * Keep the key, table and queues when they leave the stack (or the stack is deleted), and turn
   * on table deletion protection. Only a throw-away development stage should set this to false.
   */
  readonly retain: boolean;
}

/**
 * Stateful resources: the customer-managed key, THE table and the import queues. Code deploys
 * (the API stack) never touch this stack.
 */
export class DataStack extends Stack {
  readonly key: Key;
  readonly table: Table;
  readonly importQueue: ImportQueue;

  constructor(scope: Construct, id: string, props: DataStackProps) {
    super(scope, id, props);
    const removalPolicy = props.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.key = new Key(this, 'DataKey', {
      description: 'Encrypts the auth core table and import queues',
      enableKeyRotation: true,
      removalPolicy,
    });

    const { partitionKey, sortKey, globalIndexes, ttlAttribute } = TABLE_SCHEMA;
    this.table = new Table(this, 'Table', {
      partitionKey: { name: partitionKey, type: AttributeType.STRING },
      sortKey: { name: sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.CUSTOMER_MANAGED,
      encryptionKey: this.key,
      deletionProtection: props.retain,
      removalPolicy,
    });
    for (const index of globalIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
      });
    }

    this.importQueue = new ImportQueue(this, 'ImportQueue', { encryptionKey: this.key, removalPolicy });
  }
}
