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
import { type SourceSettings, type SourceSetup, setupSource } from '../sources/index.js';
import { AppHints, type CoreFacts, checkCore, checkRunOptions, rolesMissingFrom } from './checks.js';
import { DuplicateCheck } from './duplicates.js';
import { InFlight } from './in-flight.js';
import { openPlan, type Plan } from './plan.js';
import { type Carried, ExportReader, type SignInCounts } from './read.js';
import {
  CheckRefusals,
  type ChunkSender,
  CoreDryRun,
  DEFAULT_GIVE_UP_AFTER_MS,
  LocalDryRun,
  type Sending,
  Stager,
} from './send.js';
import { AdaptiveSize, AUTO_START, type ChunkSizer, DEFAULT_REQUEST_SECONDS, FixedSize } from './sizing.js';
import type { MigrateSummary } from './summary.js';
import { readVerifyFile, type VerifyAccount, type VerifySummary, VerifyTargets, verifySignIns } from './verify.js';
import { waitForImport } from './wait.js';

export type { MigrateSummary } from './summary.js';

export const MAX_BATCH_SIZE = MAX_USERS_PER_STAGING_REQUEST;

export interface MigrateOptions {
  readonly exportPath: string;
  /** A source's name (sources/index.ts). */
  readonly source: string;
  readonly appId: string;
  readonly tenantId: string;
  readonly settings: SourceSettings;
  readonly dryRun: boolean;
  readonly reportPath: string;
  readonly statePath: string;
  readonly wait: boolean;
  /** Users per request: `auto` (sized from how long the core takes: sizing.ts), or a fixed number. */
  readonly batchSize: number | 'auto';
  /** How long a request should take with `batchSize: 'auto'` (s). @default DEFAULT_REQUEST_SECONDS */
  readonly requestSeconds?: number;
  /** How long one chunk may be refused for now, without a break, before the run stops. */
  readonly giveUpAfterMs?: number;
  readonly concurrency: number;
  /** `--verify <file>`: accounts to sign in after the import. */
  readonly verifyPath?: string;
  /** Delay between two count polls while waiting (ms). */
  readonly pollMs?: number;
}

export async function migrate(
  options: MigrateOptions,
  client: CoreClient,
  progress: Progress,
): Promise<MigrateSummary> {
  const exportSize = checkRunOptions(options, MAX_BATCH_SIZE);
  const verify = options.verifyPath === undefined ? undefined : await verifyAccounts(options, options.verifyPath);
  const source = await setupSource(options.source, options.exportPath, options.settings);
  try {
    for (const note of source.notes) progress.say(note);
    for (const secret of source.secrets ?? []) registerSecret(secret);
    const exportSha256 = await fileDigest(options.exportPath);
    const core = await checkCore(
      client,
      progress,
      { ...source, passwordHook: options.settings.passwordHook === true },
      options.tenantId,
      options.dryRun,
    );
    const plan = openPlan(options, progress, {
      ...options,
      exportSha256,
      inputDigests: source.inputDigests,
      providerMap: options.settings.providerMap,
    });
    const warnings = client.insecureWarning === undefined ? [] : [client.insecureWarning];
    let outcome: Outcome;
    try {
      for (const warning of warnings) plan.report.addWarning(warning);
      outcome = await sendAndWait(options, client, progress, source, core, plan, exportSize, verify);
    } finally {
      plan.close();
      progress.finishBar();
    }
    return summarise(options, progress, core, plan, { ...outcome, warnings });
  } finally {
    source.close();
  }
}

/** What a run found, besides the progress counters and the report's counts. */
interface Outcome {
  readonly missingRoles: string[];
  readonly waited: { imported: number; failed: number } | undefined;
  readonly wouldImport: number | undefined;
  readonly carried: Carried;
  readonly signIn: SignInCounts;
  readonly verified: VerifySummary | undefined;
}

/** The verify file's accounts, read before anything else (a bad file stops the run before staging). */
async function verifyAccounts(options: MigrateOptions, path: string): Promise<VerifyAccount[]> {
  if (options.dryRun)
    throw usageError('--verify signs accounts in after the import: it needs a real run, not --dry-run');
  if (!options.wait) throw usageError('--verify signs accounts in after the import: it cannot go with --no-wait');
  return readVerifyFile(path);
}

