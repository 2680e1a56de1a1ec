/**
 * A DynamoDB table as the stores see it: its name and the client that reaches it. Every store is
 * built for one table (`createUserStore(table)` …), so which table holds an app's items is decided
 * once, where the stores are built (functions/wiring/), not by a module constant.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '#functions/shared/clients.js';

export interface Table {
  /** Read when a call is made (the environment may be completed after the store is built). */
  readonly name: string;
  readonly client: () => DynamoDBDocumentClient;
}

/** A table reached with the process's shared DocumentClient. */
export function tableNamed(name: string): Table {
  return { name, client: getDocumentClient };
}

/**
 * The base table (`TABLE_NAME`): apps, tenants and configuration, and — until an app names a table
 * of its own — everything the apps own.
 */
export const baseTable: Table = {
  get name() {
    return tableName();
  },
  client: getDocumentClient,
};

export type Key = { PK: string; SK: string };
export type Item = Record<string, unknown>;

/** A key as one string (for sets and maps of keys). */
export const keyString = (key: Key): string => `${key.PK}\u0000${key.SK}`;

/** A time in epoch milliseconds as the table's TTL attribute (`expiresAt`) holds it: epoch seconds, rounded up. */
export const ttlSeconds = (ms: number) => Math.ceil(ms / 1000);

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Jittered exponential backoff: the pause before retry `attempt` (1, 2 …), at most `capMs`. */
export const backoffMs = (attempt: number, baseMs = 20, capMs = 2000) =>
  Math.min(capMs, baseMs * 2 ** attempt) * (0.5 + Math.random());
