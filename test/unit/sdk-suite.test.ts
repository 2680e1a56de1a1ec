/**
 * The SDK-suite runner's own parts (bin/sdk-suite/, docs/sdk-compatibility.md): which files of a
 * supertokens-node checkout it runs, the mocha command of one file, how it reads a file's output
 * (noise before the report, JSON in that noise, a crash, a timeout), the package.json it installs
 * from, and the table it writes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { listTestTree, needsInstall, sdkVersion } from '../../bin/sdk-suite/checkout.js';
import {
  EXCLUDED_TEST_DIRS,
  type FileRun,
  fileResult,
  firstLine,
  parseMochaJson,
  renderMarkdown,
  selectTestFiles,
  suiteReport,
  withoutPackages,
} from '../../bin/sdk-suite/report.js';
import { mochaArgs } from '../../bin/sdk-suite/run-file.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A fake checkout: package.json, test/utils.js and the given files (relative paths). */
function checkout(files: readonly string[], manifest: object = { name: 'supertokens-node', version: '24.0.2' }) {
  const dir = mkdtempSync(join(tmpdir(), 'sdk-suite-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
  for (const file of ['test/utils.js', ...files]) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), '');
  }
  return dir;
}

/** Mocha's JSON reporter's output for these tests. */
function mochaJson(tests: { title: string; state: 'passed' | 'failed' | 'pending'; message?: string }[]): string {
  const of = (state: string) => tests.filter((t) => t.state === state);
  const entry = (t: { title: string; message?: string }) => ({
    title: t.title.split(' ').at(-1),
    fullTitle: t.title,
    err: t.message === undefined ? {} : { message: t.message, stack: `Error: ${t.message}\n    at x` },
  });
  return JSON.stringify(
    {
      stats: {
        suites: 1,
        tests: tests.length,
        passes: of('passed').length,
        pending: of('pending').length,
        failures: of('failed').length,
        duration: 12,
      },
      tests: tests.map(entry),
      pending: of('pending').map(entry),
      failures: of('failed').map(entry),
      passes: of('passed').map(entry),
    },
    null,
    2,
  );
}

const run = (stdout: string, extra: Partial<FileRun> = {}): FileRun => ({
  file: 'test/a.test.js',
  stdout,
  stderr: '',
  exitCode: 0,
  timedOut: false,
  durationMs: 1500,
  ...extra,
});

describe('the files it runs', () => {
  it('are test/**/*.test.js of the checkout, sorted, without node_modules and the non-core folders', () => {
    const dir = checkout([
      'test/session.test.js',
      'test/dashboard/dashboardGet.test.js',
      'test/auth-modes.test.js',
      'test/framework/koa.test.js',
      'test/framework/crossFramework.testgen.js',
      'test/helpers.js',
      'test/auth-react-server/index.test.js',
      'test/frontendIntegration/x.test.js',
      'test/test-server/src/a.test.js',
      'test/with-typescript/b.test.js',
      'test/node_modules/pkg/c.test.js',
      'lib/ts/d.test.js',
    ]);
    expect(selectTestFiles(listTestTree(dir))).toEqual([
      'test/auth-modes.test.js',
      'test/dashboard/dashboardGet.test.js',
      'test/framework/koa.test.js',
      'test/session.test.js',
    ]);
    expect(selectTestFiles(listTestTree(dir), ['dashboard', 'koa'])).toEqual([
      'test/dashboard/dashboardGet.test.js',
      'test/framework/koa.test.js',
    ]);
  });

  it('never include an excluded folder, whatever the paths', () => {
    const segment = fc.constantFrom('test', 'a', 'node_modules', 'auth-react-server', 'with-typescript', 'x.test.js');
    const path = fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => s.join('/'));
    fc.assert(
      fc.property(fc.array(path), (paths) => {
        const selected = selectTestFiles(paths);
        return selected.every(
          (p) =>
            p.startsWith('test/') &&
            p.endsWith('.test.js') &&
            !p.split('/').includes('node_modules') &&
            !EXCLUDED_TEST_DIRS.some((d) => p.startsWith(`${d}/`)),
        );
      }),
    );
  });

  it('are run as the SDK runs them: hooks, fetch polyfill without Node fetch, 40 s, --exit, JSON', () => {
    const dir = checkout(['test/fetch-polyfill.mjs']);
    expect(mochaArgs(dir, 'test/a.test.js')).toEqual([
      '--no-config',
      '--require',
      'test/hooks.js',
      '--timeout',
      '40000',
      '--exit',
      '--node-option',
      'no-experimental-fetch',
      '-r',
      'test/fetch-polyfill.mjs',
      '--reporter',
      'json',
      'test/a.test.js',
    ]);
  });
});

