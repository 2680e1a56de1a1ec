/**
 * The migration finishes whatever the machine is doing: `auth-core migrate` of a 25,000-user Auth0
 * export, with its default options (`--batch-size auto`, two requests at once, waiting for the
 * import), while a helper of this test keeps every core of the machine busy for the whole run.
 * It exits 0 with every user imported once and none FAILED, and its progress lines (stderr is not
 * a terminal: one plain line every 5 s) keep coming and keep counting.
 *
 * The staging requests size themselves from how long the core takes (a request the core cannot
 * finish in time answers 503 with Retry-After and is sent again, the same body under the same key):
 * docs/migration-command.md "Request sizes".
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalProcess } from '../helpers/local-process.js';
import { coreCaller, runCommand, startRuntime, stopRuntime } from './migrate-helpers.js';

const API_KEY = 'busy-machine-e2e-key-0123456789';
const USERS = 25_000;
const HASH = bcrypt.hashSync('busy-machine-password', 4);

let runtime: LocalProcess | undefined;
let dir: string | undefined;
const burners: ChildProcess[] = [];

/** One process per core, each spinning on its core until it is killed. */
function burnEveryCore(): void {
  for (let i = 0; i < availableParallelism(); i++) {
    burners.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  }
}

function stopBurning(): void {
  for (const burner of burners.splice(0)) burner.kill('SIGKILL');
}

beforeAll(async () => {
  ({ runtime, dir } = await startRuntime({ API_KEYS: API_KEY }, 'migrate-busy-'));
});

afterAll(async () => {
  stopBurning();
  await stopRuntime(runtime, dir);
});

/** A plain progress line: `[12s] staging 40%: … 3000 staged, 0 imported, …`. */
interface ProgressLine {
  readonly seconds: number;
  readonly phase: string;
  readonly staged: number;
  readonly imported: number;
}

function progressLines(stderr: string): ProgressLine[] {
  const lines: ProgressLine[] = [];
  for (const line of stderr.split('\n')) {
    const m = /^\[(\d+)s\] (.+?) \d+%: .* (\d+) staged, (\d+) imported,/.exec(line);
    if (m) lines.push({ seconds: Number(m[1]), phase: m[2] as string, staged: Number(m[3]), imported: Number(m[4]) });
  }
  return lines;
}

describe('auth-core migrate on a machine whose cores are all busy', () => {
  it('imports 25,000 users with its default options: exit 0, each once, 0 FAILED, progress counting all along', {
    timeout: 40 * 60_000,
  }, async () => {
    const core = coreCaller(() => runtime as LocalProcess, API_KEY);
    const appId = `busy-${randomBytes(3).toString('hex')}`;
    expect((await core('PUT', '/recipe/multitenancy/app/v2', { appId })).status).toBe(200);
    const ids = Array.from({ length: USERS }, (_, i) => i.toString(16).padStart(24, '0'));
    const users = join(dir as string, 'users.ndjson');
    const hashes = join(dir as string, 'hashes.ndjson');
    writeFileSync(
      users,
      `${ids
        .map((id, i) =>
          JSON.stringify({
            user_id: `auth0|${id}`,
            email: `busy-${i}@example.com`,
            email_verified: true,
            created_at: '2022-01-01T00:00:00.000Z',
            identities: [
              { connection: 'Username-Password-Authentication', provider: 'auth0', user_id: id, isSocial: false },
            ],
          }),
        )
        .join('\n')}\n`,
    );
    writeFileSync(
      hashes,
      `${ids
        .map((id, i) =>
          JSON.stringify({
            _id: { $oid: id },
            email: `busy-${i}@example.com`,
            email_verified: true,
            passwordHash: HASH,
            connection: 'Username-Password-Authentication',
          }),
        )
        .join('\n')}\n`,
    );

    burnEveryCore();
    let result: Awaited<ReturnType<typeof runCommand>>;
    try {
      // Default options; only the report goes to the test's folder, not the working directory.
      const report = join(dir as string, 'report.ndjson');
      result = await runCommand(
        ['migrate', users, '--from', 'auth0', '--hashes', hashes, '--app', appId, '--report', report],
        {
          AUTH_CORE_URL: (runtime as LocalProcess).url,
          AUTH_CORE_API_KEY: API_KEY,
        },
      );
    } finally {
      stopBurning();
    }
    const lines = progressLines(result.stderr);
    console.log(
      `migrate-busy-machine ${JSON.stringify({
        code: result.code,
        lines: lines.length,
        seconds: lines.at(-1)?.seconds,
        staging: lines.filter((l) => l.phase === 'staging').map((l) => [l.seconds, l.staged]),
        retries: (result.stderr.match(/^retrying/gm) ?? []).length,
        // A core starved of CPU may still run a timer late past its function's timeout (500, which
        // the command sends again like any 5xx): counted here, not asserted.
        functionTimeouts: ((runtime as LocalProcess).stderr.match(/Task timed out/g) ?? []).length,
      })}`,
    );
    expect(result.code, result.stderr.slice(-3000)).toBe(0);
    expect(result.stdout).toMatch(
      /25000 converted, 0 refused at convert, 0 refused at check, 25000 imported, 0 failed at import/,
    );

    // Progress: lines keep coming from start to end (one every 5 s; a gap of six is allowed, as
    // the command shares starved cores), their counts never going back, and both the staged and
    // the imported counts growing step by step.
    expect(lines.length).toBeGreaterThan(3);
    for (const [i, line] of lines.entries()) {
      const before = lines[i - 1];
      if (!before) continue;
      expect(line.seconds - before.seconds, JSON.stringify([before, line])).toBeLessThanOrEqual(30);
      expect(line.staged).toBeGreaterThanOrEqual(before.staged);
      expect(line.imported).toBeGreaterThanOrEqual(before.imported);
    }
    const staging = lines.filter((l) => l.phase === 'staging');
    expect(new Set(staging.map((l) => l.staged)).size).toBeGreaterThan(2);
    const waiting = lines.filter((l) => l.phase.startsWith('waiting'));
    expect(new Set(waiting.map((l) => l.imported)).size).toBeGreaterThan(2);

    // The core: every user once, nothing left staged, nothing FAILED.
    expect((await core('GET', `/appid-${appId}/users/count`)).json.count).toBe(USERS);
    expect((await core('GET', `/appid-${appId}/bulk-import/users/count`)).json.count).toBe(0);
  });
});
