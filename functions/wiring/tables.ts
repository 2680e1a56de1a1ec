/**
 * Which table holds what: the one place that decides it. Apps, tenants and configuration live in
 * the base table; everything an app owns (users, roles, metadata, TOTP devices, staged rows,
 * counters, markers) lives in the app's table, read from the app's effective configuration — the
 * configuration a request has already resolved, so finding the table costs no read. Today every
 * app's table is the base table.
 */
import type { EffectiveConfig } from '#functions/config/index.js';
import { baseTable, type Table } from '#functions/storage/kit/index.js';

export { baseTable };

/** The table holding what the app of this effective configuration owns. */
export function appTable(_config: EffectiveConfig): Table {
  return baseTable;
}

/** The table of an app known only by id (app deletion, which runs from the base table's view). */
export function appTableById(_appId: string): Table {
  return baseTable;
}