describe('the checkout', () => {
  it('must be supertokens-node, and needs its development dependencies', () => {
    expect(sdkVersion(checkout([]))).toBe('24.0.2');
    expect(() => sdkVersion(checkout([], { name: 'supertokens-core' }))).toThrow(/not supertokens-node/);
    expect(needsInstall(checkout([]))).toBe(true);
    const ready = checkout(['node_modules/.bin/mocha', 'node_modules/supertest/index.js', 'node_modules/express/x']);
    expect(needsInstall(ready)).toBe(false);
  });

  it('is installed from a package.json without mocha-split-tests, the rest unchanged', () => {
    const manifest = {
      name: 'supertokens-node',
      scripts: { test: 'mocha' },
      dependencies: { jose: '^4' },
      devDependencies: { mocha: '^10', 'mocha-split-tests': 'github:x/y', supertest: '4.0.2' },
    };
    expect(JSON.parse(withoutPackages(JSON.stringify(manifest), ['mocha-split-tests']))).toEqual({
      ...manifest,
      devDependencies: { mocha: '^10', supertest: '4.0.2' },
    });
  });
});

describe("a file's output", () => {
  const report = mochaJson([
    { title: 'suite a', state: 'passed' },
    { title: 'suite b', state: 'failed', message: '\u001b[31mboom\u001b[39m\nat line 2' },
    { title: 'suite c', state: 'pending' },
  ]);

  it('is read after whatever the tests printed, JSON included', () => {
    const noise = `core log {\n  "stats": {"not": "it"\n}\n${JSON.stringify({ a: 1 }, null, 2)}\n`;
    const parsed = parseMochaJson(`${noise}${report}\n`);
    expect(parsed?.stats).toMatchObject({ tests: 3, passes: 1, failures: 1, pending: 1 });
    // And with something printed after it.
    expect(parseMochaJson(`${report}\nlate log line\n`)?.stats.tests).toBe(3);
    expect(parseMochaJson('TypeError: cannot read x\n')).toBeUndefined();
  });

  it('gives each failure its title and first line, and the titles the SDK skips', () => {
    expect(fileResult(run(report, { exitCode: 1 }))).toEqual({
      file: 'test/a.test.js',
      outcome: 'failed',
      tests: 3,
      passes: 1,
      failures: 1,
      pending: 1,
      durationMs: 1500,
      exitCode: 1,
      failed: [{ title: 'suite b', firstLine: 'boom' }],
      skipped: ['suite c'],
    });
    expect(fileResult(run(mochaJson([{ title: 'ok', state: 'passed' }]))).outcome).toBe('passed');
  });

  it('says why a file crashed or was stopped', () => {
    const crashed = fileResult(run('', { stderr: '\nError: Cannot find module x\n    at y', exitCode: 1 }));
    expect(crashed).toMatchObject({ outcome: 'crashed', tests: 0, note: 'Error: Cannot find module x' });
    const stopped = fileResult(run('partial', { timedOut: true, exitCode: null, durationMs: 900_000 }));
    expect(stopped).toMatchObject({ outcome: 'timed-out', note: 'stopped after 900 s' });
  });

  it('keeps an assertion first line with the values it compared', () => {
    const message = "Expected values to be strictly equal:\n+ actual - expected\n\n+ 'A'\n- 'B'\n";
    expect(firstLine(message)).toBe("Expected values to be strictly equal: + actual - expected + 'A' - 'B'");
    expect(firstLine('x'.repeat(400))).toHaveLength(300);
    expect(firstLine(undefined)).toBe('');
  });
});

describe('the table', () => {
  it('has the SDK version, the core, totals, one row per file, each failure and each skipped test', () => {
    const files = [
      fileResult({ ...run(mochaJson([{ title: 'x | y', state: 'failed', message: 'a|b' }])), file: 'test/f.test.js' }),
      fileResult({
        ...run(
          mochaJson([
            { title: 'p', state: 'passed' },
            { title: 'q', state: 'pending' },
          ]),
        ),
      }),
      fileResult({ ...run('', { stderr: 'Error: boom', exitCode: 1 }), file: 'test/z.test.js' }),
    ];
    const report = suiteReport(
      { sdkVersion: '24.0.2', sdkPath: '/sdk', core: 'http://127.0.0.1:3567', startedAt: 's', finishedAt: 'f' },
      files,
    );
    expect(report.totals).toEqual({ files: 3, tests: 3, passes: 1, failures: 1, pending: 1, brokenFiles: 1 });
    const markdown = renderMarkdown(report);
    expect(markdown).toContain('- SDK: supertokens-node 24.0.2 (`/sdk`)');
    expect(markdown).toContain('- Core: http://127.0.0.1:3567');
    expect(markdown).toContain(
      '- 3 files, 3 tests: 1 passed, 1 failed, 1 skipped by the SDK; 1 files crashed or timed out',
    );
    expect(markdown).toContain('| `test/f.test.js` | 1 | 0 | 1 | 0 | failed |');
    expect(markdown).toContain('| `test/a.test.js` | 2 | 1 | 0 | 1 | passed |');
    expect(markdown).toContain('| `test/z.test.js` | 0 | 0 | 0 | 0 | crashed: Error: boom |');
    expect(markdown).toContain('- x \\| y: a\\|b');
    expect(markdown).toContain('## Skipped by the SDK\n\n- `test/a.test.js`: q');
    // Every table row has the header's number of cells.
    const rows = markdown.split('\n').filter((l) => l.startsWith('| '));
    for (const row of rows) expect(row.split(/(?<!\\)\|/).length).toBe(8);
  });
});
