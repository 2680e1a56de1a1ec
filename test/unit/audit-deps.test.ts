import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { advisoriesOf, auditVerdict, main, parseAllowList } from '../../bin/audit-deps.js';

/**
 * The dependency audit step (docs/security.md "Known-vulnerable dependencies"): npm's report read
 * against the allow-list. A report with an advisory nobody accepted fails; an error instead of a
 * report is "not checked", never "clean".
 */

const GHSA = 'GHSA-xvch-5gv4-984h';

/** `npm audit --json` (report version 2) with one direct and one transitive vulnerable package. */
const REPORT = JSON.stringify({
  auditReportVersion: 2,
  vulnerabilities: {
    minimist: {
      name: 'minimist',
      severity: 'critical',
      isDirect: false,
      via: [
        {
          source: 1096331,
          name: 'minimist',
          dependency: 'minimist',
          title: 'Prototype Pollution in minimist',
          url: `https://github.com/advisories/${GHSA}`,
          severity: 'critical',
          range: '<0.2.4',
        },
      ],
      effects: ['mkdirp'],
      range: '<=0.2.3',
      nodes: ['node_modules/minimist'],
      fixAvailable: true,
    },
    mkdirp: {
      name: 'mkdirp',
      severity: 'critical',
      isDirect: true,
      via: ['minimist'],
      effects: [],
      range: '0.4.1 - 0.5.1',
    },
  },
  metadata: { vulnerabilities: { critical: 2, total: 2 } },
});
const CLEAN = JSON.stringify({
  auditReportVersion: 2,
  vulnerabilities: {},
  metadata: { vulnerabilities: { total: 0 } },
});
const REFUSED = JSON.stringify({
  message: '405 Method Not Allowed - POST <registry>/-/npm/v1/security/advisories/bulk',
  statusCode: 405,
  error: { summary: '', detail: '' },
});
const OFFLINE = JSON.stringify({ error: { code: 'ENOTFOUND', summary: 'request to <registry> failed' } });

const entry = (over: Record<string, unknown> = {}) => ({
  advisory: GHSA,
  package: 'minimist',
  reason: 'only reached through the build tooling, never with user input',
  reviewBy: '2027-03-01',
  ...over,
});
const list = (...entries: unknown[]) => {
  const parsed = parseAllowList(JSON.stringify({ accepted: entries }));
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
};

describe('npm audit report', () => {
  it('reads each advisory once, by its GHSA id, and skips the packages that only pass one on', () => {
    expect(advisoriesOf(REPORT)).toEqual([
      {
        id: GHSA,
        packageName: 'minimist',
        title: 'Prototype Pollution in minimist',
        severity: 'critical',
        url: `https://github.com/advisories/${GHSA}`,
        range: '<0.2.4',
      },
    ]);
    expect(advisoriesOf(CLEAN)).toEqual([]);
  });

  it('an error instead of a report is "not checked", never clean — whatever it says (property)', () => {
    expect(auditVerdict(REFUSED, [], '2026-11-28')).toEqual({
      kind: 'unchecked',
      why: expect.stringContaining('405 Method Not Allowed'),
    });
    expect(auditVerdict(OFFLINE, [], '2026-11-28').kind).toBe('unchecked');
    expect(auditVerdict('', [], '2026-11-28').kind).toBe('unchecked');
    fc.assert(
      fc.property(fc.json(), (output) => {
        const parsed = JSON.parse(output);
        const isReport =
          parsed !== null &&
          typeof parsed === 'object' &&
          parsed.auditReportVersion === 2 &&
          typeof parsed.vulnerabilities === 'object' &&
          parsed.vulnerabilities !== null;
        if (!isReport) expect(auditVerdict(output, [], '2026-11-28').kind).toBe('unchecked');
      }),
    );
  });
});

