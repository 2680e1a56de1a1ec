/**
 * Talking to a local runtime that simulates throttling (`--simulate-throttling`): any request may
 * answer 503 with `Retry-After` — the client retries it, as the migration command does — and the
 * import's backoff is shortened for tests (IMPORT_BACKPRESSURE; production: 30 s … 15 min, 6 h).
 */
import { gzipSync } from 'node:zlib';
import type { LocalProcess } from '../helpers/local-process.js';

/** The import's backoff in these tests: 1 s, doubling to 4 s; give up after an hour. */
export const TEST_BACKPRESSURE = '1,4,3600';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Retried {
  readonly status: number;
  readonly text: string;
  /** 503 answers met (and retried) on the way. */
  readonly unavailable: number;
}

/**
 * Sends the request until it is answered with something else than 503, waiting what `Retry-After`
 * says (capped at `maxWaitMs`: the tests' table is busy by chance, not by load).
 */
async function withRetries(
  runtime: LocalProcess,
  path: string,
  init?: RequestInit,
  maxWaitMs = 2_000,
): Promise<Retried> {
  let unavailable = 0;
  for (let attempt = 0; ; attempt++) {
    const response = await runtime.fetch(path, init);
    const text = await response.text();
    if (response.status !== 503 || attempt >= 50) return { status: response.status, text, unavailable };
    unavailable++;
    const after = Number(response.headers.get('retry-after') ?? '1');
    await sleep(Math.min(maxWaitMs, Math.max(100, after * 1000)));
  }
}

export async function getJson(runtime: LocalProcess, path: string): Promise<any> {
  const { status, text } = await withRetries(runtime, path);
  if (status !== 200) throw new Error(`GET ${path} → ${status}: ${text}`);
  return JSON.parse(text);
}

/** Stages the users in gzipped requests of `chunk`; returns every staged id and the 503s met. */
export async function stageInChunks(
  runtime: LocalProcess,
  appId: string,
  users: readonly unknown[],
  chunk: number,
): Promise<{ ids: string[]; unavailable: number }> {
  const ids: string[] = [];
  let unavailable = 0;
  for (let i = 0; i < users.length; i += chunk) {
    const body = gzipSync(JSON.stringify({ users: users.slice(i, i + chunk) }));
    const answer = await withRetries(runtime, `/appid-${appId}/bulk-import/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body,
    });
    unavailable += answer.unavailable;
    if (answer.status !== 200) throw new Error(`staging → ${answer.status}: ${answer.text.slice(0, 500)}`);
    ids.push(...(JSON.parse(answer.text) as { users: { userId: string }[] }).users.map((u) => u.userId));
  }
  return { ids, unavailable };
}

/** Every user of the app (all pages): ids and how often each email occurs. */
export async function listUsers(
  runtime: LocalProcess,
  appId: string,
): Promise<{ ids: Set<string>; listed: number; emails: Map<string, number> }> {
  const emails = new Map<string, number>();
  const ids = new Set<string>();
  let listed = 0;
  let token: string | undefined;
  do {
    const query = `limit=500${token === undefined ? '' : `&paginationToken=${encodeURIComponent(token)}`}`;
    const page = (await getJson(runtime, `/appid-${appId}/public/users?${query}`)) as {
      users: { id: string; emails: string[] }[];
      nextPaginationToken?: string;
    };
    for (const user of page.users) {
      listed++;
      ids.add(user.id);
      for (const email of user.emails) emails.set(email, (emails.get(email) ?? 0) + 1);
    }
    token = page.nextPaginationToken;
  } while (token !== undefined);
  return { ids, listed, emails };
}

/** The import's metric documents the runtime printed (EMF lines on stdout), summed by metric name. */
export function emittedCounts(stdout: string): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{"_aws"')) continue;
    const doc = JSON.parse(line) as { _aws: { CloudWatchMetrics: { Metrics: { Name: string }[] }[] } } & Record<
      string,
      unknown
    >;
    for (const { Name } of doc._aws.CloudWatchMetrics.flatMap((m) => m.Metrics)) {
      sums[Name] = (sums[Name] ?? 0) + Number(doc[Name]);
    }
  }
  return sums;
}
