/**
 * Which table holds what: the one place that decides it. Apps, tenants and configuration live in
 * the base table (`TABLE_NAME`); everything an app owns (users, roles, metadata, TOTP devices,
 * staged rows, counters) lives in the app's table — its `dynamodb_table_name`, or the base table
 * when unset — read from the app's effective configuration: the configuration a request has
 * already resolved, so finding the table costs no read. The apps' staging markers stay in the
 * base table (the reconciler finds every app's pending rows from there, whatever their table).
 */
import type { EffectiveConfig } from '#functions/config/index.js';
import type { AppTables } from '#functions/domain/multitenancy/ports.js';
import { ENV, optionalEnv } from '#functions/shared/env.js';
import { appHoldings } from '#functions/storage/app-purge.js';
import { baseTable, createTableIfMissing, type Table, tableNamed, tableProblem } from '#functions/storage/kit/index.js';

export { baseTable };

/** The table of this name (the base table itself when the name is the base table's). */
const tableOfName = (name: string | undefined): Table =>
  name === undefined || name === baseTable.name ? baseTable : tableNamed(name);

/** The table holding what the app of this effective configuration owns. */
export const appTable = (config: EffectiveConfig): Table => tableOfName(config.appTableName);

/**
 * Whether this runtime creates the tables apps name. Only the local runtime sets it (against
 * DynamoDB Local, never against AWS): there, naming a table in an app's config is all it takes. On
 * AWS tables come from the stack (`-c appTables=…`) or the operator, and are only checked.
 */
const provisionsTables = () => optionalEnv(ENV.createTables) === 'true';

/** The app use cases' view of the tables (config validation of `dynamodb_table_name`). */
export const appTables: AppTables = {
  baseTableName: () => baseTable.name,
  async tableProblem(name) {
    const table = tableOfName(name);
    if (provisionsTables()) await createTableIfMissing(table);
    return tableProblem(table);
  },
  appHoldings: (appId, name) => appHoldings(tableOfName(name), appId),
};
