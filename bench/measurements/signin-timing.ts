/**
 * Measurement 10: what a failed sign-in's timing tells. Four kinds of failure against one app on
 * the runtime (its default BCRYPT at the runtime's `bcrypt_log_rounds`), sent over HTTP in turns,
 * the order rotated every round:
 *
 * - `unknown`: an email no user has (the core runs the dummy verify);
 * - `appAlgorithm`: a wrong password for a user who signed up (a bcrypt hash at the app's cost);
 * - `legacyDigest`: a wrong password for a user imported with a salted SHA-256 (microseconds to
 *   check; the upgrade never runs on a failure);
 * - `argon2Empty`: an empty password for a user imported with an Argon2id hash cheaper than the
 *   app's own hashing (m = 19456, t = 2, p = 1 against bcrypt at cost 11; m = 1024, t = 1 in quick
 *   mode, where the runtime's bcrypt cost is 8). A hash costlier than the dummy verify takes its own
 *   time, as a wrong non-empty password against it does.
 *
 * Per run: the median latency of each kind and each kind's median ÷ the unknown email's. The
 * target is every ratio within 0.8–1.25 (functions/domain/users/sign-in.ts holds every failure to
 * the dummy verify's measured duration).
 */
import { createHash, randomBytes } from 'node:crypto';
import { argon2id } from 'hash-wasm';
import { call, callOk, type Runtime } from '../lib/runtime.js';
import { percentile } from '../lib/stats.js';
import { shortId } from '../lib/users.js';

const TIMING_KINDS = ['unknown', 'appAlgorithm', 'legacyDigest', 'argon2Empty'] as const;
export type TimingKind = (typeof TIMING_KINDS)[number];

const PASSWORD = 'timing-correct-password-1';

export interface TimingTarget {
  readonly appId: string;
  /** The email and the (wrong) password each kind signs in with. */
  readonly requests: Readonly<Record<TimingKind, { readonly email: string; readonly password: string }>>;
}

/** One app with a signed-up user, a legacy-digest user and an Argon2 user (`argon2`: its hash's cost). */
export async function prepareTiming(
  runtime: Runtime,
  argon2: { readonly memorySize: number; readonly iterations: number },
): Promise<TimingTarget> {
  const appId = `timing-${shortId()}`;
  const email = (kind: string) => `timing-${kind}-${shortId()}@example.com`;
  await callOk(runtime, 'PUT', '/recipe/multitenancy/app/v2', { appId, coreConfig: {} });
  const appUser = email('app');
  await callOk(runtime, 'POST', `/appid-${appId}/public/recipe/signup`, { email: appUser, password: PASSWORD });
  const salt = randomBytes(16);
  const digest = createHash('sha256')
    .update(Buffer.concat([salt, Buffer.from(PASSWORD)]))
    .digest('base64');
  const legacyUser = email('legacy');
  const template = Buffer.from('{SALT}{PASSWORD}').toString('base64');
  await importHash(runtime, appId, legacyUser, `$sha256$pf=${template}$${salt.toString('base64')}$${digest}`, 'SHA256');
  const argonUser = email('argon2');
  const argonHash = await argon2id({
    password: PASSWORD,
    salt: randomBytes(16),
    parallelism: 1,
    ...argon2,
    hashLength: 32,
    outputType: 'encoded',
  });
  await importHash(runtime, appId, argonUser, argonHash, 'ARGON2');
  return {
    appId,
    requests: {
      unknown: { email: email('nobody'), password: 'timing-wrong-password' },
      appAlgorithm: { email: appUser, password: 'timing-wrong-password' },
      legacyDigest: { email: legacyUser, password: 'timing-wrong-password' },
      argon2Empty: { email: argonUser, password: '' },
    },
  };
}

async function importHash(runtime: Runtime, appId: string, email: string, passwordHash: string, algorithm: string) {
  await callOk(runtime, 'POST', `/appid-${appId}/bulk-import/import`, {
    loginMethods: [{ recipeId: 'emailpassword', email, passwordHash, hashingAlgorithm: algorithm }],
  });
}

/** `rounds` rounds of one sign-in per kind (order rotated each round); medians and ratios. */
export async function timingRun(runtime: Runtime, target: TimingTarget, rounds: number) {
  const latencies = Object.fromEntries(TIMING_KINDS.map((k) => [k, [] as number[]])) as Record<TimingKind, number[]>;
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < TIMING_KINDS.length; i++) {
      const kind = TIMING_KINDS[(round + i) % TIMING_KINDS.length] as TimingKind;
      const body = target.requests[kind];
      const started = performance.now();
      const reply = await call(runtime, 'POST', `/appid-${target.appId}/public/recipe/signin`, body);
      const ms = performance.now() - started;
      if (reply.status !== 200 || JSON.parse(reply.text).status !== 'WRONG_CREDENTIALS_ERROR') {
        throw new Error(`sign-in ${kind}: expected WRONG_CREDENTIALS_ERROR, got ${reply.status} ${reply.text}`);
      }
      latencies[kind].push(ms);
    }
  }
  const median = (kind: TimingKind) => percentile(latencies[kind], 50);
  const unknown = median('unknown');
  return {
    unknownP50: unknown,
    appAlgorithmP50: median('appAlgorithm'),
    legacyDigestP50: median('legacyDigest'),
    argon2EmptyP50: median('argon2Empty'),
    appAlgorithmRatio: median('appAlgorithm') / unknown,
    legacyDigestRatio: median('legacyDigest') / unknown,
    argon2EmptyRatio: median('argon2Empty') / unknown,
  };
}
