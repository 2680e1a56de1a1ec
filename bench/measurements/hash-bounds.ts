/**
 * Measurement 7: what a sign-in verify costs at each hash cost bound (HASH_LIMITS), so the bounds
 * can be checked against "no accepted hash needs more than about a second of one core".
 *
 * For each family, a stored hash exactly at its bound (the import check must accept it, and refuse
 * the same hash one step beyond) is verified once per run with a wrong password — the same work as
 * a right one — by the core's own `verifyPassword`, in this process: wall time and the process's
 * CPU time (node:crypto's PBKDF2 and scrypt run on the libuv pool; process CPU time counts those
 * threads). The baseline, in the same run: a verify of a bcrypt cost-10 hash. phpass and Drupal
 * are measured with the longest password they accept (4096 and 512 bytes), their worst case.
 * The hashes' salts and digests are random: a wrong-password verify does not need a real one.
 */
import { randomBytes } from 'node:crypto';
import {
  HASH_LIMITS,
  type HashingAlgorithm,
  normaliseImportedHash,
  verifyPassword,
} from '#functions/domain/passwords/index.js';
import { type Row, summaryRows } from '../lib/report.js';
import { measure, type RunPlan } from '../lib/stats.js';

const ITOA64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const itoa64 = (length: number) => Array.from(randomBytes(length), (byte) => ITOA64[byte % 64]).join('');
const b64 = (bytes: number) => randomBytes(bytes).toString('base64').replace(/=+$/, '');
const bcryptBody = () => itoa64(53);

export interface BoundCase {
  readonly key: string;
  readonly family: HashingAlgorithm;
  /** The bound, as docs/password-hashes.md states it. */
  readonly bound: string;
  /** The imported hash at the bound, and the same one step beyond it. */
  readonly atBound: string;
  readonly beyond: string;
  readonly password: string;
}

const L = HASH_LIMITS;
const pad = (n: number) => String(n).padStart(2, '0');
const argon2 = (m: number, t: number, p: number) => `$argon2id$v=19$m=${m},t=${t},p=${p}$${b64(16)}$${b64(32)}`;
const scrypt = (ln: number, r: number, p: number) => `$scrypt$ln=${ln},r=${r},p=${p}$${b64(16)}$${b64(32)}`;
const pbkdf2 = (digest: string, iterations: number, bytes: number) =>
  `$pbkdf2-${digest}$i=${iterations},l=${bytes}$${b64(16)}$${b64(bytes)}`;
const portable = (id: 'P' | 'S', log2: number) => `$${id}$${ITOA64[log2]}${itoa64(8)}${itoa64(id === 'S' ? 43 : 22)}`;
const firebase = (m: number, r: number) =>
  `$f_scrypt$${randomBytes(64).toString('base64')}$${randomBytes(16).toString('base64')}$m=${m}$r=${r}$s=Bw==`;

const FIREBASE_SIGNER_KEY = randomBytes(64).toString('base64');

