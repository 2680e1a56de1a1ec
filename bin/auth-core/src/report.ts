/**
 * The report (docs/migrating.md "The report"): one JSON line per user not imported (or, in a
 * dry run, not importable), one per user imported with something left behind (a second factor that
 * cannot be carried, metadata keys dropped because they look like credentials), and a line for each
 * warning about the run itself (plain http allowed by `--allow-insecure-http`). Every line has the
 * same keys: the source record's position (1-based) and id, the external user id, the stage, the
 * kind and the messages. Never a credential (every line is redacted, and the converters never quote
 * a secret), phone numbers masked but for their last two digits (personal.ts); mode 0600.
 */
import { closeSync, fstatSync, fsyncSync, writeSync } from 'node:fs';
import { maskPhones } from './personal.js';
import { openPrivate } from './private-file.js';
import { redact } from './redact.js';

export type Stage = 'convert' | 'check' | 'import';

/**
 * `not-imported`: the user is not in the core (stage says where it stopped). `left-behind`: the user
 * goes in, without what the messages name. `warning`: about the run, not a user (stage `run`).
 */
export type ReportKind = 'not-imported' | 'left-behind' | 'warning';

export interface ReportLine {
  readonly position: number;
  readonly sourceId: string | undefined;
  readonly externalUserId: string | undefined;
  readonly stage: Stage;
  readonly messages: readonly string[];
  /** The user's phone numbers as messages may quote them (`phoneSpellings`): masked in the messages. */
  readonly phoneNumbers?: readonly string[];
}

export class Report {
  private fd: number | undefined;
  /** Users not imported, by the stage that stopped them. */
  readonly counts: Record<Stage, number> = { convert: 0, check: 0, import: 0 };
  /** Lines of users imported with something left behind. */
  leftBehind = 0;
  warnings = 0;

  constructor(readonly path: string) {
    this.fd = openPrivate(path, 'w', 'report');
  }

  /** Users not imported. */
  get total(): number {
    return this.counts.convert + this.counts.check + this.counts.import;
  }

  /** A user not imported. */
  add(line: ReportLine): void {
    this.counts[line.stage] += 1;
    this.write(line, 'not-imported');
  }

  /** A user imported (or staged) without something it had: a factor, metadata keys. */
  addLeftBehind(line: ReportLine): void {
    this.leftBehind += 1;
    this.write(line, 'left-behind');
  }

  /** A warning about the whole run (no user). */
  addWarning(message: string): void {
    this.warnings += 1;
    const out = {
      position: null,
      sourceId: null,
      externalUserId: null,
      stage: 'run',
      kind: 'warning',
      messages: [redact(message)],
    };
    writeSync(this.open, `${redact(JSON.stringify(out))}\n`);
  }

  private write(line: ReportLine, kind: ReportKind): void {
    const out = {
      position: line.position,
      sourceId: line.sourceId ?? null,
      externalUserId: line.externalUserId ?? null,
      stage: line.stage,
      kind,
      messages: line.messages.map((m) => redact(maskPhones(m, line.phoneNumbers ?? []))),
    };
    writeSync(this.open, `${redact(JSON.stringify(out))}\n`);
  }

  /** Flushes and closes the file (again: nothing). */
  close(): void {
    if (this.fd === undefined) return;
    // A device or pipe (`--report /dev/null`) cannot be synced (EINVAL); there is nothing to keep.
    if (fstatSync(this.fd).isFile()) fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = undefined;
  }

  private get open(): number {
    if (this.fd === undefined) throw new Error('report closed');
    return this.fd;
  }
}
