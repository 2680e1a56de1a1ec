/**
 * The stage's DynamoDB tables: the base table (apps, tenants, configuration, and the data of every
 * app without a table of its own) and the app tables (`-c appTables=<name>,…`), all built from the
 * one shared definition (functions/storage/table.ts) with the same protections.
 *
 * Naming: the base table keeps the name CloudFormation generated for it (naming it now would
 * replace it, data and all). App tables get deterministic names under the stage's prefix,
 * `auth-core.<stage>.<name>`, and the functions' grants cover exactly that prefix (and its
 * indexes), so an operator can add an app table later without redeploying code. A stage name
 * cannot contain a dot, so no stage's prefix is the start of another stage's.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption, type WarmThroughput } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { TABLE_SCHEMA } from '#functions/storage/table.js';

/** The table-name prefix of a stage's app tables (and of any table its functions may use besides the base table). */
export const appTablePrefixOf = (stage: string): string => `auth-core.${stage}.`;

/** Characters an app-table name given in context may use (DynamoDB's, whole name ≤ 255). */
const APP_TABLE_NAME = /^[A-Za-z0-9_.-]+$/;

/**
 * The full names of the app tables `-c appTables=<name>,<name>` asks for, or the reason they
 * cannot be created (a problem for the caller to report).
 */
export function appTableNames(prefix: string, list: string | undefined): { names: string[] } | { problem: string } {
  if (list === undefined) return { names: [] };
  const names = list.split(',').map((n) => n.trim());
  for (const name of names) {
    if (!APP_TABLE_NAME.test(name) || prefix.length + name.length > 255) {
      return {
        problem: `context appTables must be comma-separated names of letters, digits, '_', '-' and '.' (each table is named ${prefix}<name>, at most 255 characters), got "${list}"`,
      };
    }
  }
  if (new Set(names).size !== names.length) return { problem: `context appTables names a table twice: "${list}"` };
  return { names: names.map((n) => `${prefix}${n}`) };
}

export interface CoreTableProps {
  /** @default - a name CloudFormation generates (the base table) */
  readonly tableName?: string;
  /** The customer-managed key the table is encrypted with. */
  readonly encryptionKey: IKey;
  /** Retained and deletion-protected; false only for a throw-away stage. */
  readonly retain: boolean;
  /** Applied to the table and each index. @default none */
  readonly warmThroughput?: WarmThroughput;
}

/**
 * One of this core's tables: keys and indexes from the shared definition, on-demand billing, the
 * TTL attribute, point-in-time recovery, encryption with the customer-managed key, deletion
 * protection and retention (unless the stage is a throw-away one).
 */
export function coreTable(scope: Construct, id: string, props: CoreTableProps): Table {
  const { partitionKey, sortKey, globalIndexes, ttlAttribute } = TABLE_SCHEMA;
  const table = new Table(scope, id, {
    ...(props.tableName === undefined ? {} : { tableName: props.tableName }),
    partitionKey: { name: partitionKey, type: AttributeType.STRING },
    sortKey: { name: sortKey, type: AttributeType.STRING },
    billingMode: BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: ttlAttribute,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    encryption: TableEncryption.CUSTOMER_MANAGED,
    encryptionKey: props.encryptionKey,
    deletionProtection: props.retain,
    removalPolicy: props.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    ...(props.warmThroughput ? { warmThroughput: props.warmThroughput } : {}),
  });
  for (const index of globalIndexes) {
    table.addGlobalSecondaryIndex({
      indexName: index.indexName,
      partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
      sortKey: { name: index.sortKey, type: AttributeType.STRING },
      ...(props.warmThroughput ? { warmThroughput: props.warmThroughput } : {}),
    });
  }
  return table;
}
