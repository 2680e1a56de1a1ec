/**
 * `auth-core migrate`: checks, plan, send, wait. The export is streamed and converted by its
 * source (sources/), checked with the core (checks.ts), identified and journaled (plan.ts), read
 * into chunks (read.ts) that one sender stages or checks (send.ts), then the run waits for the import
 * (wait.ts) and ends with a summary (summary.ts) and a report of every user not imported (report.ts).
 */

import { MAX_USERS_PER_STAGING_REQUEST } from '../contract.js';
import type { CoreClient } from '../core-client.js';
import { CliError, EXIT, usageError } from '../errors.js';
import { type ByteCounter, fileDigest } from '../input.js';
import type { Progress } from '../progress.js';
import { registerSecret } from '../redact.js';
import { Report } from '../report.js';
import { type SourceName, type SourceSettings, type SourceSetup, setupSource } from '../sources/index.js';
import type { StateFile } from '../state.js';
import { AppHints, checkRunOptions, ensureAppConfig, readApp, rolesMissingFrom, supportsDryRun } from './checks.js';
import { DuplicateCheck } from './duplicates.js';
import { InFlight } from './in-flight.js';
import { type MigrationIdentity, migrationKey, openJournal } from './plan.js';
import { type Carried, ExportReader } from './read.js';
import { CheckRefusals, type ChunkSender, CoreDryRun, LocalDryRun, Stager } from './send.js';
import type { MigrateSummary } from './summary.js';
import { waitForImport } from './wait.js';

export type { MigrateSummary } from './summary.js';

export const MAX_BATCH_SIZE = MAX_USERS_PER_STAGING_REQUEST;

export interface MigrateOptions {
  readonly exportPath: string;
  readonly source: SourceName;
  readonly appId: string;
  readonly tenantId: string;
  readonly settings: SourceSettings;
  readonly dryRun: boolean;
  readonly reportPath: string;
  readonly statePath: string;
  readonly wait: boolean;
  readonly batchSize: number;
  readonly concurrency: number;
  /** Delay between two count polls while waiting (ms). */
  readonly pollMs?: number;
}

export async function migrate(
  options: MigrateOptions,
  client: CoreClient,
  progress: Progress,
): Promise<MigrateSummary> {
  const exportSize = checkRunOptions(options, MAX_BATCH_SIZE);
  const source = await setupSource(options.source, options.exportPath, options.settings);
  try {
    return await run(options, client, progress, source, exportSize);
  } finally {
    source.close();
  }
}

async function run(
  options: MigrateOptions,
  client: CoreClient,
  progress: Progress,
  source: SourceSetup,
  exportSize: number,
): Promise<MigrateSummary> {
  // Checks: the app, what the source needs it to hold, and whether the core checks a dry run.
  for (const note of source.notes) progress.say(note);
  const exportSha256 = await fileDigest(options.exportPath);
  for (const secret of source.secrets ?? []) registerSecret(secret);
  const app = await readApp(client, options.tenantId);
  if (source.appConfig) await ensureAppConfig(client, progress, app, source.appConfig, options.dryRun);
  AppHints.checkTotpUsersKnown(app, progress, source.totpUsersKnown ?? 0, options.dryRun);
  const coreChecks = options.dryRun ? await dryRunSupport(client, progress) : true;

  // Plan: the migration's key, its journal (a real run), the report.
  const identity: MigrationIdentity = {
    exportPath: options.exportPath,
    exportSha256,
    inputDigests: source.inputDigests,
    source: options.source,
    appId: options.appId,
    tenantId: options.tenantId,
    batchSize: options.batchSize,
    providerMap: options.settings.providerMap,
  };
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
  const warnings = client.insecureWarning === undefined ? [] : [client.insecureWarning];
  let outcome: Outcome;
  try {
    for (const warning of warnings) report.addWarning(warning);
    const hints = new AppHints(app, progress, source.totpUsersKnown ?? 0);
    const refusals = new CheckRefusals(report, progress, hints);
    const sender: ChunkSender = journal
      ? new Stager(client, key, journal, refusals, progress)
      : coreChecks
        ? new CoreDryRun(client, refusals)
        : new LocalDryRun(refusals);
    const reader = new ExportReader({
      source,
      exportPath: options.exportPath,
      sourceName: options.source,
      batchSize: options.batchSize,
      dryRun: options.dryRun,
      report,
      progress,
      hints,
      duplicates: options.dryRun ? new DuplicateCheck(options.tenantId, options.batchSize) : undefined,
    });

    // Send: every chunk, `--concurrency` at a time; then the roles the users hold that the app lacks.
    const counter: ByteCounter = { bytes: 0 };
    progress.phase(options.dryRun ? 'checking' : 'staging', exportSize);
    await sendAll(reader, sender, counter, options);
    progress.update(counter.bytes);
    if (progress.counters.records === 0) throw usageError(`${options.exportPath} holds no records`);
    const missingRoles = await rolesMissingFrom(client, reader.rolesUsed);
    if (missingRoles.length > 0) {
      progress.say(
        `roles not in app ${options.appId}: ${missingRoles.join(', ')} — the users holding them are refused; create the roles (PUT /recipe/role) and run again`,
        true,
      );
    }

    // Wait: until the import is done, then the FAILED rows of this migration.
    const waited =
      journal && options.wait && progress.counters.staged > 0
        ? await waitForImport({
            client,
            progress,
            journal,
            batchSize: options.batchSize,
            positions: reader.positions,
            report,
            pollMs: options.pollMs ?? 1000,
          })
        : undefined;
    outcome = { coreChecks, missingRoles, warnings, waited, wouldImport: sender.wouldImport, carried: reader.carried };
  } finally {
    report.close();
    journal?.close();
    progress.finishBar();
  }
  return summarise(options, progress, report, journal, outcome);
}

