import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LocalProcess, removeDir } from '../helpers/local-process.js';

const run = promisify(execFile);
const README = readFileSync(resolve(import.meta.dirname, '..', '..', 'README.md'), 'utf8');

interface Example {
  readonly command: string;
  readonly expected: string;
}

/**
 * The `curl` examples of the README's shell blocks, each with the answer printed under it as a
 * `# …` comment (`…` stands for any text).
 */
function examples(markdown: string): Example[] {
  const found: Example[] = [];
  for (const block of markdown.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const lines = (block[1] ?? '').split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i]?.startsWith('curl ')) continue;
      let command = lines[i] as string;
      while (command.endsWith('\\') || (command.match(/'/g)?.length ?? 0) % 2 === 1) {
        i++;
        command = `${command}\n${lines[i]}`;
      }
      const answer = lines[i + 1];
      if (answer?.startsWith('# ')) found.push({ command, expected: answer.slice(2) });
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
beforeAll(async () => {
  runtime = await LocalProcess.start({ args: ['--in-memory'], env: { API_KEYS: undefined } });
  await runtime.waitUntilReady();
});
afterAll(async () => {
  await runtime.dispose();
  removeDir(runtime.dataDir);
});

it('finds the quick-start examples', () => {
  expect(examples(README).length).toBeGreaterThanOrEqual(6);
});

it('answers every README curl example as printed', async () => {
  for (const example of examples(README)) {
    const command = example.command.replaceAll('http://localhost:3567', runtime.url);
    const { stdout } = await run('bash', ['-c', command]);
    expect(matches(stdout.trim(), example.expected), `${example.command}\n→ ${stdout}`).toBe(true);
  }
});
