/**
 * `npm run sdk-suite -- <supertokens-node checkout> [options]`: supertokens-node's own test suite
 * against this core, one test file per mocha process as the SDK's `npm test` runs it, and a
 * per-file table (Markdown and JSON). Not part of `npm test`: it needs a checkout of the SDK's
 * repository. How to run it and how to read the table: docs/sdk-compatibility.md.
 */
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { installDevDependencies, listTestTree, needsInstall, sdkVersion } from './sdk-suite/checkout.js';
import { type Core, runningCore, startCore } from './sdk-suite/core.js';
import { type FileResult, fileResult, renderMarkdown, selectTestFiles, suiteReport } from './sdk-suite/report.js';
import { runTestFile } from './sdk-suite/run-file.js';

const USAGE = `Usage: npm run sdk-suite -- <path to a supertokens-node checkout> [options]

Runs the SDK's test files against this core, each in its own mocha process, and writes
sdk-suite.md and sdk-suite.json (and each file's raw output under raw/) to the output folder.

Options:
  --core-url <url>       test a core that is already running (default: start this repository's
                         \`npm start -- --in-memory\` on a free port, and stop it at the end)
  --out <dir>            output folder (default: sdk-suite-results)
  --only <text>          run only the files whose path contains <text> (repeatable)
  --file-timeout <s>     stop a file's process after this many seconds (default 900)
  --no-install           never install the SDK's development dependencies (fail if missing)
  -h, --help             this text

Exit status: 0 every file passed, 1 some test failed or some file crashed, 2 the run could not start.`;

function options() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      'core-url': { type: 'string' },
      out: { type: 'string', default: 'sdk-suite-results' },
      only: { type: 'string', multiple: true, default: [] },
      'file-timeout': { type: 'string', default: '900' },
      'no-install': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const fileTimeoutSeconds = Number(values['file-timeout']);
  if (positionals.length !== 1 || !Number.isFinite(fileTimeoutSeconds) || fileTimeoutSeconds <= 0) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  return {
    sdkDir: resolve(positionals[0] as string),
    coreUrl: values['core-url'],
    outDir: resolve(values.out),
    only: values.only,
    fileTimeoutMs: fileTimeoutSeconds * 1000,
    install: !values['no-install'],
  };
}

const log = (line: string) => process.stderr.write(`sdk-suite: ${line}\n`);
const rawName = (file: string) => file.replace(/\//g, '_');

async function main(): Promise<number> {
  const opts = options();
  const version = sdkVersion(opts.sdkDir);
  if (!version.startsWith('24.0.')) log(`supertokens-node ${version}: this runner is made for the 24.0 line`);
  if (needsInstall(opts.sdkDir)) {
    if (!opts.install) throw new Error(`${opts.sdkDir} lacks its development dependencies (run without --no-install)`);
    await installDevDependencies(opts.sdkDir, log);
  }
  const files = selectTestFiles(listTestTree(opts.sdkDir), opts.only);
  if (files.length === 0) throw new Error('no test file selected');
  mkdirSync(join(opts.outDir, 'raw'), { recursive: true });
  const coreLog = createWriteStream(join(opts.outDir, 'core.log'));
  const startedAt = new Date().toISOString();
  let core: Core | undefined;
  const results: FileResult[] = [];
  const write = () => {
    const report = suiteReport(
      {
        sdkVersion: version,
        sdkPath: opts.sdkDir,
        core: core?.description ?? 'none',
        startedAt,
        finishedAt: new Date().toISOString(),
      },
      results,
    );
    writeFileSync(join(opts.outDir, 'sdk-suite.json'), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(opts.outDir, 'sdk-suite.md'), renderMarkdown(report));
    return report;
  };
  const interrupted = () => {
    void core?.stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    core = opts.coreUrl ? await runningCore(opts.coreUrl) : await startCore(coreLog);
    log(`supertokens-node ${version}, ${files.length} files, core ${core.url.origin}`);
    for (const [i, file] of files.entries()) {
      const run = await runTestFile(opts.sdkDir, file, core.url, opts.fileTimeoutMs);
      writeFileSync(join(opts.outDir, 'raw', `${rawName(file)}.json`), run.stdout);
      writeFileSync(join(opts.outDir, 'raw', `${rawName(file)}.err`), run.stderr);
      const result = fileResult(run);
      results.push(result);
      write();
      log(
        `[${i + 1}/${files.length}] ${file}: ${result.outcome}, ${result.passes} passed, ${result.failures} failed, ` +
          `${result.pending} skipped (${(result.durationMs / 1000).toFixed(1)} s)`,
      );
    }
  } finally {
    await core?.stop();
    coreLog.end();
  }
  const report = write();
  const t = report.totals;
  log(
    `${t.tests} tests in ${t.files} files: ${t.passes} passed, ${t.failures} failed, ${t.pending} skipped` +
      `${t.brokenFiles > 0 ? `, ${t.brokenFiles} files crashed or timed out` : ''}; see ${join(opts.outDir, 'sdk-suite.md')}`,
  );
  return report.files.every((f) => f.outcome === 'passed') ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(error instanceof Error ? error.message : String(error));
    process.exit(2);
  },
);
