/**
 * The summary a run ends with: as JSON (`--json`) or as text lines, both on stdout.
 */
import type { Stage } from '../report.js';
import type { SignInCounts } from './read.js';
import type { VerifySummary } from './verify.js';

export interface MigrateSummary {
  source: string;
  appId: string;
  tenantId: string;
  dryRun: boolean;
  records: number;
  converted: number;
  refused: Record<Stage, number>;
  staged: number;
  /** Chunks found already staged in the state file (resumed run). */
  resumedChunks: number;
  imported: number | null;
  failed: number | null;
  wouldImport: number | null;
  /** Dry run only: whether the core checked the chunks (false when it lacks dry-run support). */
  coreChecked: boolean | null;
  /** Roles the converted users hold that the app does not have (the core refuses those users). */
  missingRoles: string[];
  /** Second factors: users whose factors went in as TOTP devices, users with factors that could not. */
  secondFactors: { carriedAsTotp: number; notCarried: number };
  /** userMetadata keys dropped because they look like credentials, and the users they were dropped from. */
  metadataKeysDropped: { keys: number; users: number };
  /** Converted users by how they will sign in: hash family, pending the password-migration hook, no password. */
  signIn: SignInCounts;
  /** `--verify`: the sign-in check after the import (never a password). */
  verify: VerifySummary | null;
  /** Warnings about the run (plain http allowed by --allow-insecure-http); also in the report. */
  warnings: string[];
  report: string;
  /** Users not imported (dry run: not importable). */
  reportLines: number;
  /** Report lines of users imported with something left behind (a factor, metadata keys). */
  leftBehindLines: number;
  state: string | null;
  elapsedSeconds: number;
  exitCode: number;
}

/** The words that differ between a dry run and a real run. */
interface Tense {
  readonly kept: string;
  readonly imported: string;
  readonly every: string;
  readonly refused: string;
}

const DRY_RUN: Tense = { kept: 'would keep', imported: 'importable', every: 'would be', refused: 'would be' };
const REAL_RUN: Tense = { kept: 'kept', imported: 'imported', every: 'was', refused: 'were' };

/** The first line: what was done. */
function outcome(summary: MigrateSummary): string {
  const r = summary.refused;
  if (summary.dryRun) {
    return (
      `Dry run of ${summary.records} ${summary.source} records for app ${summary.appId} (tenant ${summary.tenantId}): ` +
      `${summary.wouldImport} would be imported, ${summary.reportLines} would not (${r.convert} at convert, ${r.check} at check)` +
      `${summary.coreChecked ? '' : '; the core did not check them (no dry-run support)'}. Nothing was staged.`
    );
  }
  const result =
    summary.imported === null
      ? `${summary.staged} staged (not waiting for the import)`
      : `${summary.imported} imported, ${summary.failed} failed at import`;
  return (
    `Migrated ${summary.records} ${summary.source} records into app ${summary.appId} (tenant ${summary.tenantId}): ` +
    `${summary.converted} converted, ${r.convert} refused at convert, ${r.check} refused at check, ${result}` +
    `${summary.resumedChunks > 0 ? ` (resumed: ${summary.resumedChunks} chunks were staged before)` : ''}.`
  );
}

/** The summary as text lines (not yet redacted). */
export function summaryLines(summary: MigrateSummary): string[] {
  const tense = summary.dryRun ? DRY_RUN : REAL_RUN;
  const lines = [outcome(summary)];
  const { carriedAsTotp, notCarried } = summary.secondFactors;
  if (carriedAsTotp > 0 || notCarried > 0) {
    lines.push(
      `Second factors: ${carriedAsTotp} users ${tense.kept} theirs as TOTP devices; ` +
        `${notCarried} users had factors that cannot be carried (report lines of kind left-behind: they enrol again).`,
    );
  }
  lines.push(signInLine(summary.signIn));
  if (summary.metadataKeysDropped.keys > 0) {
    lines.push(
      `Metadata: ${summary.metadataKeysDropped.keys} keys that look like credentials dropped from the userMetadata of ` +
        `${summary.metadataKeysDropped.users} users (their paths are in the report; tokens and secrets never enter user metadata).`,
    );
  }
  const left = summary.leftBehindLines > 0 ? `; ${summary.leftBehindLines} users go in with something left behind` : '';
  lines.push(
    summary.reportLines > 0
      ? `Report: ${summary.report} (${summary.reportLines} users not ${tense.imported}${left})`
      : `Report: ${summary.report} (every user ${tense.every} imported${left})`,
  );
  lines.push(...summary.warnings);
  if (summary.missingRoles.length > 0) {
    lines.push(
      `Roles not in app ${summary.appId} (users holding them ${tense.refused} refused): ${summary.missingRoles.join(', ')}`,
    );
  }
  if (summary.verify) lines.push(...verifyLines(summary.verify));
  if (summary.state) lines.push(`State: ${summary.state}`);
  lines.push(`Took ${summary.elapsedSeconds} s.`);
  return lines;
}

/** How the converted users will sign in. */
function signInLine(counts: SignInCounts): string {
  const families = Object.entries(counts.byHashFamily).sort(([a], [b]) => a.localeCompare(b));
  const hashed = families.reduce((sum, [, n]) => sum + n, 0);
  return (
    `How the converted users will sign in: ${hashed} with their password hash` +
    `${families.length > 0 ? ` (${families.map(([family, n]) => `${family} ${n}`).join(', ')})` : ''}, ` +
    `${counts.pendingHook} pending the password-migration hook, ${counts.withoutPassword} without a password (social or passwordless).`
  );
}

/** The sign-in check: "k of n sign in", then each failure with its hash family and likely cause. */
function verifyLines(verify: VerifySummary): string[] {
  return [
    `Sign-in check (${verify.file}): ${verify.signedIn} of ${verify.checked} sign in.`,
    ...verify.failures.map(
      (f) =>
        `  ${f.email} (${f.hashFamily === 'pending' ? 'pending the hook' : (f.hashFamily ?? 'not in the export')}): ${f.answer}; likely cause: ${f.likelyCause}`,
    ),
  ];
}
