/**
 * The staged-users store (the bulk-import ports of functions/domain/bulk-import/staging-ports.ts)
 * for one table; the apps' staging markers live in `markers` (the base table). Its jobs live
 * beside it: rows.ts (items and their conditions), insert.ts (inserting, group by group),
 * status.ts (claims, FAILED, removal), shard-writes.ts (the per-shard transactions both use), sealing.ts and credentials.ts (credentials at rest), listing.ts (list, count),
 * reconcile-scan.ts (the reconciler's reads), purge.ts (app deletion).
 */
import type { StagingStore } from '#functions/domain/bulk-import/staging-ports.js';
import type { Envelope } from '../crypto/envelope.js';
import type { Table } from '../kit/index.js';
import { insertNewOnce } from './insert.js';
import { countOf, list } from './listing.js';
import { pendingSentBefore } from './reconcile-scan.js';
import { StagedCredentials } from './sealing.js';
import { claim, claimMany, fail, getRow, markSent, noteTransientError, remove, removeImported } from './status.js';

/**
 * The apps' staging markers live in `markers` (the base table). `envelope` seals the rows'
 * credentials at staging and opens them for the import (sealing.ts); it is asked for only then,
 * so the status API and the reconciler never need the key.
 */
export function createStagingStore(table: Table, markers: Table, envelope: () => Envelope): StagingStore {
  const sealing = new StagedCredentials(table, envelope);
  const target = { table, markers, sealing };
  return {
    insertNewOnce: (appId, users, now, once, pace) => insertNewOnce(target, appId, users, now, once, pace),
    get: (appId, id) => getRow(table, appId, id),
    claim: (appId, id, now) => claim(table, sealing, appId, id, now),
    claimMany: (appId, ids, now) => claimMany(table, sealing, appId, ids, now),
    fail: (row, message, now) => fail(table, row, message, now),
    noteTransientError: (appId, id, message, now, kind) => noteTransientError(table, appId, id, message, now, kind),
    removeImported: (appId, id) => removeImported(table, appId, id),
    remove: (appId, ids) => remove(table, appId, ids),
    list: (appId, query) => list(table, appId, query),
    count: (appId, status) => countOf(table, appId, status ? [status] : undefined),
    pendingSentBefore: (appId, sentBefore, visit) => pendingSentBefore(table, appId, sentBefore, visit),
    markSent: (appId, id, now) => markSent(table, appId, id, now),
  };
}
