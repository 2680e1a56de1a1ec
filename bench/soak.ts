/**
 * `npm run soak [-- --minutes=10] [-- --concurrency=N] [-- --import-users=10000]`: the soak
 * (docs/soak.md; not part of `npm test` nor of `npm run bench`). Bounded: it stops by itself after
 * the ramp, the given minutes and the accounting, and talks only to the local runtime it starts.
 *
 * 1. Starts the real local runtime (`npm start`'s: DynamoDB Local persisted, fauxqs, the pollers,
 *    the hashing threads) as a child process, and an app with MFA on; seeds users with a cheap
 *    imported bcrypt hash (upgraded at their first sign-in) and gives some a verified TOTP device.
 * 2. Unless `--concurrency` is given, finds where the core saturates: the same mix for 20 s at 2,
 *    4, 8, 16 and 32 clients; the soak's concurrency is the smallest whose throughput is within
 *    10 % of the best.
 * 3. Drives the mix for `--minutes` with that many clients, each looping over weighted random
 *    operations: sign-up, sign-in with the right password (followed by a session, as the SDK
 *    does) and with a wrong one, session verify and refresh, passwordless code and consume, TOTP
 *    verify; at half time it stages `--import-users` users (10 requests) and waits for the import
 *    while the mix goes on. Every answer is counted by route and status; a 5xx other than a 503
 *    with `Retry-After`, or an answer other than the one expected, is an anomaly.
 * 4. Samples the RSS of the runtime's processes (the core's node process with its worker threads,
 *    DynamoDB Local's JVM, any other child) and the load average every 5 s.
 * 5. Accounts for everything afterwards: the users the core counts and lists are exactly those
 *    created (each email once), every session created is listed for its user, no staged row is
 *    left NEW, PROCESSING or FAILED.
 *
 * Writes bench/results/soak.json and soak.md (not committed); docs/soak.md publishes a run.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { resolve } from 'node:path';
import bcrypt from 'bcryptjs';
import * as OTPAuth from 'otpauth';
import { type Runtime, startRuntime } from './lib/runtime.js';
import { percentile, round } from './lib/stats.js';
import { shortId } from './lib/users.js';

const args = process.argv.slice(2);
const arg = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const MINUTES = Number(arg('minutes') ?? 10);
const FIXED_CONCURRENCY = arg('concurrency') === undefined ? undefined : Number(arg('concurrency'));
const IMPORT_USERS = Number(arg('import-users') ?? 10_000);
const RAMP_LEVELS = [2, 4, 8, 16, 32];
const RAMP_SECONDS = 20;
const SEED_USERS = 200;
const TOTP_USERS = 100;
const PASSWORD = 'soak-password-correct-1';
const REQUEST_TIMEOUT_MS = 120_000;
const log = (line: string) => process.stdout.write(`${line}\n`);

// ------------------------------------------------------------------------------------------------
// What is recorded

interface Answer {
  readonly route: string;
  readonly status: number;
  readonly ms: number;
  /** Seconds since the soak started (the ramp's answers have negative times). */
  readonly at: number;
}

const answers: Answer[] = [];
const anomalies: string[] = [];
let soakStarted = performance.now();
let phase: 'setup' | 'ramp' | 'soak' | 'accounting' = 'setup';

let runtime: Runtime;
let base = '';