/** Whether the core checks a dry run; says so when it cannot. */
async function dryRunSupport(client: CoreClient, progress: Progress): Promise<boolean> {
  const supported = await supportsDryRun(client);
  if (!supported) {
    progress.say(
      `The core at ${client.shownUrl} does not support dry runs (POST /bulk-import/users?dryRun=true answered without "dryRun":true). ` +
        'Only the conversion and the duplicate check across the file run; nothing is sent to the core.',
      true,
    );
  }
  return supported;
}

/** Reads the export into chunks and sends each, at most `--concurrency` at a time. */
async function sendAll(
  reader: ExportReader,
  sender: ChunkSender,
  counter: ByteCounter,
  options: MigrateOptions,
): Promise<void> {
  const inFlight = new InFlight(options.concurrency);
  try {
    for await (const chunk of reader.chunks(counter)) await inFlight.start(() => sender.send(chunk));
    await inFlight.finish();
  } catch (error) {
    await inFlight.settle();
    if (error instanceof CliError) throw error;
    throw usageError(`cannot read ${options.exportPath}: ${(error as Error).message}`);
  }
}

/** What a run found, besides the progress counters and the report's counts. */
interface Outcome {
  readonly coreChecks: boolean;
  readonly missingRoles: string[];
  readonly warnings: string[];
  readonly waited: { imported: number; failed: number } | undefined;
  readonly wouldImport: number | undefined;
  readonly carried: Carried;
}

function summarise(
  options: MigrateOptions,
  progress: Progress,
  report: Report,
  journal: StateFile | undefined,
  outcome: Outcome,
): MigrateSummary {
  const c = progress.counters;
  const { carried } = outcome;
  const dryRun = journal === undefined;
  return {
    source: options.source,
    appId: options.appId,
    tenantId: options.tenantId,
    dryRun,
    records: c.records,
    converted: c.converted,
    refused: { ...report.counts },
    staged: dryRun ? 0 : c.staged,
    resumedChunks: journal?.resumedChunks ?? 0,
    imported: outcome.waited?.imported ?? null,
    failed: outcome.waited?.failed ?? null,
    wouldImport: outcome.wouldImport ?? null,
    coreChecked: dryRun ? outcome.coreChecks : null,
    missingRoles: outcome.missingRoles,
    secondFactors: { carriedAsTotp: carried.totpUsers, notCarried: carried.factorUsers },
    metadataKeysDropped: { keys: carried.metadataKeys, users: carried.metadataUsers },
    warnings: outcome.warnings,
    report: options.reportPath,
    reportLines: report.total,
    leftBehindLines: report.leftBehind,
    state: dryRun ? null : options.statePath,
    elapsedSeconds: Math.round(progress.elapsedMs / 100) / 10,
    exitCode: dryRun && !outcome.coreChecks ? EXIT.core : report.total > 0 ? EXIT.someNotImported : EXIT.ok,
  };
}