/** Reads and sends every chunk (staged, or checked in a dry run), names missing roles, waits for the import. */
async function sendAndWait(
  options: MigrateOptions,
  client: CoreClient,
  progress: Progress,
  source: SourceSetup,
  core: CoreFacts,
  plan: Plan,
  exportSize: number,
  verify: readonly VerifyAccount[] | undefined,
): Promise<Outcome> {
  const { journal, report } = plan;
  const hints = new AppHints(core.app, progress, options.dryRun, source.totpUsersKnown ?? 0);
  const refusals = new CheckRefusals(report, progress, hints);
  const sizer = sizerFor(options);
  const sending: Sending = { client, sizer, giveUpAfterMs: options.giveUpAfterMs ?? DEFAULT_GIVE_UP_AFTER_MS };
  const sender: ChunkSender = journal
    ? new Stager(sending, plan.key, journal, refusals, progress)
    : core.checksDryRun
      ? new CoreDryRun(sending, refusals)
      : new LocalDryRun(refusals);
  const verifyTargets = verify && new VerifyTargets(new Set(verify.map((a) => a.email)));
  const reader = new ExportReader({
    verifyTargets,
    source,
    exportPath: options.exportPath,
    sourceName: options.source,
    sizeAt: (start) => {
      // A chunk a run sent before keeps its range (its Idempotency-Key names that body); a new
      // one ends before the next such chunk.
      const sent = journal?.rangeAt(start);
      if (sent) return sent.users;
      const next = journal?.nextRangeAfter(start);
      return next === undefined ? sizer.next() : Math.min(sizer.next(), next - start);
    },
    report,
    progress,
    hints,
    duplicates: options.dryRun ? new DuplicateCheck(options.tenantId) : undefined,
  });

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

  const waited =
    journal && options.wait && progress.counters.staged > 0
      ? await waitForImport({
          client,
          progress,
          journal,
          positions: reader.positions,
          report,
          pollMs: options.pollMs ?? 1000,
        })
      : undefined;
  let verified: VerifySummary | undefined;
  if (verify && verifyTargets && options.verifyPath !== undefined) {
    progress.say(`checking that ${verify.length} accounts of ${options.verifyPath} sign in…`);
    verified = await verifySignIns(client, options.tenantId, verify, verifyTargets, options.verifyPath);
  }
  return {
    missingRoles,
    waited,
    wouldImport: sender.wouldImport,
    carried: reader.carried,
    signIn: reader.signIn,
    verified,
  };
}

/** `--batch-size`: a fixed size, or `auto` from the first request's {@link AUTO_START} users up to the core's limit. */
function sizerFor(options: MigrateOptions): ChunkSizer {
  if (options.batchSize !== 'auto') return new FixedSize(options.batchSize);
  return new AdaptiveSize({
    start: AUTO_START,
    min: AUTO_START,
    max: MAX_BATCH_SIZE,
    targetMs: (options.requestSeconds ?? DEFAULT_REQUEST_SECONDS) * 1000,
  });
}

/** Reads the export into chunks and sends each, at most `--concurrency` at a time. */
async function sendAll(
  reader: ExportReader,
  sender: ChunkSender,
  counter: ByteCounter,
  options: MigrateOptions,
): Promise<void> {
  const inFlight = new InFlight(options.concurrency);
  const chunks = reader.chunks(counter);
  try {
    for (;;) {
      // The next chunk is read (and sized) only once a request can start: its size then follows the
      // latest answers.
      await inFlight.room();
      const next = await chunks.next();
      if (next.done) break;
      const chunk = next.value;
      await inFlight.start(() => sender.send(chunk));
    }
    await inFlight.finish();
  } catch (error) {
    await inFlight.settle();
    await chunks.return(undefined);
    if (error instanceof CliError) throw error;
    throw usageError(`cannot read ${options.exportPath}: ${(error as Error).message}`);
  }
}

function summarise(
  options: MigrateOptions,
  progress: Progress,
  core: CoreFacts,
  plan: Plan,
  outcome: Outcome & { readonly warnings: string[] },
): MigrateSummary {
  const c = progress.counters;
  const { carried } = outcome;
  const { journal, report } = plan;
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
    coreChecked: dryRun ? core.checksDryRun : null,
    missingRoles: outcome.missingRoles,
    secondFactors: { carriedAsTotp: carried.totpUsers, notCarried: carried.factorUsers },
    metadataKeysDropped: { keys: carried.metadataKeys, users: carried.metadataUsers },
    signIn: outcome.signIn,
    verify: outcome.verified ?? null,
    warnings: outcome.warnings,
    report: options.reportPath,
    reportLines: report.total,
    leftBehindLines: report.leftBehind,
    state: dryRun ? null : options.statePath,
    elapsedSeconds: Math.round(progress.elapsedMs / 100) / 10,
    exitCode:
      dryRun && !core.checksDryRun
        ? EXIT.core
        : report.total > 0 || (outcome.verified?.failures.length ?? 0) > 0
          ? EXIT.someNotImported
          : EXIT.ok,
  };
}
