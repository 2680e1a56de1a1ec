/**
 * Measurements 1 and 2, from the same runs against the child runtime:
 * - staging latency: one `POST /appid-<app>/bulk-import/users` of `n` users with a given hash
 *   (gzipped, as the README recommends), on an idle runtime (the previous run has drained);
 * - end-to-end import throughput: users/s from the start of that POST until
 *   `count?status=NEW` + `PROCESSING` = 0.
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
): Promise<{ stageMs: number; importMs: number; usersPerSecond: number }> {
  const appId = `bench-${shortId()}`;
  await createApp(runtime, appId, tableConfig(options.ownTable === true));
  const users = importUsers(`u-${shortId()}`, n, credential);
  const start = performance.now();
  const staged = await callOk(runtime, 'POST', `/appid-${appId}/bulk-import/users`, { users }, true);
  const stageMs = performance.now() - start;
  if ((staged.users as unknown[]).length !== n) throw new Error('not every user was staged');
  const done = await waitUntilImported(runtime, appId);
  const importMs = done - start;
  return { stageMs, importMs, usersPerSecond: (n * 1000) / importMs };
}