describe('the allow-list', () => {
  it('an advisory nobody accepted fails; accepted with its reason it passes; past its review date it fails again', () => {
    expect(auditVerdict(REPORT, [], '2026-11-28')).toMatchObject({ kind: 'checked', unaccepted: [{ id: GHSA }] });
    expect(auditVerdict(REPORT, list(entry()), '2026-11-28')).toMatchObject({
      kind: 'checked',
      unaccepted: [],
      accepted: [{ id: GHSA }],
      expired: [],
    });
    expect(auditVerdict(REPORT, list(entry()), '2027-03-02')).toMatchObject({ expired: [{ id: GHSA }], accepted: [] });
    // Accepted for another package: not this one.
    expect(auditVerdict(REPORT, list(entry({ package: 'other' })), '2026-11-28')).toMatchObject({
      unaccepted: [{ id: GHSA }],
      unused: [{ package: 'other' }],
    });
    expect(auditVerdict(CLEAN, list(entry()), '2026-11-28')).toMatchObject({
      unaccepted: [],
      unused: [{ advisory: GHSA }],
    });
  });

  it('refuses entries without an advisory id, a package, a reason or a review date', () => {
    expect(parseAllowList('not json')).toBe('audit-allowlist.json is not JSON');
    expect(parseAllowList('[]')).toMatch(/must be \{"accepted"/);
    expect(parseAllowList(JSON.stringify({ accepted: [entry({ advisory: 'CVE-2021-44906' })] }))).toMatch(/advisory/);
    expect(parseAllowList(JSON.stringify({ accepted: [entry({ package: '' })] }))).toMatch(/package/);
    expect(parseAllowList(JSON.stringify({ accepted: [entry({ reason: 'ok' })] }))).toMatch(/reason/);
    expect(parseAllowList(JSON.stringify({ accepted: [entry({ reviewBy: 'soon' })] }))).toMatch(/reviewBy/);
  });

  it("the repository's own allow-list is valid", () => {
    const parsed = parseAllowList(readFileSync(new URL('../../audit-allowlist.json', import.meta.url), 'utf8'));
    expect(Array.isArray(parsed), String(parsed)).toBe(true);
  });
});

describe('the step as developers and CI run it (npm run audit:deps [-- --allow-unchecked])', () => {
  /** Runs the step with npm's report `report` and the allow-list `accepted`: exit code and output. */
  const step = (argv: string[], report: string, accepted: unknown[] = []) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = main(
      argv,
      () => report,
      { out: (t) => out.push(t), err: (t) => err.push(t) },
      JSON.stringify({ accepted }),
    );
    return { code, out: out.join(''), err: err.join('') };
  };

  it('an advisory nobody accepted fails the step, with --allow-unchecked too (CI), naming it', () => {
    for (const argv of [[], ['--allow-unchecked']]) {
      const run = step(argv, REPORT);
      expect(run.code).toBe(1);
      expect(run.err).toContain(`NOT ACCEPTED  critical minimist <0.2.4: Prototype Pollution in minimist`);
      expect(run.err).toContain(GHSA);
      expect(run.err).toContain('1 advisories against production dependencies are not accepted');
    }
  });

  it('an accepted advisory passes; past its review date it fails again, with --allow-unchecked too', () => {
    expect(step(['--allow-unchecked'], REPORT, [entry()])).toMatchObject({
      code: 0,
      out: expect.stringContaining('1 accepted advisories, none other'),
    });
    const expired = step(['--allow-unchecked'], REPORT, [entry({ reviewBy: '2020-01-01' })]);
    expect(expired.code).toBe(1);
    expect(expired.err).toContain('REVIEW DATE PASSED');
  });

  it('no report (registry without the audit endpoint, offline, npm not run) is "not checked": 3, or 0 with --allow-unchecked', () => {
    for (const report of [REFUSED, OFFLINE, '']) {
      const strict = step([], report);
      expect(strict.code).toBe(3);
      expect(strict.err).toMatch(/^Dependencies NOT checked against advisories: /);
      expect(strict.out).toBe('');
      const tolerated = step(['--allow-unchecked'], report);
      expect(tolerated.code).toBe(0);
      expect(tolerated.err).toMatch(/NOT checked against advisories: .*\(allowed: --allow-unchecked\)/);
      // Never reported as clean.
      expect(tolerated.out).toBe('');
    }
  });

  it('a clean report passes; a malformed allow-list stops the step (2) whatever npm says', () => {
    expect(step([], CLEAN)).toMatchObject({
      code: 0,
      out: 'Production dependencies: 0 accepted advisories, none other.\n',
    });
    const out: string[] = [];
    const code = main(['--allow-unchecked'], () => CLEAN, { out: (t) => out.push(t), err: (t) => out.push(t) }, '[]');
    expect(code).toBe(2);
    expect(out.join('')).toMatch(/must be \{"accepted"/);
  });
});
