/**
 * The failure report: one JSON line per user not imported (or, in a dry run, not importable): the
 * source record's position (1-based) and id, the external user id, the stage that stopped it
 * (`convert` | `check` | `import`) and the messages. Never a credential (every line is redacted),
 * phone numbers masked but for their last two digits (bin/cli/personal.ts); mode 0600.
 */
import { closeSync, fstatSync, fsyncSync, writeSync } from 'node:fs';
import { maskPhones } from './personal.js';
import { openPrivate } from './private-file.js';
import { redact } from './redact.js';

export type Stage = 'convert' | 'check' | 'import';

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
  private fd: number;
  readonly counts: Record<Stage, number> = { convert: 0, check: 0, import: 0 };

  constructor(readonly path: string) {
    this.fd = openPrivate(path, 'w', 'report');
  }

  get total(): number {
    return this.counts.convert + this.counts.check + this.counts.import;
  }

  add(line: ReportLine): void {
    this.counts[line.stage] += 1;
    const out = {
      position: line.position,
      sourceId: line.sourceId ?? null,
      externalUserId: line.externalUserId ?? null,
      stage: line.stage,
      messages: line.messages.map((m) => redact(maskPhones(m, line.phoneNumbers ?? []))),
    };
    writeSync(this.fd, `${redact(JSON.stringify(out))}\n`);
  }

  close(): void {
    // A device or pipe (`--report /dev/null`) cannot be synced (EINVAL); there is nothing to keep.
    if (fstatSync(this.fd).isFile()) fsyncSync(this.fd);
    closeSync(this.fd);
  }
}
