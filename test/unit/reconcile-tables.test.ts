/**
 * The reconciler across tables (in-memory fakes of the staging ports): apps come from the markers,
 * each app's rows from the store of its own table.
 */
import { describe, expect, it } from 'vitest';
import type { ImportMessage } from '#functions/domain/bulk-import/message.js';
import { MARKER_QUIET_MS, type ReconcileDeps, reconcileStagedUsers } from '#functions/domain/bulk-import/reconcile.js';
import type {
  StagedStatus,
  StagingAppMarker,
  StagingAppMarkers,
  StagingStore,
} from '#functions/domain/bulk-import/staging-ports.js';

const NOW = 1_800_000_000_000;

interface Row {
  readonly appId: string;
  readonly id: string;
  status: StagedStatus;
  sentAt: number;
}

/** One table's staged rows (only what the reconciler uses). */
function tableStore(rows: Row[], fail = false): StagingStore {
  const unused = async (): Promise<never> => {
    throw new Error('not used by the reconciler');
  };
  return {
    insertNewOnce: unused,
    get: unused,
    claim: unused,
    claimMany: unused,
    fail: unused,
    noteTransientError: unused,
    removeImported: unused,
    remove: unused,
    list: unused,
    async count(appId, status) {
      if (fail) throw Object.assign(new Error('no table'), { name: 'ResourceNotFoundException' });
      return rows.filter((r) => r.appId === appId && (status === undefined || r.status === status)).length;
    },
    async pendingSentBefore(appId, sentBefore, visit) {
      const due = rows.filter((r) => r.appId === appId && r.status !== 'FAILED' && r.sentAt < sentBefore);
      if (due.length > 0) await visit(due.map(({ appId: a, id }) => ({ appId: a, id })));
    },
    async markSent(appId, id, now) {
      const row = rows.find((r) => r.appId === appId && r.id === id);
      if (row) row.sentAt = now;
    },
  };
}

function setup(markers: StagingAppMarker[], apps: Record<string, { table: string; store: StagingStore }>) {
  const sent: ImportMessage[] = [];
  const warnings: { message: string; fields: Record<string, unknown> }[] = [];
  const kept = [...markers];
  const markerPort: StagingAppMarkers = {
    list: async () => [...kept],
    async remove(appId, stagedAt) {
      const i = kept.findIndex((m) => m.appId === appId && m.stagedAt === stagedAt);
      if (i >= 0) kept.splice(i, 1);
    },
  };
  const deps: ReconcileDeps = {
    markers: markerPort,
    appStore: async (appId) => apps[appId],
    publisher: { publish: async (messages) => void sent.push(...messages) },
    now: () => NOW,
    warn: (message, fields) => void warnings.push({ message, fields }),
  };
  return { deps, sent, warnings, kept };
}

const row = (appId: string, id: string, status: StagedStatus = 'NEW', sentAt = NOW - 60_000): Row => ({
  appId,
  id,
  status,
  sentAt,
});

describe('reconcileStagedUsers across tables', () => {
  it("re-sends each marked app's lost rows from the table its configuration names", async () => {
    const own = [row('a', 'a1'), row('a', 'a2', 'PROCESSING'), row('a', 'a3', 'FAILED')];
    const shared = [row('c', 'c1'), row('d', 'd1', 'NEW', NOW)];
    const { deps, sent } = setup(
      [
        { appId: 'a', stagedAt: NOW, table: 'table-a' },
        { appId: 'c', stagedAt: NOW, table: 'shared' },
        { appId: 'd', stagedAt: NOW, table: 'shared' },
      ],
      {
        a: { table: 'table-a', store: tableStore(own) },
        c: { table: 'shared', store: tableStore(shared) },
        d: { table: 'shared', store: tableStore(shared) },
      },
    );
    expect(await reconcileStagedUsers(deps, NOW - 1)).toEqual({ resent: 3 });
    expect(sent.map((m) => `${m.appId}/${m.id}`).sort()).toEqual(['a/a1', 'a/a2', 'c/c1']);
    // Sent now: the next run leaves them alone.
    expect(await reconcileStagedUsers(deps, NOW - 1)).toEqual({ resent: 0 });
  });

  it('forgets the marker of an app that is gone, or quiet with nothing pending', async () => {
    const { deps, kept } = setup(
      [
        { appId: 'gone', stagedAt: NOW - 1 },
        { appId: 'quiet', stagedAt: NOW - MARKER_QUIET_MS - 1 },
        { appId: 'recent', stagedAt: NOW - 1 },
      ],
      {
        quiet: { table: 't', store: tableStore([row('quiet', 'q', 'FAILED')]) },
        recent: { table: 't', store: tableStore([]) },
      },
    );
    await reconcileStagedUsers(deps, NOW);
    expect(kept.map((m) => m.appId)).toEqual(['recent']);
  });

  it('says so, and keeps the marker, when rows were staged into a table the app no longer uses', async () => {
    const { deps, warnings, kept } = setup([{ appId: 'a', stagedAt: NOW - MARKER_QUIET_MS - 1, table: 'old' }], {
      a: { table: 'new', store: tableStore([]) },
    });
    await reconcileStagedUsers(deps, NOW);
    expect(warnings).toEqual([
      {
        message: 'staged users may remain in a table the app no longer uses',
        fields: { appId: 'a', stagedIn: 'old', appTable: 'new' },
      },
    ]);
    expect(kept).toHaveLength(1);
  });

  it("reconciles every other app when one app's table fails, then reports the failure", async () => {
    const { deps, sent, warnings } = setup(
      [
        { appId: 'broken', stagedAt: NOW },
        { appId: 'fine', stagedAt: NOW },
      ],
      {
        broken: { table: 'deleted', store: tableStore([], true) },
        fine: { table: 't', store: tableStore([row('fine', 'f1')]) },
      },
    );
    await expect(reconcileStagedUsers(deps, NOW)).rejects.toThrow(
      'reconciling 1 app(s) failed (1 staged users re-sent)',
    );
    expect(sent.map((m) => m.id)).toEqual(['f1']);
    expect(warnings).toEqual([
      {
        message: 'could not reconcile the staged users of an app',
        fields: { appId: 'broken', error: 'ResourceNotFoundException' },
      },
    ]);
  });
});
