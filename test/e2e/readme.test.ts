import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LocalProcess, removeDir } from '../helpers/local-process.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..', '..');
/** The command as `npm ci` installs it in the repository (`npx auth-core` from a checkout). */
const AUTH_CORE = join(ROOT, 'node_modules', '.bin', 'auth-core');

/**
 * The pages whose examples run, in the order a reader meets them: the README's quick start into the
 * public app, then the tour that creates the app `shop`, whose users the later pages use.
 */
/** In the order they run: docs/dashboard.md uses the app docs/api.md creates. */
const PAGES = ['README.md', 'docs/api.md', 'docs/bulk-import.md', 'docs/dashboard.md', 'docs/per-app-tables.md'];

interface Example {
  readonly page: string;
  readonly command: string;
  readonly expected: string;
}

/**
 * The `curl` and `npx auth-core` examples of a page's shell blocks, each with the answer printed under
 * it as a `# …` comment (`…` stands for any text).
 */
function examples(page: string): Example[] {
  const markdown = readFileSync(join(ROOT, page), 'utf8');
  const found: Example[] = [];
  for (const block of markdown.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const lines = (block[1] ?? '').split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i]?.startsWith('curl ') && !lines[i]?.startsWith('npx auth-core ')) continue;
      let command = lines[i] as string;
      while (command.endsWith('\\') || (command.match(/'/g)?.length ?? 0) % 2 === 1) {
        i++;
        command = `${command}\n${lines[i]}`;
      }
      const answer = lines[i + 1];
      if (answer?.startsWith('# ')) found.push({ page, command, expected: answer.slice(2) });
    }
  }
  return found;
}

function matches(actual: string, expected: string): boolean {
  const parts = expected.split('…');
  if (parts.length === 1) return actual === expected;
  let at = 0;
  for (const [i, part] of parts.entries()) {
    const found = i === 0 ? (actual.startsWith(part) ? 0 : -1) : actual.indexOf(part, at);
    if (found < 0) return false;
    at = found + part.length;
  }
  return actual.endsWith(parts.at(-1) as string);
}

let runtime: LocalProcess;
/** Where the commands run: a copy of the sample exports, so the command's report and state stay out of the checkout. */
let workDir: string;
beforeAll(async () => {
  runtime = await LocalProcess.start({ args: ['--in-memory'], env: { API_KEYS: undefined } });
  workDir = mkdtempSync(join(tmpdir(), 'readme-examples-'));
  cpSync(join(ROOT, 'docs', 'examples'), join(workDir, 'docs', 'examples'), { recursive: true });
  await runtime.waitUntilReady();
});
afterAll(async () => {
  await runtime.dispose();
  removeDir(runtime.dataDir);
  removeDir(workDir);
});

it('finds the quick start and the examples of every page that has some', () => {
  const readme = examples('README.md');
  expect(readme.map((e) => e.command.split(' ', 2).join(' '))).toEqual(['npx auth-core', 'curl -s']);
  const withExamples = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((file) => `docs/${file}`)].filter(
    (page) => page.endsWith('.md') && examples(page).length > 0,
  );
  expect(withExamples.sort()).toEqual([...PAGES].sort());
  expect(PAGES.flatMap(examples).length).toBeGreaterThanOrEqual(12);
});

it('answers every example of the README and docs/ as printed', async () => {
  for (const example of PAGES.flatMap(examples)) {
    const command = example.command
      .replaceAll('http://localhost:3567', runtime.url)
      .replace(/^npx auth-core /, `${AUTH_CORE} `);
    const { stdout } = await run('bash', ['-c', command], {
      cwd: workDir,
      env: { ...process.env, AUTH_CORE_URL: runtime.url, AUTH_CORE_API_KEY: '' },
    });
    expect(matches(stdout.trim(), example.expected), `${example.page}: ${example.command}\n→ ${stdout}`).toBe(true);
  }
});
