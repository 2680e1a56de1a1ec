/**
 * Measurement 3: import throughput with plain-text passwords, against a bare hashing baseline.
 * - System under test: one `POST /appid-<app>/bulk-import/users` of `n` users with
 *   `plainTextPassword` (the app's default `BCRYPT`, cost `bcrypt_log_rounds` of the runtime's base
 *   config), timed until `count?status=NEW` + `PROCESSING` = 0 (staging-import.ts);
 * - baseline: the same number of bcrypt hashes with the same library (hash-wasm, random 16-byte
 *   salts) and the same cost, on every core: one `node:worker_threads` worker per core, started
 *   once and reused by every run, each hashing its share of the `n` passwords sequentially.
 * Each run uses a fresh app (fresh emails), so runs are independent.
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { loadBaseConfig } from '#functions/config/base.js';
import { resolveEffectiveConfig } from '#functions/config/index.js';
import type { Runtime } from '../lib/runtime.js';
import { stageAndImport } from './staging-import.js';

const PASSWORD = 'correct horse battery staple';

/** `bcrypt_log_rounds` as the runtime resolves it from its environment (env beats base-config.json). */
export async function runtimeBcryptCost(env: Readonly<Record<string, string | undefined>>): Promise<number> {
  const base = await loadBaseConfig({ env: { ...process.env, ...env } });
  const config = resolveEffectiveConfig(base, undefined, undefined);
  if (config.passwordHashingAlg !== 'BCRYPT') throw new Error('the runtime does not default to BCRYPT');
  return config.bcryptLogRounds;
}

// CommonJS worker (eval): hash-wasm's UMD build, loaded by absolute path.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { randomBytes } = require('node:crypto');
const { bcrypt } = require(workerData.hashWasm);
parentPort.on('message', async ({ count, cost, password }) => {
  try {
    for (let i = 0; i < count; i++) {
      await bcrypt({ password, salt: randomBytes(16), costFactor: cost, outputType: 'encoded' });
    }
    parentPort.postMessage({ ok: true });
  } catch (error) {
    parentPort.postMessage({ ok: false, error: String(error) });
  }
});
`;

export interface HashingPool {
  readonly workers: number;
  /** Hashes `n` passwords at `cost` across all workers; returns the wall-clock milliseconds. */
  hash(n: number, cost: number): Promise<number>;
  close(): Promise<void>;
}

export function hashingPool(size = availableParallelism()): HashingPool {
  const hashWasm = createRequire(import.meta.url).resolve('hash-wasm');
  const workers = Array.from(
    { length: size },
    () => new Worker(WORKER_SOURCE, { eval: true, workerData: { hashWasm } }),
  );
  const job = (worker: Worker, count: number, cost: number) =>
    new Promise<void>((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      worker.once('error', onError);
      worker.once('message', (m: { ok: boolean; error?: string }) => {
        worker.off('error', onError);
        if (m.ok) resolve();
        else reject(new Error(`bare hashing failed: ${m.error}`));
      });
      worker.postMessage({ count, cost, password: PASSWORD });
    });
  return {
    workers: size,
    async hash(n, cost) {
      const start = performance.now();
      await Promise.all(workers.map((w, i) => job(w, Math.floor(n / size) + (i < n % size ? 1 : 0), cost)));
      return performance.now() - start;
    },
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}

export async function plainImportRun(runtime: Runtime, pool: HashingPool, n: number, cost: number) {
  const app = await stageAndImport(runtime, n, { kind: 'plain', plainTextPassword: PASSWORD });
  const bareMs = await pool.hash(n, cost);
  const hashesPerSecond = (n * 1000) / bareMs;
  return {
    stageMs: app.stageMs,
    appUsersPerSecond: app.usersPerSecond,
    bareHashesPerSecond: hashesPerSecond,
    ratio: app.usersPerSecond / hashesPerSecond,
  };
}