function boundCases(): BoundCase[] {
  const memoryTimes = L.argon2.maxMemoryTimesIterationsKiB;
  return [
    {
      key: 'bcrypt',
      family: 'BCRYPT',
      bound: `cost ≤ ${L.bcrypt.maxCost}`,
      atBound: `$2a$${pad(L.bcrypt.maxCost)}$${bcryptBody()}`,
      beyond: `$2a$${pad(L.bcrypt.maxCost + 1)}$${bcryptBody()}`,
      password: 'correct horse battery staple',
    },
    {
      key: 'wordpress',
      family: 'PHPASS',
      bound: `WordPress $wp$: bcrypt cost ≤ ${L.bcrypt.maxCost}`,
      atBound: `$wp$2y$${pad(L.bcrypt.maxCost)}$${bcryptBody()}`,
      beyond: `$wp$2y$${pad(L.bcrypt.maxCost + 1)}$${bcryptBody()}`,
      password: 'correct horse battery staple',
    },
    {
      key: 'argon2OnePass',
      family: 'ARGON2',
      bound: `m × t ≤ ${memoryTimes} KiB (here m = ${memoryTimes} KiB, t = 1)`,
      atBound: argon2(memoryTimes, 1, 1),
      beyond: argon2(memoryTimes + 1, 1, 1),
      password: 'correct horse battery staple',
    },
    {
      key: 'argon2MaxPasses',
      family: 'ARGON2',
      bound: `t ≤ ${L.argon2.maxIterations}, m × t ≤ ${memoryTimes} KiB (here m = ${Math.floor(memoryTimes / L.argon2.maxIterations)} KiB, t = ${L.argon2.maxIterations}, p = ${L.argon2.maxParallelism})`,
      atBound: argon2(
        Math.floor(memoryTimes / L.argon2.maxIterations),
        L.argon2.maxIterations,
        L.argon2.maxParallelism,
      ),
      beyond: argon2(Math.floor(memoryTimes / L.argon2.maxIterations), L.argon2.maxIterations + 1, 1),
      password: 'correct horse battery staple',
    },
    {
      key: 'scrypt',
      family: 'SCRYPT',
      bound: `N ≤ 2^${L.scrypt.maxLogN}, r ≤ ${L.scrypt.maxR}, p ≤ ${L.scrypt.maxP}, N × r × p ≤ 2^${Math.log2(L.scrypt.maxNrp)} (here 2^${L.scrypt.maxLogN}, ${L.scrypt.maxR}, ${L.scrypt.maxNrp / 2 ** L.scrypt.maxLogN / L.scrypt.maxR})`,
      atBound: scrypt(L.scrypt.maxLogN, L.scrypt.maxR, L.scrypt.maxNrp / 2 ** L.scrypt.maxLogN / L.scrypt.maxR),
      beyond: scrypt(L.scrypt.maxLogN, L.scrypt.maxR, L.scrypt.maxNrp / 2 ** L.scrypt.maxLogN / L.scrypt.maxR + 1),
      password: 'correct horse battery staple',
    },
    {
      key: 'firebaseScrypt',
      family: 'FIREBASE_SCRYPT',
      bound: `mem_cost ≤ ${L.firebaseScrypt.maxMemCost}, rounds ≤ ${L.firebaseScrypt.maxRounds}`,
      atBound: firebase(L.firebaseScrypt.maxMemCost, L.firebaseScrypt.maxRounds),
      beyond: firebase(L.firebaseScrypt.maxMemCost + 1, L.firebaseScrypt.maxRounds),
      password: 'correct horse battery staple',
    },
    ...(['sha1', 'sha256', 'sha512'] as const).map((digest) => ({
      key: `pbkdf2${digest}`,
      family: 'PBKDF2' as const,
      bound: `HMAC-${digest.toUpperCase()}: iterations × blocks ≤ ${L.pbkdf2.maxIterationBlocks.toLocaleString('en')}`,
      atBound: pbkdf2(digest, L.pbkdf2.maxIterationBlocks, 16),
      beyond: pbkdf2(digest, L.pbkdf2.maxIterationBlocks + 1, 16),
      password: 'correct horse battery staple',
    })),
    {
      key: 'pbkdf2sha3',
      family: 'PBKDF2',
      bound: `SHA3-384 (Kratos's sha384): iterations × blocks ≤ ${L.pbkdf2.maxIterationBlocksSha3.toLocaleString('en')}`,
      atBound: pbkdf2('sha384', L.pbkdf2.maxIterationBlocksSha3, 32),
      beyond: pbkdf2('sha384', L.pbkdf2.maxIterationBlocksSha3 + 1, 32),
      password: 'correct horse battery staple',
    },
    {
      key: 'phpass',
      family: 'PHPASS',
      bound: `$P$/$H$: 2^${L.phpass.maxLog2} iterations, password ${L.phpass.maxPasswordBytes} bytes`,
      atBound: portable('P', L.phpass.maxLog2),
      beyond: portable('P', L.phpass.maxLog2 + 1),
      password: 'p'.repeat(L.phpass.maxPasswordBytes),
    },
    {
      key: 'drupal',
      family: 'PHPASS',
      bound: `Drupal $S$: 2^${L.drupal.maxLog2} iterations, password ${L.drupal.maxPasswordBytes} bytes`,
      atBound: portable('S', L.drupal.maxLog2),
      beyond: portable('S', L.drupal.maxLog2 + 1),
      password: 'p'.repeat(L.drupal.maxPasswordBytes),
    },
  ];
}

const BASELINE = {
  key: 'baselineBcrypt10',
  stored: `$2a$10$${bcryptBody()}`,
  password: 'correct horse battery staple',
};

async function timedVerify(stored: string, password: string): Promise<{ wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const result = await verifyPassword(password, stored, { firebaseSignerKey: FIREBASE_SIGNER_KEY });
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  if (result.ok || result.reason !== 'WRONG_PASSWORD')
    throw new Error(`unexpected verify result ${JSON.stringify(result)}`);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

/** Each case's import check (at the bound: accepted; one step beyond: refused), then the runs. */
export async function hashBoundsRun(plan: RunPlan, log: (line: string) => void) {
  const cases = boundCases();
  for (const c of cases) {
    const at = normaliseImportedHash(c.family, c.atBound);
    const beyond = normaliseImportedHash(c.family, c.beyond);
    if (!at.ok) throw new Error(`${c.key}: the hash at the bound is refused: ${at.error}`);
    if (beyond.ok || beyond.kind !== 'limit') throw new Error(`${c.key}: the hash beyond the bound is not refused`);
  }
  const stored = cases.map((c) => ({
    ...c,
    stored: (normaliseImportedHash(c.family, c.atBound) as { storedHash: string }).storedHash,
  }));
  const runs = await measure(
    'hash bounds',
    plan,
    async () => {
      const metrics: Record<string, number> = {};
      const baseline = await timedVerify(BASELINE.stored, BASELINE.password);
      metrics[`${BASELINE.key}WallMs`] = baseline.wallMs;
      metrics[`${BASELINE.key}CpuMs`] = baseline.cpuMs;
      for (const c of stored) {
        const { wallMs, cpuMs } = await timedVerify(c.stored, c.password);
        metrics[`${c.key}WallMs`] = wallMs;
        metrics[`${c.key}CpuMs`] = cpuMs;
        metrics[`${c.key}Ratio`] = cpuMs / baseline.cpuMs;
      }
      return metrics;
    },
    log,
  );
  const rows: Row[] = summaryRows('7. Verify, baseline: bcrypt cost 10', runs, [['CPU', 'ms', `${BASELINE.key}CpuMs`]]);
  for (const c of cases) {
    rows.push(
      ...summaryRows(`7. Verify at the bound: ${c.bound}`, runs, [
        ['CPU', 'ms', `${c.key}CpuMs`, '≲ 1000'],
        ['wall', 'ms', `${c.key}WallMs`],
        ['CPU ÷ bcrypt 10', '×', `${c.key}Ratio`],
      ]),
    );
  }
  return { runs, rows, cases: cases.map(({ key, family, bound }) => ({ key, family, bound })) };
}
