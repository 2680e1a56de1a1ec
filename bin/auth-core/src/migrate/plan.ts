/**
 * The migration's identity and its journal. The migration key is what the export, its side files
 * and the options that shape the payload hash to; every chunk's Idempotency-Key derives from it and
 * from the chunk's range (where it starts among the converted users, how many it holds), so one key
 * always names one body, and a re-run sends the same chunk under the same key: the core answers it
 * as a replay, or stages what an interrupted request left. A real run journals each chunk's range
 * before sending it and each staged chunk after (state.ts); a re-run reads the journal to send the
 * same ranges again and to skip what is done.
 */
import { createHash } from 'node:crypto';
import type { Progress } from '../progress.js';
import { Report } from '../report.js';
import { StateFile } from '../state.js';

/** Bump when the converters' output changes: it is part of every Idempotency-Key. */
const PAYLOAD_FORMAT = 3;

export interface MigrationIdentity {
  readonly exportPath: string;
  readonly exportSha256: string;
  readonly inputDigests: readonly string[];
  readonly source: string;
  readonly appId: string;
  readonly tenantId: string;
  readonly providerMap: ReadonlyMap<string, string>;
}

/** The migration's key: what the export, its side files and the options that shape the payload hash to. */
function migrationKey(parts: Omit<MigrationIdentity, 'exportPath'>): string {
  const material = JSON.stringify({
    format: PAYLOAD_FORMAT,
    export: parts.exportSha256,
    inputs: parts.inputDigests,
    source: parts.source,
    app: parts.appId,
    tenant: parts.tenantId,
    providers: [...parts.providerMap.entries()].sort(),
  });
  return createHash('sha256').update(material).digest('hex').slice(0, 32);
}

/**
 * The Idempotency-Key of the chunk of `users` converted users from payload index `start`; `round`
 * > 0 after users the core refused were taken out.
 */
export function chunkKey(migration: string, start: number, users: number, round = 0): string {
  const key = `auth-core-migrate-${migration}-${start}+${users}`;
  return round === 0 ? key : `${key}-r${round}`;
}

/** What a run writes to: the journal of a real run (resumed when it is this migration's), and the report. */
export interface Plan {
  /** The migration key (chunkKey derives each chunk's Idempotency-Key from it). */
  readonly key: string;
  /** Undefined for a dry run, which stages nothing. */
  readonly journal: StateFile | undefined;
  readonly report: Report;
  close(): void;
}

export function openPlan(
  options: { readonly dryRun: boolean; readonly statePath: string; readonly reportPath: string },
  progress: Progress,
  identity: MigrationIdentity,
): Plan {
  const key = migrationKey(identity);
  const journal = options.dryRun ? undefined : openJournal(options.statePath, key, identity);
  if (journal?.resumed)
    progress.say(`resuming: ${journal.chunks.size} chunks already staged (state file ${options.statePath})`);
  let report: Report;
  try {
    report = new Report(options.reportPath);
  } catch (error) {
    journal?.close();
    throw error;
  }
  return {
    key,
    journal,
    report,
    close: () => {
      report.close();
      journal?.close();
    },
  };
}

/** Opens (or resumes) the journal of this migration at `statePath`. */
function openJournal(statePath: string, key: string, identity: MigrationIdentity): StateFile {
  return StateFile.open(statePath, {
    type: 'migration',
    key,
    exportPath: identity.exportPath,
    exportSha256: identity.exportSha256,
    source: identity.source,
    appId: identity.appId,
    tenantId: identity.tenantId,
    startedAt: new Date().toISOString(),
  });
}
