/**
 * Measurement 4: sign-in latency per hash format, against a bare verify of the same hash.
 * One user per format is imported (`POST /bulk-import/import`, the hash given); each run then
 * signs in `requests` times sequentially over HTTP, and verifies the same hash `requests` times
 * in the bench process with hash-wasm (the library the core verifies with). p50/p99 per run.
 */
import { argon2id, argon2Verify, bcrypt, bcryptVerify } from 'hash-wasm';
import { callOk, createApp, type Runtime } from '../lib/runtime.js';
import { percentile } from '../lib/stats.js';
import { shortId } from '../lib/users.js';

export interface HashFormat {
  readonly name: string;
  readonly hashingAlgorithm: 'BCRYPT' | 'ARGON2';
  readonly hash: string;
  readonly verify: (password: string, hash: string) => Promise<boolean>;
}

const PASSWORD = 'correct horse battery staple';

export async function hashFormats(): Promise<HashFormat[]> {
  const salt = () => crypto.getRandomValues(new Uint8Array(16));
  return [
    {
      name: 'bcrypt (cost 10)',
      hashingAlgorithm: 'BCRYPT',
      hash: await bcrypt({ password: PASSWORD, salt: salt(), costFactor: 10, outputType: 'encoded' }),
      verify: (password, hash) => bcryptVerify({ password, hash }),
    },
    {
      name: 'argon2id (m=19456 t=2 p=1)',
      hashingAlgorithm: 'ARGON2',
      hash: await argon2id({
        password: PASSWORD,
        salt: salt(),
        parallelism: 1,
        iterations: 2,
        memorySize: 19456,
        hashLength: 32,
        outputType: 'encoded',
      }),
      verify: (password, hash) => argon2Verify({ password, hash }),
    },
  ];
}

export async function prepareSignIn(runtime: Runtime, format: HashFormat): Promise<{ appId: string; email: string }> {
  const appId = `signin-${shortId()}`;
  const email = `signin-${shortId()}@example.com`;
  await createApp(runtime, appId);
  await callOk(runtime, 'POST', `/appid-${appId}/bulk-import/import`, {
    loginMethods: [
      { recipeId: 'emailpassword', email, passwordHash: format.hash, hashingAlgorithm: format.hashingAlgorithm },
    ],
  });
  return { appId, email };
}

export async function signInRun(
  runtime: Runtime,
  format: HashFormat,
  target: { appId: string; email: string },
  requests: number,
) {
  const http: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < requests; i++) {
    let start = performance.now();
    await callOk(runtime, 'POST', `/appid-${target.appId}/recipe/signin`, { email: target.email, password: PASSWORD });
    http.push(performance.now() - start);
    start = performance.now();
    if (!(await format.verify(PASSWORD, format.hash))) throw new Error(`bare verify failed for ${format.name}`);
    bare.push(performance.now() - start);
  }
  return {
    signInP50: percentile(http, 50),
    signInP99: percentile(http, 99),
    verifyP50: percentile(bare, 50),
    verifyP99: percentile(bare, 99),
    ratioP50: percentile(http, 50) / percentile(bare, 50),
  };
}
