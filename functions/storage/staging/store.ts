/**
 * The staged-users store (the bulk-import ports of functions/domain/bulk-import/staging-ports.ts)
 * for one table. Its jobs live beside it: rows.ts (items), lifecycle.ts (status changes),
 * listing.ts (list, count), reconcile-scan.ts (the reconciler's read), purge.ts (app deletion).
 */
import type { StagingStore } from '#functions/domain/bulk-import/staging-ports.js';
import type { Table } from '../kit/index.js';
import {
  claim,
  claimMany,
  fail,
  getRow,
  insertNew,
  markSent,
  noteTransientError,
  remove,
  removeImported,
} from './lifecycle.js';
import { countOf, list } from './listing.js';
import { pendingSentBefore } from './reconcile-scan.js';

export function createStagingStore(table: Table): StagingStore {
  return {
    insertNew: (appId, users, now) => insertNew(table, appId, users, now),
    get: (appId, id) => getRow(table, appId, id),
    claim: (appId, id, now) => claim(table, appId, id, now),
    claimMany: (appId, ids, now) => claimMany(table, appId, ids, now),
    fail: (appId, id, from, message, now) => fail(table, appId, id, from, message, now),
    noteTransientError: (appId, id, message, now, kind) => noteTransientError(table, appId, id, message, now, kind),
    removeImported: (appId, id) => removeImported(table, appId, id),
    remove: (appId, ids) => remove(table, appId, ids),
    list: (appId, query) => list(table, appId, query),
    count: (appId, status) => countOf(table, appId, status ? [status] : undefined),
    pendingSentBefore: (sentBefore, visit) => pendingSentBefore(table, sentBefore, visit),
    markSent: (appId, id, now) => markSent(table, appId, id, now),
  };
}
