/**
 * Measurement 6: peak RSS of the local runtime during a large import.
 * One run = one import of `chunks` × `chunkSize` users into a fresh app: the chunks are POSTed one
 * after another (gzipped, a given cheap hash, as a migration script would), then the run waits
 * until `count?status=NEW` + `PROCESSING` = 0. Every `intervalMs` it samples VmRSS (from
 * /proc/<pid>/status) of the runtime's node process and of its DynamoDB Local JVM, together with
 * the users imported so far (staged − NEW − PROCESSING). Samples are attributed to the tenth of
 * the import in progress (staging falls in the first tenth); per process it reports the peak of
 * each tenth, the least-squares slope of those peaks against users imported (MB per 10,000 users)
 * and the ratio last-tenth peak / first-tenth peak. Flat memory: slope ≈ 0, ratio ≈ 1.
 */
import { readFileSync } from 'node:fs';
import { callOk, createApp, type Runtime, stagedCount, waitUntilImported } from '../lib/runtime.js';
import { cheapBcryptHash, importUsers, shortId } from '../lib/users.js';

const TENTHS = 10;

/** VmRSS of `pid` in MB (NaN once the process is gone). */
function rssMb(pid: number): number {
  try {
    const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)\s+kB/m);
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

interface Sample {
  readonly ms: number;
  readonly imported: number;
  readonly nodeMb: number;
  readonly dynamodbMb: number;
}

/** Least-squares slope of y against x. */
function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += ((xs[i] as number) - mx) * ((ys[i] as number) - my);
    den += ((xs[i] as number) - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

function tenthPeaks(samples: readonly Sample[], total: number, key: 'nodeMb' | 'dynamodbMb'): number[] {
  const peaks = Array.from({ length: TENTHS }, () => Number.NaN);
  for (const s of samples) {
    const tenth = Math.min(TENTHS - 1, Math.floor((s.imported * TENTHS) / total));
    const value = s[key];
    if (Number.isFinite(value) && !(value <= (peaks[tenth] as number))) peaks[tenth] = value;
  }
  // A tenth that went by between two samples inherits the previous tenth's peak.
  for (let i = 1; i < TENTHS; i++) if (Number.isNaN(peaks[i])) peaks[i] = peaks[i - 1] as number;
  return peaks;
}

export async function memoryRun(
  runtime: Runtime,
  chunks: number,
  chunkSize: number,
  intervalMs = 500,
): Promise<Record<string, number>> {
  const total = chunks * chunkSize;
  const appId = `rss-${shortId()}`;
  await createApp(runtime, appId);
  const hash = await cheapBcryptHash('bench-password');
  const nodePid = runtime.process.child.pid;
  if (nodePid === undefined) throw new Error('runtime has no pid');
  const samples: Sample[] = [];
  let staged = 0;
  let sampling = false;
  const start = performance.now();
  const sample = async () => {
    if (sampling) return; // a slow count request: skip this tick rather than pile up
    sampling = true;
    try {
      const nodeMb = rssMb(nodePid);
      const dynamodbMb = rssMb(runtime.dynamodbPid);
      const [fresh, processing] = await Promise.all([
        stagedCount(runtime, appId, 'NEW'),
        stagedCount(runtime, appId, 'PROCESSING'),
      ]);
      samples.push({
        ms: performance.now() - start,
        imported: Math.max(0, staged - fresh - processing),
        nodeMb,
        dynamodbMb,
      });
    } finally {
      sampling = false;
    }
  };
  const timer = setInterval(() => void sample().catch(() => undefined), intervalMs);
  try {
    await sample();
    for (let c = 0; c < chunks; c++) {
      const users = importUsers(`rss-${c}-${shortId()}`, chunkSize, {
        kind: 'hash',
        passwordHash: hash,
        hashingAlgorithm: 'BCRYPT',
      });
      const out = await callOk(runtime, 'POST', `/appid-${appId}/bulk-import/users`, { users }, true);
      if ((out.users as unknown[]).length !== chunkSize) throw new Error('not every user was staged');
      staged += chunkSize;
    }
    await waitUntilImported(runtime, appId, 250);
  } finally {
    clearInterval(timer);
  }
  const ms = performance.now() - start;
  samples.push({ ms, imported: total, nodeMb: rssMb(nodePid), dynamodbMb: rssMb(runtime.dynamodbPid) });
  const usersAtTenth = Array.from({ length: TENTHS }, (_, i) => ((i + 1) * total) / TENTHS);
  const metrics: Record<string, number> = { usersPerSecond: (total * 1000) / ms, samples: samples.length };
  for (const [name, key] of [
    ['node', 'nodeMb'],
    ['dynamodb', 'dynamodbMb'],
  ] as const) {
    const peaks = tenthPeaks(samples, total, key);
    metrics[`${name}PeakMb`] = Math.max(...peaks);
    metrics[`${name}SlopeMbPer10k`] = slope(usersAtTenth, peaks) * 10_000;
    metrics[`${name}LastFirstRatio`] = (peaks[TENTHS - 1] as number) / (peaks[0] as number);
    peaks.forEach((p, i) => {
      metrics[`${name}Tenth${i + 1}Mb`] = p;
    });
  }
  return metrics;
}
