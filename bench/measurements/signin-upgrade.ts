/**
 * Measurement 4, the upgrade on sign-in: what replacing a legacy hash costs.
 *
 * - Write units: one user with a legacy hash is signed in through the real sign-in handler loaded in
 *   the bench process (bin/local/dispatch.ts, the same router and handler the runtime serves), with
 *   the recording middleware on (in-process.ts): every DynamoDB call of the sign-in that upgrades, and
 *   of the next one, priced with AWS's rules (billing.ts).
 * - Latency: per run, `requests` fresh users with the same cheap legacy hash (a salted SHA-256, so
 *   the difference is the upgrade) in two apps, one with the upgrade on (the default) and one with it
 *   off; each user's first sign-in over HTTP, interleaved; then the upgraded users' second sign-in
 *   (a verify of the app's bcrypt hash). p50/p99 of each.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ROUTES } from '#functions/routes.js';
import { createRouter, dispatch } from '../../bin/local/dispatch.js';
import type { InProcess, RecordedCall } from '../lib/calls.js';
import { callOk, type Runtime } from '../lib/runtime.js';
import { percentile } from '../lib/stats.js';
import { shortId } from '../lib/users.js';
import { PASSWORD } from './signin.js';

/** A salted SHA-256 in the core's digest form (computed with node:crypto). */
function saltedSha256(): string {
  const salt = randomBytes(16);
  const digest = createHash('sha256')
    .update(Buffer.concat([salt, Buffer.from(PASSWORD)]))
    .digest();
  const b64 = (bytes: Buffer) => bytes.toString('base64');
  return `$sha256$pf=${b64(Buffer.from('{SALT}{PASSWORD}'))}$${b64(salt)}$${b64(digest)}`;
}

async function appWithUsers(runtime: Runtime, upgrade: boolean, count: number) {
  const appId = `upgrade-${upgrade ? 'on' : 'off'}-${shortId()}`;
  await callOk(runtime, 'PUT', '/recipe/multitenancy/app/v2', {
    appId,
    coreConfig: upgrade ? {} : { legacy_password_hash_upgrade_enabled: false },
  });
  const emails: string[] = [];
  for (let i = 0; i < count; i++) {
    const email = `u${i}-${shortId()}@example.com`;
    await callOk(runtime, 'POST', `/appid-${appId}/bulk-import/import`, {
      loginMethods: [{ recipeId: 'emailpassword', email, passwordHash: saltedSha256(), hashingAlgorithm: 'SHA256' }],
    });
    emails.push(email);
  }
  return { appId, emails };
}

async function timedSignIn(runtime: Runtime, appId: string, email: string): Promise<number> {
  const start = performance.now();
  // callOk throws unless the answer is 200 with status OK.
  await callOk(runtime, 'POST', `/appid-${appId}/recipe/signin`, { email, password: PASSWORD });
  return performance.now() - start;
}

export async function upgradeLatencyRun(runtime: Runtime, requests: number) {
  const on = await appWithUsers(runtime, true, requests);
  const off = await appWithUsers(runtime, false, requests);
  const upgrading: number[] = [];
  const kept: number[] = [];
  for (let i = 0; i < requests; i++) {
    upgrading.push(await timedSignIn(runtime, on.appId, on.emails[i] as string));
    kept.push(await timedSignIn(runtime, off.appId, off.emails[i] as string));
  }
  const after: number[] = [];
  for (const email of on.emails) after.push(await timedSignIn(runtime, on.appId, email));
  return {
    upgradeP50: percentile(upgrading, 50),
    upgradeP99: percentile(upgrading, 99),
    noUpgradeP50: percentile(kept, 50),
    noUpgradeP99: percentile(kept, 99),
    extraP50: percentile(upgrading, 50) - percentile(kept, 50),
    upgradedNextP50: percentile(after, 50),
    upgradedNextP99: percentile(after, 99),
  };
}

const sum = (values: number[]) => values.reduce((s, v) => s + v, 0);

function units(calls: readonly RecordedCall[]) {
  const writes = calls.filter((c) => c.kind === 'write');
  const tableWrite = sum(writes.map((c) => c.computed?.tableWriteUnits ?? 0));
  const indexWrite = sum(writes.flatMap((c) => Object.values(c.computed?.indexWriteUnits ?? {})));
  return {
    writeCalls: writes.length,
    tableWriteUnits: tableWrite,
    indexWriteUnits: indexWrite,
    writeUnits: tableWrite + indexWrite,
    readUnits: sum(calls.map((c) => c.computed?.readUnits ?? 0)),
  };
}

/**
 * The DynamoDB calls of one upgrading sign-in and of the next one, through the real handler in this
 * process, priced with AWS's rules. Returns the units and the upgrade write's commands.
 */
export async function recordUpgrade(runtime: Runtime, inProcess: InProcess) {
  const { appId, emails } = await appWithUsers(runtime, true, 1);
  const router = createRouter(ROUTES);
  const signIn = async (phase: string) => {
    inProcess.phase = phase;
    const reply = await dispatch(router, {
      method: 'POST',
      url: `/appid-${appId}/recipe/signin`,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify({ email: emails[0], password: PASSWORD })),
    });
    if (!reply.body.includes('"status":"OK"')) throw new Error(`sign-in failed: ${reply.statusCode} ${reply.body}`);
    return inProcess.calls.filter((c) => c.phase === phase);
  };
  const previous = { images: inProcess.images, phase: inProcess.phase };
  inProcess.images = true;
  try {
    const upgrading = await signIn('signin-upgrade');
    const next = await signIn('signin-after-upgrade');
    return {
      upgrade: units(upgrading),
      next: units(next),
      upgradeWrites: upgrading.filter((c) => c.kind === 'write').map((c) => c.command),
      indexWrites: Object.fromEntries(
        upgrading
          .filter((c) => c.kind === 'write')
          .flatMap((c) => Object.entries(c.computed?.indexWriteUnits ?? {}))
          .filter(([, n]) => n > 0),
      ),
      userItemBytes: Math.max(
        0,
        ...upgrading.flatMap((c) => c.actions.map((a) => Math.max(a.beforeBytes, a.afterBytes))),
      ),
    };
  } finally {
    inProcess.images = previous.images;
    inProcess.phase = previous.phase;
  }
}
