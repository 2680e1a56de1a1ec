/**
 * The SDK-suite runner's pure parts (docs/sdk-compatibility.md): which test files of a
 * supertokens-node checkout it runs, what one file's mocha run says (its JSON reporter's output),
 * and the per-file table it writes, as Markdown and as JSON.
 */

/**
 * Folders of the SDK's `test/` that hold no test of the SDK against a core: a React app's server,
 * the front-end integration server, the server the SDK's other test suites drive, and a
 * type-checking project.
 */
export const EXCLUDED_TEST_DIRS: readonly string[] = [
  'test/auth-react-server',
  'test/frontendIntegration',
  'test/test-server',
  'test/with-typescript',
];

/**
 * The test files to run, sorted: `test/**\/*.test.js` outside `node_modules` and the
 * {@link EXCLUDED_TEST_DIRS}; with `only`, those whose path contains one of its strings.
 * `paths` are relative to the checkout, `/`-separated.
 */
export function selectTestFiles(paths: readonly string[], only: readonly string[] = []): string[] {
  return paths
    .filter((path) => path.startsWith('test/') && path.endsWith('.test.js'))
    .filter((path) => !path.split('/').includes('node_modules'))
    .filter((path) => !EXCLUDED_TEST_DIRS.some((dir) => path.startsWith(`${dir}/`)))
    .filter((path) => only.length === 0 || only.some((part) => path.includes(part)))
    .sort();
}

