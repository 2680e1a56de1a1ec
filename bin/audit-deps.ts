/**
 * `npm run audit:deps [-- --allow-unchecked]`: the production dependencies against the registry's
 * security advisories (docs/security.md "Known-vulnerable dependencies"). npm does the checking
 * (`npm audit --omit=dev --json`); this step reads its report against `audit-allowlist.json`, the
 * advisories the project has accepted, each with its reason and a date to look again.
 *
 * Exit codes: 0 no advisory, or every one accepted; 1 an advisory not accepted (or accepted past
 * its date); 2 the allow-list is malformed; 3 not checked — the registry gave no advisories (no
 * network, or a registry that does not serve npm's audit endpoint: it answers `npm audit` with an
 * error, never with an empty report). `--allow-unchecked` (CI, which may run without the
 * registry's audit endpoint) turns 3 into 0 with the same warning: only a real answer can pass or
 * fail. Wrappers such as better-npm-audit read such an error as "no vulnerabilities"; this one
 * never does.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** One advisory npm reported for a production dependency. */
interface Advisory {
  /** `GHSA-xxxx-xxxx-xxxx` (from its URL), or npm's numeric source id when it has no GHSA URL. */
  readonly id: string;
  readonly packageName: string;
  readonly title: string;
  readonly severity: string;
  readonly url: string | undefined;
  readonly range: string | undefined;
}

/** An advisory the project accepts, and why. */
interface Accepted {
  readonly advisory: string;
  readonly package: string;
  readonly reason: string;
  /** `YYYY-MM-DD`: past it, the advisory counts as not accepted until someone looks again. */
  readonly reviewBy: string;
}

type Verdict =
  | { readonly kind: 'unchecked'; readonly why: string }
  | {
      readonly kind: 'checked';
      readonly unaccepted: readonly Advisory[];
      readonly accepted: readonly Advisory[];
      readonly expired: readonly Advisory[];
      /** Allow-list entries no advisory of the report matches (can be removed). */
      readonly unused: readonly Accepted[];
    };

const GHSA = /GHSA(-[23456789cfghjmpqrvwx]{4}){3}/;

/**
 * The allow-list's entries, or the reason it cannot be used.
 * @internal Exported for test/unit/audit-deps.test.ts.
 */
export function parseAllowList(text: string): Accepted[] | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'audit-allowlist.json is not JSON';
  }
  const entries = (parsed as { accepted?: unknown } | null)?.accepted;
  if (!Array.isArray(entries)) return 'audit-allowlist.json must be {"accepted": [...]}';
  const out: Accepted[] = [];
  for (const [i, entry] of entries.entries()) {
    const e = entry as Record<string, unknown>;
    const text = (key: string) => (typeof e?.[key] === 'string' ? (e[key] as string).trim() : '');
    if (!GHSA.test(text('advisory')) && !/^\d+$/.test(text('advisory'))) {
      return `accepted[${i}].advisory must be a GHSA id or npm's numeric advisory id`;
    }
    if (text('package') === '') return `accepted[${i}].package must name the package`;
    if (text('reason').length < 20) return `accepted[${i}].reason must say why it is accepted (20 characters or more)`;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(text('reviewBy')) || Number.isNaN(Date.parse(text('reviewBy')))) {
      return `accepted[${i}].reviewBy must be a date (YYYY-MM-DD)`;
    }
    out.push({
      advisory: text('advisory'),
      package: text('package'),
      reason: text('reason'),
      reviewBy: text('reviewBy'),
    });
  }
  return out;
}

/**
 * What `npm audit --json` printed: the advisories of its report, or why there is no report.
 * @internal Exported for test/unit/audit-deps.test.ts.
 */