async function request(
  route: string,
  method: string,
  path: string,
  body?: unknown,
  extraHeaders: Record<string, string> = {},
) {
  const started = performance.now();
  let status = 0;
  let text = '';
  let retryAfter: string | null = null;
  try {
    const reply = await runtime.process.fetch(`${base}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...extraHeaders },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    status = reply.status;
    retryAfter = reply.headers.get('retry-after');
    text = await reply.text();
  } catch (error) {
    anomalies.push(`${route}: no answer (${(error as Error).name}: ${(error as Error).message})`);
  }
  const ms = performance.now() - started;
  if (phase === 'ramp' || phase === 'soak') answers.push({ route, status, ms, at: (started - soakStarted) / 1000 });
  if (status >= 500 && !(status === 503 && retryAfter !== null)) {
    anomalies.push(
      `${route}: ${status} ${retryAfter === null ? 'without' : 'with'} Retry-After: ${text.slice(0, 200)}`,
    );
  }
  let json: Record<string, any> | undefined;
  try {
    json = text === '' ? undefined : (JSON.parse(text) as Record<string, any>);
  } catch {
    json = undefined;
  }
  return { status, json, text };
}

/** A write whose outcome the client cannot know: no answer, or a 5xx. */
const uncertain = (status: number) => status === 0 || status >= 500;

/** An answer that is not the expected one (200 with `status` among `expected`); 503 is allowed. */
function expectStatus(route: string, reply: { status: number; json?: Record<string, any> }, ...expected: string[]) {
  if (reply.status === 503) return false;
  if (reply.status === 200 && expected.includes(reply.json?.status)) return true;
  anomalies.push(
    `${route}: expected ${expected.join(' or ')}, got ${reply.status} ${JSON.stringify(reply.json)?.slice(0, 200)}`,
  );
  return false;
}

// ------------------------------------------------------------------------------------------------
// What the soak created, for the accounting

interface PasswordUser {
  readonly email: string;
  readonly password: string;
  id?: string;
}
interface Session {
  readonly userId: string;
  readonly handle: string;
  accessToken: string;
  refreshToken: string;
}
interface TotpUser {
  readonly userId: string;
  readonly totp: OTPAuth.TOTP;
  lastStep: number;
}

const passwordUsers: PasswordUser[] = [];
/** Emails a write answered 503 for: the user may or may not exist (at most once). */
const uncertainEmails = new Set<string>();
const passwordlessEmails = new Set<string>();
const sessions: Session[] = [];
const idleSessions: Session[] = [];
const totpUsers: TotpUser[] = [];
const importedEmails: string[] = [];
let signUps = 0;

const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(Math.random() * items.length)];

// ------------------------------------------------------------------------------------------------
// The operations of the mix

const sessionBody = (userId: string) => ({
  userId,
  userDataInJWT: {},
  userDataInDatabase: {},
  enableAntiCsrf: false,
  useDynamicSigningKey: true,
});

async function createSession(userId: string) {
  const reply = await request('session create', 'POST', '/public/recipe/session', sessionBody(userId));
  if (!expectStatus('session create', reply, 'OK')) return;
  const session = {
    userId,
    handle: reply.json?.session.handle as string,
    accessToken: reply.json?.accessToken.token as string,
    refreshToken: reply.json?.refreshToken.token as string,
  };
  sessions.push(session);
  idleSessions.push(session);
}

async function signUp() {
  const user: PasswordUser = { email: `su-${shortId(12)}@soak.example`, password: PASSWORD };
  const reply = await request('sign-up', 'POST', '/public/recipe/signup', {
    email: user.email,
    password: user.password,
  });
  if (uncertain(reply.status)) uncertainEmails.add(user.email);
  if (!expectStatus('sign-up', reply, 'OK')) return;
  user.id = reply.json?.user.id;
  passwordUsers.push(user);
  signUps += 1;
}

async function signIn(right: boolean) {
  const user = pick(passwordUsers);
  if (!user) return signUp();
  const route = right ? 'sign-in' : 'sign-in, wrong password';
  const reply = await request(route, 'POST', '/public/recipe/signin', {
    email: user.email,
    password: right ? user.password : `${user.password}-wrong`,
  });
  if (!expectStatus(route, reply, right ? 'OK' : 'WRONG_CREDENTIALS_ERROR')) return;
  if (right) await createSession(reply.json?.user.id);
}

/** A session no other client is using (refresh tokens rotate: two refreshes at once look like theft). */
function checkOutSession(): Session | undefined {
  if (idleSessions.length === 0) return undefined;
  const i = Math.floor(Math.random() * idleSessions.length);
  return idleSessions.splice(i, 1)[0];
}

async function verifySession() {
  const session = checkOutSession();
  if (!session) return signIn(true);
  try {
    const reply = await request('session verify', 'POST', '/recipe/session/verify', {
      accessToken: session.accessToken,
      doAntiCsrfCheck: false,
      enableAntiCsrf: false,
      checkDatabase: true,
    });
    if (expectStatus('session verify', reply, 'OK') && reply.json?.accessToken?.token) {
      session.accessToken = reply.json.accessToken.token;
    }
  } finally {
    idleSessions.push(session);
  }
}

async function refreshSession() {
  const session = checkOutSession();
  if (!session) return signIn(true);
  try {
    const reply = await request('session refresh', 'POST', '/recipe/session/refresh', {
      refreshToken: session.refreshToken,
      enableAntiCsrf: false,
      useDynamicSigningKey: true,
    });
    if (expectStatus('session refresh', reply, 'OK')) {
      session.accessToken = reply.json?.accessToken.token;
      session.refreshToken = reply.json?.refreshToken.token;
    }
  } finally {
    idleSessions.push(session);
  }
}

async function passwordless() {
  // Half new emails, half returning ones.
  const returning = Math.random() < 0.5 ? pick([...passwordlessEmails]) : undefined;
  const email = returning ?? `pl-${shortId(12)}@soak.example`;
  const created = await request('passwordless code', 'POST', '/public/recipe/signinup/code', { email });
  if (!expectStatus('passwordless code', created, 'OK')) return;
  const consumed = await request('passwordless consume', 'POST', '/public/recipe/signinup/code/consume', {
    preAuthSessionId: created.json?.preAuthSessionId,
    deviceId: created.json?.deviceId,
    userInputCode: created.json?.userInputCode,
  });
  if (uncertain(consumed.status) && !returning) uncertainEmails.add(email);
  // Consuming a code removes every device of its email (docs/passwordless.md): another client
  // signing the same returning email in at the same time ends this flow, as it should.
  const accepted = returning ? ['OK', 'RESTART_FLOW_ERROR'] : ['OK'];
  if (!expectStatus('passwordless consume', consumed, ...accepted) || consumed.json?.status !== 'OK') return;
  if (consumed.json?.createdNewUser !== !returning) {
    anomalies.push(
      `passwordless consume: createdNewUser ${consumed.json?.createdNewUser} for a ${returning ? 'returning' : 'new'} email`,
    );
  }
  passwordlessEmails.add(email);
}

async function verifyTotp() {
  const step = Math.floor(Date.now() / 30_000);
  const candidates = totpUsers.filter((u) => u.lastStep < step);
  const user = pick(candidates);
  if (!user) return verifySession();
  user.lastStep = step;
  const reply = await request('TOTP verify', 'POST', '/public/recipe/totp/verify', {
    userId: user.userId,
    totp: user.totp.generate(),
  });
  expectStatus('TOTP verify', reply, 'OK');
}

/** The mix, as weights (percent). */
const MIX: readonly (readonly [number, () => Promise<unknown>])[] = [
  [10, signUp],
  [25, () => signIn(true)],
  [10, () => signIn(false)],
  [25, verifySession],
  [10, refreshSession],
  [10, passwordless],
  [10, verifyTotp],
];

function nextOperation(): () => Promise<unknown> {
  let r = Math.random() * 100;
  for (const [weight, op] of MIX) {
    r -= weight;
    if (r < 0) return op;
  }
  return signUp;
}

/** `clients` loops over the mix until `until` (ms, performance clock). Returns operations done. */
async function drive(clients: number, until: number): Promise<number> {
  let done = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < until) {
        await nextOperation()();
        done += 1;
      }
    }),
  );
  return done;
}

// ------------------------------------------------------------------------------------------------
// Processes and their memory

interface MemorySample {
  readonly at: number;
  readonly load1: number;
  readonly processes: Record<string, number>;
}
const memory: MemorySample[] = [];

function procRead(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}

/** The runtime's process and every descendant, each with a name. */
function runtimeProcesses(): Map<number, string> {
  const root = runtime.process.child.pid as number;
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procRead(Number(entry), 'stat');
    const ppid = stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
    if (ppid !== undefined) parents.set(Number(entry), Number(ppid));
  }
  const named = new Map<number, string>([[root, 'core (node: handlers, worker threads, local SQS)']]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (named.has(pid) || !named.has(ppid)) continue;
      const command = (procRead(pid, 'cmdline') ?? '').split('\0').join(' ').trim();
      grew = true;
      // The watchdog's one-second sleeps come and go: not a process of the core.
      if (command.startsWith('sleep ')) continue;
      const name =
        pid === runtime.dynamodbPid
          ? 'DynamoDB Local (JVM)'
          : command.startsWith('sh -c while kill')
            ? "DynamoDB Local's watchdog (sh)"
            : command.includes('esbuild')
              ? "tsx's esbuild service"
              : `child ${command.slice(0, 40)}`;
      named.set(pid, name);
    }
  }
  return named;
}

function sampleMemory(): void {
  const processes: Record<string, number> = {};
  for (const [pid, name] of runtimeProcesses()) {
    const match = procRead(pid, 'status')?.match(/^VmRSS:\s+(\d+)\s+kB/m);
    if (match) processes[name] = round(Number(match[1]) / 1024, 1);
  }
  memory.push({ at: (performance.now() - soakStarted) / 1000, load1: round(loadavg()[0] as number), processes });
}

// ------------------------------------------------------------------------------------------------
// Set-up, the bulk import, the accounting

async function setUp(): Promise<void> {
  const appId = `soak-${shortId()}`;
  const created = await request('setup', 'PUT', '/recipe/multitenancy/app/v2', {
    appId,
    coreConfig: { mfa_enabled: true },
  });
  if (created.status !== 200) throw new Error(`cannot create the app: ${created.text}`);
  base = `/appid-${appId}`;
  const hash = bcrypt.hashSync(PASSWORD, 4);
  for (let i = 0; i < SEED_USERS; i++) {
    const email = `seed-${i}-${shortId()}@soak.example`;
    const reply = await request('setup', 'POST', '/bulk-import/import', {
      loginMethods: [{ recipeId: 'emailpassword', email, passwordHash: hash, hashingAlgorithm: 'BCRYPT' }],
    });
    if (reply.status !== 200) throw new Error(`cannot seed: ${reply.text}`);
    passwordUsers.push({ email, password: PASSWORD, id: reply.json?.user.id });
  }
  for (const user of passwordUsers.slice(0, TOTP_USERS)) {
    const device = await request('setup', 'POST', '/recipe/totp/device', { userId: user.id, skew: 1, period: 30 });
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(device.json?.secret), period: 30, digits: 6 });
    const verified = await request('setup', 'POST', '/public/recipe/totp/device/verify', {
      userId: user.id,
      deviceName: device.json?.deviceName,
      totp: totp.generate(),
    });
    if (verified.json?.status !== 'OK') throw new Error(`cannot verify a TOTP device: ${verified.text}`);
    totpUsers.push({ userId: user.id as string, totp, lastStep: Math.floor(Date.now() / 30_000) });
  }
}

async function stagedCount(status?: string): Promise<number> {
  const reply = await request(
    'bulk-import count',
    'GET',
    `/bulk-import/users/count${status ? `?status=${status}` : ''}`,
  );
  return reply.json?.count as number;
}

/**
 * Stages the users in 10 requests (each repeated with its `Idempotency-Key` until it is answered
 * 200: a repeat stages nothing twice), then waits until none is NEW or PROCESSING.
 */
async function bulkImport(): Promise<{ stagedAt: number; doneAt: number; users: number; stagingRepeats: number }> {
  const hash = bcrypt.hashSync(PASSWORD, 4);
  const perRequest = Math.ceil(IMPORT_USERS / 10);
  const stagedAt = (performance.now() - soakStarted) / 1000;
  let stagingRepeats = 0;
  for (let r = 0; r < 10; r++) {
    const emails = Array.from(
      { length: Math.min(perRequest, IMPORT_USERS - r * perRequest) },
      (_, i) => `imp-${r}-${i}-${shortId(6)}@soak.example`,
    );
    const users = emails.map((email) => ({
      loginMethods: [{ recipeId: 'emailpassword', email, passwordHash: hash, hashingAlgorithm: 'BCRYPT' }],
    }));
    const key = { 'idempotency-key': `soak-${shortId(16)}` };
    // Until answered 200: a request past its function's timeout may still be staging (the repeat
    // then answers 409 "still being processed"); the repeat after it answers what it staged.
    const giveUp = performance.now() + 10 * 60_000;
    for (;;) {
      const reply = await request('bulk-import stage', 'POST', '/bulk-import/users', { users }, key);
      if (reply.status === 200) break;
      if (performance.now() > giveUp) {
        for (const email of emails) uncertainEmails.add(email);
        throw new Error(`staging kept failing: ${reply.status} ${reply.text.slice(0, 300)}`);
      }
      stagingRepeats += 1;
      await new Promise((resolve) => setTimeout(resolve, 5000));
    }
    importedEmails.push(...emails);
  }
  for (;;) {
    const [fresh, processing] = await Promise.all([stagedCount('NEW'), stagedCount('PROCESSING')]);
    if (fresh + processing === 0) break;
    await new Promise((r) => setTimeout(r, 2000));
  }
  return { stagedAt, doneAt: (performance.now() - soakStarted) / 1000, users: importedEmails.length, stagingRepeats };
}

async function account() {
  phase = 'accounting';
  // Whatever was staged (also by a request that never got its answer) is imported first.
  const until = performance.now() + 15 * 60_000;
  while (performance.now() < until && (await stagedCount('NEW')) + (await stagedCount('PROCESSING')) > 0) {
    await new Promise((r) => setTimeout(r, 2000));
  }
  const listed: { id: string; emails: string[] }[] = [];
  let token: string | undefined;
  do {
    const reply = await request(
      'accounting',
      'GET',
      `/users?limit=500${token ? `&paginationToken=${encodeURIComponent(token)}` : ''}`,
    );
    for (const user of reply.json?.users ?? []) {
      listed.push({ id: user.id, emails: user.loginMethods.map((m: { email?: string }) => m.email).filter(Boolean) });
    }
    token = reply.json?.nextPaginationToken;
  } while (token);
  const count = (await request('accounting', 'GET', '/users/count')).json?.count as number;
  const emailCounts = new Map<string, number>();
  for (const u of listed) for (const e of u.emails) emailCounts.set(e, (emailCounts.get(e) ?? 0) + 1);
  const expected = [...passwordUsers.map((u) => u.email), ...passwordlessEmails, ...importedEmails];
  const missing = expected.filter((e) => !emailCounts.has(e));
  const doubled = [...emailCounts].filter(([, n]) => n > 1).map(([e]) => e);
  const expectedSet = new Set(expected);
  const unexpected = [...emailCounts.keys()].filter((e) => !expectedSet.has(e) && !uncertainEmails.has(e));
  const uncertainPresent = [...uncertainEmails].filter((e) => emailCounts.has(e)).length;
  const ids = new Set(listed.map((u) => u.id));

  // Every session created is listed for its user, once.
  const byUser = new Map<string, Set<string>>();
  for (const s of sessions) byUser.set(s.userId, (byUser.get(s.userId) ?? new Set()).add(s.handle));
  let sessionsListed = 0;
  const sessionsMissing: string[] = [];
  for (const [userId, handles] of byUser) {
    const reply = await request(
      'accounting',
      'GET',
      `/public/recipe/session/user?userId=${encodeURIComponent(userId)}`,
    );
    const got = new Set<string>(reply.json?.sessionHandles ?? []);
    sessionsListed += got.size;
    for (const h of handles) if (!got.has(h)) sessionsMissing.push(h);
  }
  const staged = {
    total: await stagedCount(),
    NEW: await stagedCount('NEW'),
    PROCESSING: await stagedCount('PROCESSING'),
    FAILED: await stagedCount('FAILED'),
  };
  return {
    users: {
      expected: expected.length,
      uncertain: uncertainEmails.size,
      uncertainPresent,
      counted: count,
      listed: listed.length,
      distinctIds: ids.size,
      missing: missing.length,
      doubled: doubled.length,
      unexpected: unexpected.length,
      bySource: {
        seeded: SEED_USERS,
        signUps,
        passwordless: passwordlessEmails.size,
        imported: importedEmails.length,
      },
    },
    sessions: { created: sessions.length, listed: sessionsListed, missing: sessionsMissing.length },
    staged,
  };
}

// ------------------------------------------------------------------------------------------------
// The report

function statusTable(selected: readonly Answer[]) {
  const table: Record<string, Record<string, number>> = {};
  for (const a of selected) {
    const row = table[a.route] ?? {};
    row[String(a.status)] = (row[String(a.status)] ?? 0) + 1;
    table[a.route] = row;
  }
  return table;
}

function latencyByMinute(selected: readonly Answer[]) {
  const out: Record<string, { minute: number; n: number; p50: number; p99: number }[]> = {};
  const routes = [...new Set(selected.map((a) => a.route))].sort();
  for (const route of routes) {
    const mine = selected.filter((a) => a.route === route);
    const minutes = Math.ceil(Math.max(...mine.map((a) => a.at), 0) / 60);
    out[route] = Array.from({ length: minutes }, (_, m) => {
      const ms = mine.filter((a) => a.at >= m * 60 && a.at < (m + 1) * 60).map((a) => a.ms);
      return { minute: m + 1, n: ms.length, p50: round(percentile(ms, 50), 1), p99: round(percentile(ms, 99), 1) };
    });
  }
  return out;
}

/** Least-squares slope of y against x. */
function slope(points: readonly (readonly [number, number])[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/**
 * Per process over the soak's minutes: the first and last minute's peaks, and the slope of all
 * samples after the first minute (warm-up) in MB per minute — flat memory: ≈ 0.
 */
function memoryTrend(samples: readonly MemorySample[], minutes: number) {
  const names = [...new Set(samples.flatMap((s) => Object.keys(s.processes)))];
  const out: Record<string, { firstMinuteMaxMb: number; lastMinuteMaxMb: number; slopeMbPerMinute: number }> = {};
  const within = samples.filter((s) => s.at <= minutes * 60);
  for (const name of names) {
    const at = (from: number, to: number) =>
      within
        .filter((s) => s.at >= from && s.at < to && s.processes[name] !== undefined)
        .map((s) => s.processes[name] as number);
    const after = within
      .filter((s) => s.at >= 60 && s.processes[name] !== undefined)
      .map((s) => [s.at / 60, s.processes[name] as number] as const);
    out[name] = {
      firstMinuteMaxMb: Math.max(...at(0, 60)),
      lastMinuteMaxMb: Math.max(...at((minutes - 1) * 60, minutes * 60 + 1)),
      slopeMbPerMinute: round(slope(after), 2),
    };
  }
  return out;
}

function memoryByMinute(samples: readonly MemorySample[]) {
  const names = [...new Set(samples.flatMap((s) => Object.keys(s.processes)))];
  const out: Record<string, { minute: number; maxMb: number; lastMb: number }[]> = {};
  for (const name of names) {
    const minutes = Math.ceil(Math.max(...samples.map((s) => s.at)) / 60);
    out[name] = Array.from({ length: minutes }, (_, m) => {
      const values = samples
        .filter((s) => s.at >= m * 60 && s.at < (m + 1) * 60)
        .map((s) => s.processes[name])
        .filter((v): v is number => v !== undefined);
      return { minute: m + 1, maxMb: round(Math.max(...values), 1), lastMb: values[values.length - 1] ?? Number.NaN };
    });
  }
  return out;
}

function markdownReport(result: Record<string, any>): string {
  const lines: string[] = [];
  lines.push(`# Soak ${result.date}`, '');
  lines.push(
    `Machine: ${result.machine.cpuModel} ×${result.machine.cores}, ${result.machine.totalMemoryMb} MiB, Node ${result.machine.node}.`,
  );
  lines.push(`Load average: ${result.load.before.join(' / ')} before, ${result.load.after.join(' / ')} after.`);
  lines.push(
    `Concurrency: ${result.concurrency} clients for ${result.minutes} min; ${result.operations} operations.`,
    '',
  );
  lines.push('## Requests by status', '', '| Route | Status: count |', '| --- | --- |');
  for (const [route, row] of Object.entries(result.statuses as Record<string, Record<string, number>>)) {
    lines.push(
      `| ${route} | ${Object.entries(row)
        .map(([s, n]) => `${s}: ${n}`)
        .join(', ')} |`,
    );
  }
  lines.push('', '## Latency per route and minute (p50 / p99 ms, n)', '');
  const latency = result.latency as Record<string, { minute: number; n: number; p50: number; p99: number }[]>;
  const minutes = Math.max(...Object.values(latency).map((r) => r.length));
  lines.push(`| Route | ${Array.from({ length: minutes }, (_, m) => `min ${m + 1}`).join(' | ')} |`);
  lines.push(`| --- | ${Array.from({ length: minutes }, () => '---').join(' | ')} |`);
  for (const [route, rows] of Object.entries(latency)) {
    lines.push(`| ${route} | ${rows.map((r) => (r.n === 0 ? '—' : `${r.p50} / ${r.p99} (${r.n})`)).join(' | ')} |`);
  }
  lines.push(
    '',
    '## RSS per process and minute (max MB; minutes past the soak: the import finishing, the accounting)',
    '',
  );
  for (const [name, rows] of Object.entries(result.memory as Record<string, { maxMb: number }[]>)) {
    const trend = result.memoryTrend[name];
    lines.push(
      `- ${name}: ${rows.map((r) => r.maxMb).join(', ')} — first / last soak minute ${trend?.firstMinuteMaxMb} / ${trend?.lastMinuteMaxMb} MB, slope after the first minute ${trend?.slopeMbPerMinute} MB/min`,
    );
  }
  lines.push('', `Load average (1 min) every 5 s: ${(result.load.duringSoak as number[]).join(', ')}`);
  lines.push(
    '',
    `Ramp: ${(result.ramp as { clients: number; perSecond: number }[]).map((r) => `${r.clients} clients ${r.perSecond}/s`).join(', ') || 'skipped (--concurrency)'}`,
  );
  lines.push(
    `Bulk import: ${result.import.users} users staged at ${round(result.import.stagedAt)} s, all imported at ${round(result.import.doneAt)} s.`,
  );
  lines.push('', '## Accounting', '', '```json', JSON.stringify(result.accounting, null, 2), '```', '');
  lines.push(`Anomalies: ${result.anomalies.length}`, ...result.anomalies.slice(0, 50).map((a: string) => `- ${a}`));
  lines.push('', 'Runtime errors (last 40 lines):', '```text', ...result.runtimeErrors, '```');
  return lines.join('\n');
}

async function main(): Promise<void> {
  const loadBefore = loadavg().map((l) => round(l));
  const date = new Date().toISOString();
  log(`soak: ${MINUTES} min, load average ${loadBefore.join(' / ')}, ${cpus()[0]?.model} ×${cpus().length}`);
  // A busy machine can keep the runtime from starting within bench/lib/runtime.ts's two minutes.
  for (let attempt = 1; ; attempt++) {
    try {
      runtime = await startRuntime({ inMemory: false });
      break;
    } catch (error) {
      if (attempt === 3) throw error;
      log(`the runtime did not start (attempt ${attempt}); again`);
    }
  }
  let sampler: NodeJS.Timeout | undefined;
  try {
    await setUp();
    log(`set up: ${passwordUsers.length} users, ${totpUsers.length} with TOTP`);
    soakStarted = performance.now();
    sampler = setInterval(sampleMemory, 5000);
    sampleMemory();
    const ramp: { clients: number; perSecond: number }[] = [];
    let concurrency = FIXED_CONCURRENCY;
    if (concurrency === undefined) {
      phase = 'ramp';
      for (const clients of RAMP_LEVELS) {
        const started = performance.now();
        const done = await drive(clients, started + RAMP_SECONDS * 1000);
        const perSecond = round(done / ((performance.now() - started) / 1000), 1);
        ramp.push({ clients, perSecond });
        log(`ramp: ${clients} clients → ${perSecond} operations/s`);
      }
      const best = Math.max(...ramp.map((r) => r.perSecond));
      concurrency = (ramp.find((r) => r.perSecond >= 0.9 * best) as { clients: number }).clients;
    }
    log(`soak at ${concurrency} clients for ${MINUTES} min`);
    phase = 'soak';
    memory.length = 0;
    answers.length = 0;
    soakStarted = performance.now();
    sampleMemory();
    const end = soakStarted + MINUTES * 60_000;
    const shown = new Set<string>();
    const minuteLog = setInterval(() => {
      for (const a of anomalies) {
        const kind = a.slice(0, 100);
        if (!shown.has(kind)) log(`  anomaly: ${kind}`);
        shown.add(kind);
      }
      const last = answers.filter((a) => a.at > (performance.now() - soakStarted) / 1000 - 60);
      log(
        `  ${round((performance.now() - soakStarted) / 60_000, 1)} min: ${last.length} answers in the last minute, load ${loadavg()[0]?.toFixed(2)}, anomalies ${anomalies.length}`,
      );
    }, 60_000);
    // Settled either way (never an unhandled rejection that would leave the runtime running).
    const importRun = new Promise<Awaited<ReturnType<typeof bulkImport>> | { failed: string }>((resolve) => {
      setTimeout(
        () => bulkImport().then(resolve, (error: Error) => resolve({ failed: error.message })),
        (MINUTES * 60_000) / 2,
      );
    });
    const operations = await drive(concurrency, end);
    clearInterval(minuteLog);
    const imported = await importRun;
    if ('failed' in imported) anomalies.push(`bulk import: ${imported.failed}`);
    clearInterval(sampler);
    sampleMemory();
    const statuses = statusTable(answers);
    const accounting = await account();
    const loadAfter = loadavg().map((l) => round(l));
    const result = {
      date,
      machine: {
        cpuModel: cpus()[0]?.model,
        cores: cpus().length,
        totalMemoryMb: Math.round(totalmem() / 2 ** 20),
        node: process.version,
      },
      load: { before: loadBefore, after: loadAfter, duringSoak: memory.map((m) => m.load1) },
      ramp,
      concurrency,
      minutes: MINUTES,
      operations,
      import: imported,
      statuses,
      latency: latencyByMinute(answers),
      memory: memoryByMinute(memory),
      memoryTrend: memoryTrend(memory, MINUTES),
      memorySamples: memory,
      accounting,
      anomalies,
      // What the runtime logged at error level or on stderr (never a credential: the core logs none).
      runtimeErrors: [
        ...runtime.process.stdout.split('\n').filter((l) => /"level":"(ERROR|error)"|Error:/.test(l)),
        ...runtime.process.stderr.split('\n').filter((l) => l.trim() !== ''),
      ].slice(-40),
    };
    const dir = resolve(import.meta.dirname, 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(resolve(dir, 'soak.json'), `${JSON.stringify(result, null, 2)}\n`);
    writeFileSync(resolve(dir, 'soak.md'), markdownReport(result));
    log(`results: ${resolve(dir, 'soak.json')}, ${resolve(dir, 'soak.md')}`);
    const ok =
      anomalies.length === 0 &&
      accounting.users.missing === 0 &&
      accounting.users.doubled === 0 &&
      accounting.users.unexpected === 0 &&
      accounting.users.counted === accounting.users.listed &&
      accounting.users.listed === accounting.users.expected + accounting.users.uncertainPresent &&
      accounting.sessions.missing === 0 &&
      accounting.staged.total === 0;
    log(ok ? 'soak: nothing lost, nothing doubled, no unexpected answer' : 'soak: PROBLEMS — see the report');
    process.exitCode = ok ? 0 : 1;
  } finally {
    if (sampler) clearInterval(sampler);
    await runtime.stop();
  }
}

await main();
