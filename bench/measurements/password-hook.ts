/**
 * Measurement 12, the password-migration hook (docs/password-migration-hook.md): the first sign-in
 * of a user pending the hook, against the reference legacy endpoint
 * (bin/examples/legacy-password-endpoint.mjs) on this machine, vs a bare call of that endpoint —
 * the same signed POST, sent from the bench process — in the same run, interleaved user by user.
 * The sign-in also hashes the password once at the app's cost (bcrypt at the runtime's
 * `bcrypt_log_rounds`), measured alone here with hash-wasm, as the core hashes it: the core's
 * overhead is (sign-in − one hash) ÷ bare call.
 *
 * Second baseline: the SAME user's usual sign-in right after its first one (it now holds a bcrypt
 * hash at the app's cost, so the core reads it as for any user and verifies once at that cost).
 * Both sign-ins pay the reads every sign-in pays and one bcrypt operation at the same cost, so
 * (first sign-in − usual sign-in) ÷ bare call is what the hook adds to a sign-in, in bare calls:
 * the hook call itself plus the conditional write that stores the hash and clears the mark.
 */
import { randomBytes } from 'node:crypto';
import { bcrypt } from 'hash-wasm';
import { hookRequestBody, SIGNATURE_HEADER, signatureHeader } from '#functions/domain/password-hook/protocol.js';
import { hashForStore, startLegacyEndpoint } from '../../bin/examples/legacy-password-endpoint.mjs';
import { callOk, type Runtime } from '../lib/runtime.js';
import { percentile } from '../lib/stats.js';
import { shortId } from '../lib/users.js';

const PASSWORD = 'bench-hook-password';
const SECRET = randomBytes(24).toString('hex');

export interface HookBench {
  readonly appId: string;
  readonly url: string;
  readonly emails: string[];
  close(): Promise<void>;
}

/** The reference endpoint with `count` users per run and `runs` runs, and an app whose hook it is. */
export async function prepareHook(runtime: Runtime, count: number, runs: number): Promise<HookBench> {
  // The endpoint's own check is a cheap scrypt, so the figure is the core's overhead, not the legacy hash.
  const stored = await hashForStore(PASSWORD, { N: 1024 });
  const emails = Array.from({ length: count * runs }, (_, i) => `hook${i}-${shortId()}@example.com`);
  const endpoint = await startLegacyEndpoint({
    secret: SECRET,
    hashes: Object.fromEntries(emails.map((email) => [email, stored])),
  });
  const url = `http://127.0.0.1:${endpoint.port}/check`;
  const appId = `hook-${shortId()}`;
  await callOk(runtime, 'PUT', '/recipe/multitenancy/app/v2', {
    appId,
    coreConfig: { password_migration_hook_url: url, password_migration_hook_secret: SECRET },
  });
  for (const email of emails) {
    await callOk(runtime, 'POST', `/appid-${appId}/bulk-import/import`, {
      loginMethods: [{ recipeId: 'emailpassword', email, passwordMigration: 'hook' }],
    });
  }
  return { appId, url, emails, close: endpoint.close };
}

async function bareCall(url: string, email: string): Promise<number> {
  const timestamp = Math.floor(Date.now() / 1000);
  const body = hookRequestBody({
    appId: 'bench',
    tenantId: 'public',
    userId: 'bench',
    externalUserId: null,
    email,
    password: PASSWORD,
    timestamp,
  });
  const start = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', [SIGNATURE_HEADER]: signatureHeader(SECRET, timestamp, body) },
    body,
  });
  const answer = (await response.json()) as { status?: string };
  const ms = performance.now() - start;
  if (answer.status !== 'PASSWORD_MATCH') throw new Error(`bare call answered ${response.status}`);
  return ms;
}

async function timedSignIn(runtime: Runtime, appId: string, email: string): Promise<number> {
  const start = performance.now();
  await callOk(runtime, 'POST', `/appid-${appId}/recipe/signin`, { email, password: PASSWORD });
  return performance.now() - start;
}

/**
 * One run: `count` fresh pending users, each called bare, then first signed in through the core,
 * then signed in again (its usual sign-in, now against the hash the first one stored).
 */
export async function hookRun(runtime: Runtime, bench: HookBench, run: number, count: number, bcryptCost: number) {
  const pending: number[] = [];
  const usual: number[] = [];
  const bare: number[] = [];
  const hashes: number[] = [];
  for (const email of bench.emails.slice(run * count, (run + 1) * count)) {
    bare.push(await bareCall(bench.url, email));
    pending.push(await timedSignIn(runtime, bench.appId, email));
    usual.push(await timedSignIn(runtime, bench.appId, email));
    const hashStart = performance.now();
    await bcrypt({ password: PASSWORD, salt: randomBytes(16), costFactor: bcryptCost, outputType: 'encoded' });
    hashes.push(performance.now() - hashStart);
  }
  const p = (values: number[], q: number) => percentile(values, q);
  return {
    pendingP50: p(pending, 50),
    pendingP99: p(pending, 99),
    usualP50: p(usual, 50),
    usualP99: p(usual, 99),
    bareP50: p(bare, 50),
    bareP99: p(bare, 99),
    hashP50: p(hashes, 50),
    ratioP50: p(pending, 50) / p(bare, 50),
    ratioP99: p(pending, 99) / p(bare, 99),
    overheadRatioP50: (p(pending, 50) - p(hashes, 50)) / p(bare, 50),
    hookAddsRatioP50: (p(pending, 50) - p(usual, 50)) / p(bare, 50),
  };
}