/** A package.json's text without these packages in any of its dependency lists (the rest unchanged). */
export function withoutPackages(packageJson: string, packages: readonly string[]): string {
  const manifest = JSON.parse(packageJson) as Record<string, unknown>;
  for (const list of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']) {
    const deps = manifest[list];
    if (deps === null || typeof deps !== 'object') continue;
    for (const name of packages) delete (deps as Record<string, unknown>)[name];
  }
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

interface MochaTest {
  readonly title?: string;
  readonly fullTitle?: string;
  readonly err?: { readonly message?: string };
}

/** What mocha's JSON reporter writes (the parts this runner reads). */
interface MochaJson {
  readonly stats: {
    readonly tests: number;
    readonly passes: number;
    readonly pending: number;
    readonly failures: number;
    readonly duration?: number;
  };
  readonly failures: readonly MochaTest[];
  readonly pending: readonly MochaTest[];
}

const REPORT_START = '{\n  "stats": {';

/**
 * The JSON reporter's report in a run's standard output, or undefined when there is none. What the
 * tests themselves print comes first (and may hold JSON too), so the report is the last object
 * that starts as the reporter starts it and parses to the end.
 */
export function parseMochaJson(stdout: string): MochaJson | undefined {
  for (
    let at = stdout.lastIndexOf(REPORT_START);
    at !== -1;
    at = at === 0 ? -1 : stdout.lastIndexOf(REPORT_START, at - 1)
  ) {
    const candidate = stdout.slice(at);
    // The whole rest, else up to each closing brace at a line start, from the last one back.
    for (let end = candidate.length; end > 0; ) {
      const parsed = reportOf(candidate.slice(0, end));
      if (parsed) return parsed;
      const brace = candidate.lastIndexOf('\n}', end - 3);
      if (brace === -1) break;
      end = brace + 2;
    }
  }
  return undefined;
}

function reportOf(text: string): MochaJson | undefined {
  try {
    const parsed = JSON.parse(text) as MochaJson;
    return parsed?.stats && Array.isArray(parsed.failures) && Array.isArray(parsed.pending) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences start with ESC.
const ANSI = /\u001b\[[0-9;]*m/g;
const MAX_LINE = 300;

/**
 * The first non-blank line of a text, without terminal colours, at most 300 characters; a line
 * that ends with `:` (an assertion's "Expected values to be strictly equal:") goes on with the
 * lines after it (the values), as far as the 300 characters go.
 */
export function firstLine(text: string | undefined): string {
  const lines = (text ?? '')
    .replace(ANSI, '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  let line = lines[0] ?? '';
  if (line.endsWith(':')) for (let i = 1; i < lines.length && line.length < MAX_LINE; i++) line += ` ${lines[i]}`;
  return line.length > MAX_LINE ? `${line.slice(0, MAX_LINE - 1)}…` : line;
}

export interface FailedTest {
  readonly title: string;
  /** The first line of its error's message. */
  readonly firstLine: string;
}

/** One test file's run. */
export interface FileResult {
  readonly file: string;
  /** `crashed`: no report (the process failed before mocha reported); `timed-out`: stopped by the runner. */
  readonly outcome: 'passed' | 'failed' | 'crashed' | 'timed-out';
  readonly tests: number;
  readonly passes: number;
  readonly failures: number;
  readonly pending: number;
  readonly durationMs: number;
  readonly exitCode: number | null;
  readonly failed: readonly FailedTest[];
  /** The titles of the tests the SDK itself skips. */
  readonly skipped: readonly string[];
  /** Why a file crashed or was stopped: the first line of its standard error. */
  readonly note?: string;
}

export interface FileRun {
  readonly file: string;
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly durationMs: number;
}

const titleOf = (test: MochaTest) => firstLine(test.fullTitle ?? test.title ?? '(untitled)');

/** What one file's run says, from its output. */
export function fileResult(run: FileRun): FileResult {
  const report = parseMochaJson(run.stdout);
  const base = { file: run.file, durationMs: run.durationMs, exitCode: run.exitCode };
  if (run.timedOut || !report) {
    return {
      ...base,
      outcome: run.timedOut ? 'timed-out' : 'crashed',
      tests: report?.stats.tests ?? 0,
      passes: report?.stats.passes ?? 0,
      failures: report?.stats.failures ?? 0,
      pending: report?.stats.pending ?? 0,
      failed: (report?.failures ?? []).map((t) => ({ title: titleOf(t), firstLine: firstLine(t.err?.message) })),
      skipped: (report?.pending ?? []).map(titleOf),
      note: run.timedOut
        ? `stopped after ${Math.round(run.durationMs / 1000)} s`
        : firstLine(run.stderr) || `exit code ${run.exitCode}, no report`,
    };
  }
  const failed = report.failures.map((t) => ({ title: titleOf(t), firstLine: firstLine(t.err?.message) }));
  return {
    ...base,
    outcome: report.stats.failures > 0 || failed.length > 0 || run.exitCode !== 0 ? 'failed' : 'passed',
    tests: report.stats.tests,
    passes: report.stats.passes,
    failures: report.stats.failures,
    pending: report.stats.pending,
    failed,
    skipped: report.pending.map(titleOf),
  };
}

export interface SuiteReport {
  /** supertokens-node's version (its package.json). */
  readonly sdkVersion: string;
  readonly sdkPath: string;
  /** The core the tests ran against: a URL, or this checkout's `npm start -- --in-memory` and commit. */
  readonly core: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly totals: {
    readonly files: number;
    readonly tests: number;
    readonly passes: number;
    readonly failures: number;
    readonly pending: number;
    /** Files that crashed or were stopped. */
    readonly brokenFiles: number;
  };
  readonly files: readonly FileResult[];
}

export function suiteReport(meta: Omit<SuiteReport, 'totals' | 'files'>, files: readonly FileResult[]): SuiteReport {
  const sum = (pick: (f: FileResult) => number) => files.reduce((n, f) => n + pick(f), 0);
  return {
    ...meta,
    totals: {
      files: files.length,
      tests: sum((f) => f.tests),
      passes: sum((f) => f.passes),
      failures: sum((f) => f.failures),
      pending: sum((f) => f.pending),
      brokenFiles: files.filter((f) => f.outcome === 'crashed' || f.outcome === 'timed-out').length,
    },
    files,
  };
}

/** Text for a Markdown table cell or list item: no line breaks, `|` escaped, backticks kept apart. */
const cell = (text: string) => text.replace(/\s+/g, ' ').replace(/\|/g, '\\|');
const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;

const OUTCOME: Record<FileResult['outcome'], string> = {
  passed: 'passed',
  failed: 'failed',
  crashed: 'crashed',
  'timed-out': 'timed out',
};

/** The report as Markdown: the totals, the per-file table, then each failure with its first line. */
export function renderMarkdown(report: SuiteReport): string {
  const t = report.totals;
  const lines = [
    '# supertokens-node test suite against this core',
    '',
    `- SDK: supertokens-node ${report.sdkVersion} (${code(report.sdkPath)})`,
    `- Core: ${report.core}`,
    `- Run: ${report.startedAt} to ${report.finishedAt}`,
    `- ${t.files} files, ${t.tests} tests: ${t.passes} passed, ${t.failures} failed, ${t.pending} skipped by the SDK` +
      (t.brokenFiles > 0 ? `; ${t.brokenFiles} files crashed or timed out` : ''),
    '',
    '| File | Tests | Passed | Failed | Skipped | Outcome |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
    ...report.files.map(
      (f) =>
        `| ${code(f.file)} | ${f.tests} | ${f.passes} | ${f.failures} | ${f.pending} | ${OUTCOME[f.outcome]}${
          f.note ? `: ${cell(f.note)}` : ''
        } |`,
    ),
  ];
  const withFailures = report.files.filter((f) => f.failed.length > 0);
  if (withFailures.length > 0) {
    lines.push('', '## Failures');
    for (const f of withFailures) {
      lines.push('', `### ${code(f.file)}`, '');
      for (const failure of f.failed)
        lines.push(`- ${cell(failure.title)}: ${cell(failure.firstLine) || '(no message)'}`);
    }
  }
  const withSkipped = report.files.filter((f) => f.skipped.length > 0);
  if (withSkipped.length > 0) {
    lines.push('', '## Skipped by the SDK', '');
    for (const f of withSkipped) for (const title of f.skipped) lines.push(`- ${code(f.file)}: ${cell(title)}`);
  }
  return `${lines.join('\n')}\n`;
}
