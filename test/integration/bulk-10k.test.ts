import { afterAll, expect, it } from 'vitest';
import {
  BCRYPT_HASH,
  call,
  captureLogs,
  createApp,
  epUser,
  expectNoSecrets,
  stage,
  stagedCount,
  startPipeline,
  useOwnQueues,
  userCount,
  waitUntilDone,
} from './bulk-support.js';

const logs = captureLogs();
afterAll(() => {
  logs.restore();
  expectNoSecrets(logs.lines, [BCRYPT_HASH]);
});

// Slow on DynamoDB Local (its transactions are serialised: ~25–45 imported users/s on a busy
// 2-core machine), so this file takes several minutes; on AWS the same path scales with Lambda.
it('stages 10,000 users in one gzip request and imports them all (BulkImportFlowTest)', async () => {
  const pair = await useOwnQueues(60);
  const appId = await createApp({}, [], 'bulk10k');

  const users = Array.from({ length: 10_000 }, (_, i) => epUser(i));
  const started = Date.now();
  const res = await stage(appId, users, { gzip: true });
  const stagingMs = Date.now() - started;
  expect(res.status, res.text.slice(0, 200)).toBe(200);
  expect(res.json.users).toHaveLength(10_000);
  expect(await stagedCount(appId)).toBe(10_000);
  console.log(`10,000 users staged in ${stagingMs} ms`);

  const pipeline = await startPipeline(pair, { concurrency: 4 });
  try {
    await waitUntilDone(appId, 540_000);
  } finally {
    await pipeline.stop();
  }
  console.log(`10,000 users imported in ${Date.now() - started - stagingMs} ms`);
  expect(await stagedCount(appId, 'FAILED')).toBe(0);
  expect(await stagedCount(appId)).toBe(0);
  expect(await userCount(appId)).toBe(10_000);
  const some = await call('GET', `/appid-${appId}/bulk-import/users?status=FAILED`);
  expect(some.json.users).toEqual([]);
}, 600_000);
