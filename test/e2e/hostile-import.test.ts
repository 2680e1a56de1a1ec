import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalProcess, removeDir } from '../helpers/local-process.js';

/**
 * The hostile-import script (bin/hostile-import.ts) against the local runtime, as `npm start` runs
 * it (with a base API key): every hostile request gets a 4xx and `/hello` keeps answering.
 */

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
const BASE_KEY = 'hostile-e2e-base-key-0123456789';
let runtime: LocalProcess;

beforeAll(async () => {
  runtime = await LocalProcess.start({ args: ['--in-memory'], env: { API_KEYS: BASE_KEY } });
  await runtime.waitUntilReady();
});

afterAll(async () => {
  await runtime?.dispose();
  if (runtime) removeDir(runtime.dataDir);
});

describe('bin/hostile-import.ts', () => {
  it('gets only 4xx answers while /hello keeps answering', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'bin/hostile-import.ts', runtime.url],
      { cwd: REPO_ROOT, env: { ...process.env, AUTH_CORE_API_KEY: BASE_KEY } },
    );
    const lines = stdout.trim().split('\n');
    expect(lines.slice(0, -1)).toEqual([
      '400  bcrypt cost 20           Password hash is in invalid BCrypt format: cost 20 is above the limit of 14',
      '400  argon2 t=1000            Password hash is in invalid Argon2 format: t 1000 is above the limit of 10',
      '401  gzip bomb, no key        Invalid API key',
      '413  gzip bomb, with the key  Request body too large: more than 64 MiB once decompressed; send fewer users per request',
      '400  TOTP period 1e308        users[0]: period should be of type integer for a totp device.',
      '400  5,000-deep metadata      userMetadata is nested too deeply. Max depth is 32.',
      '400  10,000-character app id  The appId in the path is too long. Max length is 64.',
    ]);
    const [, ok, sent] = lines.at(-1)?.match(/^\/hello: (\d+) of (\d+) answered 200 meanwhile/) ?? [];
    expect(Number(sent)).toBeGreaterThan(0);
    expect(ok).toBe(sent);
    // The app it created is gone again.
    const apps = await runtime.fetch('/recipe/multitenancy/app/list/v2', { headers: { 'api-key': BASE_KEY } });
    expect(JSON.stringify(await apps.json())).not.toContain('hostile-');
    expect(runtime.stdout).not.toMatch(/→ 500|handler failed/);
  });
});
