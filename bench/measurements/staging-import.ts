/**
 * Measurements 1 and 2, from the same runs against the child runtime:
 * - staging latency: one `POST /appid-<app>/bulk-import/users` of `n` users with a given hash
 *   (gzipped, as docs/bulk-import.md recommends), on an idle runtime (the previous run has drained);
 * - end-to-end import throughput: users/s from the start of that POST until
 *   `count?status=NEW` + `PROCESSING` = 0;
 * - the dry run of the same request (`?dryRun=true`), before staging (no conflict) and after the
 *   import (every user conflicts): it reads every key the import's conditions check.
 * Each run uses a fresh app (fresh emails), so runs are independent; `ownTable` puts the app on a
 * table of its own (`dynamodb_table_name`, created by the runtime) instead of the base table.
 */
import { callOk, createApp, type Runtime, tableConfig, waitUntilImported } from '../lib/runtime.js';
import { type Credential, importUsers, shortId } from '../lib/users.js';

export async function stageAndImport(
  runtime: Runtime,
  n: number,
  credential: Credential,
  options: { ownTable?: boolean } = {},
): Promise<{ stageMs: number; importMs: number; usersPerSecond: number; dryRunMs: number; dryRunConflictsMs: number }> {
  const appId = `bench-${shortId()}`;
  await createApp(runtime, appId, tableConfig(options.ownTable === true));
  const users = importUsers(`u-${shortId()}`, n, credential);
  const dryRun = async (conflicts: number) => {
    const started = performance.now();
    const checked = await callOk(runtime, 'POST', `/appid-${appId}/bulk-import/users?dryRun=true`, { users }, true);
    const ms = performance.now() - started;
    if ((checked.conflicts as unknown[]).length !== conflicts) throw new Error('the dry run missed conflicts');
    return ms;
  };
  const dryRunMs = await dryRun(0);
  const start = performance.now();
  const staged = await callOk(runtime, 'POST', `/appid-${appId}/bulk-import/users`, { users }, true);
  const stageMs = performance.now() - start;
  if ((staged.users as unknown[]).length !== n) throw new Error('not every user was staged');
  const done = await waitUntilImported(runtime, appId);
  const importMs = done - start;
  const dryRunConflictsMs = await dryRun(n);
  return { stageMs, importMs, usersPerSecond: (n * 1000) / importMs, dryRunMs, dryRunConflictsMs };
}