export function advisoriesOf(output: string): Advisory[] | { unchecked: string } {
  let report: Record<string, unknown>;
  try {
    report = JSON.parse(output) as Record<string, unknown>;
  } catch {
    return { unchecked: 'npm audit printed no JSON report' };
  }
  const vulnerabilities = report?.vulnerabilities;
  if (report?.auditReportVersion !== 2 || typeof vulnerabilities !== 'object' || vulnerabilities === null) {
    const message =
      typeof report?.message === 'string' ? report.message : (report?.error as { summary?: string })?.summary;
    return { unchecked: `the registry gave no advisories${message ? `: ${message}` : ''}` };
  }
  const found = new Map<string, Advisory>();
  for (const entry of Object.values(vulnerabilities as Record<string, { via?: unknown[] }>)) {
    for (const via of entry.via ?? []) {
      // A string names another vulnerable package (reported under its own name).
      if (typeof via !== 'object' || via === null) continue;
      const v = via as Record<string, unknown>;
      const url = typeof v.url === 'string' ? v.url : undefined;
      const id = url?.match(GHSA)?.[0] ?? String(v.source);
      const packageName = typeof v.name === 'string' ? v.name : String(v.dependency);
      found.set(`${id} ${packageName}`, {
        id,
        packageName,
        title: String(v.title ?? ''),
        severity: String(v.severity ?? 'unknown'),
        url,
        range: typeof v.range === 'string' ? v.range : undefined,
      });
    }
  }
  return [...found.values()];
}

/**
 * The advisories against the allow-list on `today` (`YYYY-MM-DD`).
 * @internal Exported for test/unit/audit-deps.test.ts.
 */
export function auditVerdict(output: string, allowList: readonly Accepted[], today: string): Verdict {
  const advisories = advisoriesOf(output);
  if (!Array.isArray(advisories)) return { kind: 'unchecked', why: advisories.unchecked };
  const match = (a: Advisory) => allowList.find((e) => e.advisory === a.id && e.package === a.packageName);
  const accepted: Advisory[] = [];
  const expired: Advisory[] = [];
  const unaccepted: Advisory[] = [];
  for (const advisory of advisories) {
    const entry = match(advisory);
    if (!entry) unaccepted.push(advisory);
    else if (entry.reviewBy < today) expired.push(advisory);
    else accepted.push(advisory);
  }
  const unused = allowList.filter((e) => !advisories.some((a) => a.id === e.advisory && a.packageName === e.package));
  return { kind: 'checked', unaccepted, accepted, expired, unused };
}

const describeAdvisory = (a: Advisory) =>
  `${a.severity} ${a.packageName}${a.range ? ` ${a.range}` : ''}: ${a.title} (${a.url ?? a.id})`;

/** `npm audit --omit=dev --json` in the repository: what it printed on stdout ('' if it could not run). */
function npmAudit(root: string): string {
  const audit = spawnSync('npm', ['audit', '--omit=dev', '--json'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return audit.stdout ?? '';
}

/** Where the step writes: its verdict on stdout, what needs attention on stderr. */
interface Output {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

const processOutput: Output = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/**
 * The step: its exit code, given the command-line arguments, npm's report and the allow-list.
 * @internal Exported for test/unit/audit-deps.test.ts (npm's report injected).
 */
export function main(
  argv: readonly string[],
  runAudit: (root: string) => string = npmAudit,
  output: Output = processOutput,
  allowListText?: string,
): number {
  const allowUnchecked = argv.includes('--allow-unchecked');
  const root = resolve(import.meta.dirname, '..');
  const allowList = parseAllowList(allowListText ?? readFileSync(resolve(root, 'audit-allowlist.json'), 'utf8'));
  if (typeof allowList === 'string') {
    output.err(`${allowList}\n`);
    return 2;
  }
  const today = new Date().toISOString().slice(0, 10);
  const verdict = auditVerdict(runAudit(root), allowList, today);
  if (verdict.kind === 'unchecked') {
    const line = `Dependencies NOT checked against advisories: ${verdict.why}.`;
    output.err(`${line}${allowUnchecked ? ' (allowed: --allow-unchecked)' : ''}\n`);
    return allowUnchecked ? 0 : 3;
  }
  for (const a of verdict.accepted) output.out(`accepted  ${describeAdvisory(a)}\n`);
  for (const e of verdict.unused) {
    output.out(`no longer reported, remove from audit-allowlist.json: ${e.advisory} (${e.package})\n`);
  }
  for (const a of verdict.expired) output.err(`REVIEW DATE PASSED  ${describeAdvisory(a)}\n`);
  for (const a of verdict.unaccepted) output.err(`NOT ACCEPTED  ${describeAdvisory(a)}\n`);
  const failing = verdict.unaccepted.length + verdict.expired.length;
  output.out(
    failing === 0 ? `Production dependencies: ${verdict.accepted.length} accepted advisories, none other.\n` : '',
  );
  if (failing > 0) {
    output.err(
      `${failing} advisories against production dependencies are not accepted: upgrade, or add each to audit-allowlist.json with its reason.\n`,
    );
    return 1;
  }
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv.slice(2));
}
