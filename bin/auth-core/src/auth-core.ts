/**
 * `npx auth-core`: the migration command (docs/migrating.md). Commands: `migrate`, `status`,
 * `failures`, `pending`. Progress and messages go to stderr, the summary to stdout; exit statuses are in
 * errors.ts.
 */
import { basename, dirname, join } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { exportFailures, stagedCounts } from './admin.js';
import { PUBLIC_TENANT_ID } from './contract.js';
import { CoreClient } from './core-client.js';
import { CliError, EXIT } from './errors.js';
import { MAX_BATCH_SIZE, type MigrateSummary, migrate } from './migrate/migrate.js';
import { DEFAULT_GIVE_UP_AFTER_MS } from './migrate/send.js';
import { AUTO_START, DEFAULT_REQUEST_SECONDS } from './migrate/sizing.js';
import { summaryLines } from './migrate/summary.js';
import { exportPending, pendingCounts } from './pending.js';
import { Progress, type ProgressMode } from './progress.js';
import { REDACTED, redact, registerSecret, shownArgument } from './redact.js';
import { parseProviderMap } from './sources/common.js';
import { SOURCE_DEFINITIONS, SOURCES } from './sources/index.js';
import { ALLOW_INSECURE_HTTP } from './transport.js';

const DEFAULT_CORE = 'http://localhost:3567';

interface CoreFlags {
  app: string;
  core?: string;
  apiKey?: string;
  allowInsecureHttp?: boolean;
}

/**
 * The client every subcommand talks to the core through; made before anything is read or sent, so
 * a URL the command refuses (src/transport.ts) stops it first. The warning for plain http allowed
 * by --allow-insecure-http goes to stderr on every run, whatever the output mode.
 */
function clientFor(flags: CoreFlags, progress?: Progress): CoreClient {
  const apiKey = flags.apiKey ?? process.env.AUTH_CORE_API_KEY;
  registerSecret(apiKey);
  const client = new CoreClient({
    url: flags.core ?? process.env.AUTH_CORE_URL ?? DEFAULT_CORE,
    apiKey: apiKey === '' ? undefined : apiKey,
    appId: flags.app,
    allowInsecureHttp: flags.allowInsecureHttp === true,
    onRetry: (what, attempt, delay) =>
      progress?.say(`retrying in ${Math.round(delay / 100) / 10} s (attempt ${attempt}: ${what})`),
  });
  if (client.insecureWarning !== undefined) process.stderr.write(`${redact(client.insecureWarning)}\n`);
  return client;
}

function integer(name: string) {
  return (value: string) => {
    if (!/^\d+$/.test(value)) throw new CliError(`${name} must be a positive integer`, EXIT.usage);
    return Number(value);
  };
}

function batchSize(value: string): number | 'auto' {
  if (value === 'auto') return 'auto';
  if (!/^\d+$/.test(value))
    throw new CliError(`--batch-size must be auto or an integer from 1 to ${MAX_BATCH_SIZE}`, EXIT.usage);
  return Number(value);
}

function progressMode(json: boolean): ProgressMode {
  if (json) return 'json';
  return process.stderr.isTTY ? 'tty' : 'plain';
}

/** The values of the sources' own flags given, under commander's names (`hashConfig`, `withRoles`). */
function sourceFlagValues(flags: Record<string, unknown>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const source of SOURCE_DEFINITIONS) {
    for (const flag of source.flags) {
      const name = new Option(flag.flags).attributeName();
      if (flags[name] !== undefined) values[name] = flags[name];
    }
  }
  return values;
}

function printSummary(summary: MigrateSummary, json: boolean): void {
  const lines = json ? [JSON.stringify(summary)] : summaryLines(summary);
  process.stdout.write(`${lines.map(redact).join('\n')}\n`);
}

const program = new Command('auth-core')
  .description(
    'Migrate users from Auth0, Firebase, Supabase, Clerk, Keycloak, Cognito, Django, WordPress or an import payload into the auth core.',
  )
  .exitOverride()
  // A mistyped `--api_key=<key>` comes back in "unknown option '…'": its value is not shown. A URL
  // quoted back (e.g. as an unknown command) is shown without user name, password, query or fragment.
  .configureOutput({
    outputError: (text, write) =>
      write(
        redact(
          text
            .replace(/(unknown option '[^'=]*)=[^']*'/, `$1=${REDACTED}'`)
            .replace(/'([^'\s]*)'/g, (_, token: string) => `'${shownArgument(token)}'`),
        ),
      ),
  })
  .showHelpAfterError('(run with --help for usage)');

const coreOptions = (command: Command) =>
  command
    .requiredOption('--app <appId>', 'the app to migrate into')
    .option('--core <url>', `the core's URL (default: $AUTH_CORE_URL, else ${DEFAULT_CORE})`)
    .option('--api-key <key>', "the app's API key (default: $AUTH_CORE_API_KEY; never printed)")
    .option(
      ALLOW_INSECURE_HTTP,
      'allow an http:// core URL that is not loopback: the API key and every credential then cross the network unencrypted (warned on every run)',
    );

const migrateCommand = coreOptions(
  program
    .command('migrate')
    .description(
      'convert an export, check it (--dry-run) or stage it, wait for the import and report who was not imported',
    )
    .argument('<export-file>', 'the export (may be gzipped)')
    .addOption(new Option('--from <source>', 'what made the export').choices(SOURCES).makeOptionMandatory()),
)
  .option('--tenant <id>', 'the tenant the users go to', PUBLIC_TENANT_ID)
  .option('--dry-run', 'convert and check every user with the core, stage nothing')
  .option('--report <file>', 'failure report (default: ./<appId>-migration-report.ndjson)')
  .option('--state <file>', 'resume state (default: next to the export)')
  .option('--no-wait', 'stage and exit without waiting for the import')
  .option(
    '--batch-size <n|auto>',
    `users per staging request: auto (from ${AUTO_START}, sized from how long the core takes, ≤ ${MAX_BATCH_SIZE}) or a fixed number ≤ ${MAX_BATCH_SIZE}`,
    batchSize,
    'auto',
  )
  .option(
    '--request-seconds <s>',
    'with --batch-size auto: how long one staging request should take',
    integer('--request-seconds'),
    DEFAULT_REQUEST_SECONDS,
  )
  .option(
    '--give-up-after <minutes>',
    'stop (exit 3) when the core refuses one chunk for now (5xx, 409, 429, no answer) for this long without a break',
    integer('--give-up-after'),
    DEFAULT_GIVE_UP_AFTER_MS / 60_000,
  )
  .option('--concurrency <n>', 'staging requests in parallel', integer('--concurrency'), 2)
  .option('--json', 'print a machine-readable summary instead of progress and text')
  .option('--provider-map <list>', 'provider=thirdPartyId,… overriding the default third-party ids')
  .option(
    '--password-hook',
    "import users whose export carries no password hash pending the app's password-migration hook (auth0, firebase, keycloak, cognito)",
  )
  .option(
    '--verify <file>',
    'after the import, sign in these accounts (CSV with a header email,password, or NDJSON {"email","password"}) and report who cannot',
  );
// Each source's own flags, as its definition (sources/<source>.ts) declares them.
for (const source of SOURCE_DEFINITIONS) {
  for (const flag of source.flags) migrateCommand.option(flag.flags, `${source.name}: ${flag.description}`);
}
migrateCommand.action(async (exportFile: string, flags: Record<string, unknown> & CoreFlags) => {
  const json = flags.json === true;
  const progress = new Progress(progressMode(json));
  const client = clientFor(flags, progress);
  let providerMap: Map<string, string>;
  try {
    providerMap = parseProviderMap(flags.providerMap as string | undefined);
  } catch (error) {
    throw new CliError((error as Error).message, EXIT.usage);
  }
  const tenantId = String(flags.tenant);
  const summary = await migrate(
    {
      exportPath: exportFile,
      source: String(flags.from),
      appId: flags.app,
      tenantId,
      settings: { ...sourceFlagValues(flags), tenantId, providerMap, passwordHook: flags.passwordHook === true },
      dryRun: flags.dryRun === true,
      reportPath: (flags.report as string | undefined) ?? `./${flags.app}-migration-report.ndjson`,
      statePath:
        (flags.state as string | undefined) ??
        join(dirname(exportFile), `${basename(exportFile)}.${flags.app}.migrate-state.ndjson`),
      wait: flags.wait !== false,
      batchSize: flags.batchSize as number | 'auto',
      requestSeconds: flags.requestSeconds as number,
      giveUpAfterMs: (flags.giveUpAfter as number) * 60_000,
      concurrency: flags.concurrency as number,
      ...(typeof flags.verify === 'string' ? { verifyPath: flags.verify } : {}),
    },
    client,
    progress,
  );
  printSummary(summary, json);
  process.exitCode = summary.exitCode;
});

coreOptions(program.command('status').description('staged users of the app by status'))
  .option('--watch', 'repeat every 2 seconds until NEW + PROCESSING = 0')
  .option('--json', 'print JSON')
  .action(async (flags: CoreFlags & { watch?: boolean; json?: boolean }) => {
    const client = clientFor(flags);
    for (;;) {
      const counts = await stagedCounts(client);
      process.stdout.write(
        flags.json
          ? `${redact(JSON.stringify({ appId: flags.app, ...counts, at: new Date().toISOString(), ...(client.insecureWarning ? { warnings: [client.insecureWarning] } : {}) }))}\n`
          : `${new Date().toISOString()} app ${flags.app}: NEW ${counts.NEW}, PROCESSING ${counts.PROCESSING}, FAILED ${counts.FAILED}\n`,
      );
      if (!flags.watch || counts.NEW + counts.PROCESSING === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  });

coreOptions(program.command('failures').description('every FAILED staged user of the app as NDJSON'))
  .option('--out <file>', 'write the rows to a file instead of stdout')
  .option('--remove', 'remove the rows afterwards (and check every id was removed)')
  .action(async (flags: CoreFlags & { out?: string; remove?: boolean }) => {
    const client = clientFor(flags);
    const result = await exportFailures(client, flags.out, flags.remove === true);
    const where = flags.out ?? 'stdout';
    process.stderr.write(`${result.rows} FAILED rows written to ${where}\n`);
    if (flags.remove) {
      process.stderr.write(`${result.deleted} removed\n`);
      if (result.notDeleted.length > 0) {
        process.stderr.write(
          `${result.notDeleted.length} not removed (in invalidIds or missing from deletedIds): ${result.notDeleted.join(', ')}\n`,
        );
        process.exitCode = EXIT.someNotImported;
      }
    }
  });

coreOptions(
  program
    .command('pending')
    .description('users still pending the password-migration hook, as NDJSON (docs/password-migration-hook.md)'),
)
  .option('--out <file>', 'write the users to a file instead of stdout')
  .action(async (flags: CoreFlags & { out?: string }) => {
    const client = clientFor(flags);
    const rows = await exportPending(client, flags.out);
    const { pending, migrated } = await pendingCounts(client);
    process.stderr.write(
      `${rows} pending users written to ${flags.out ?? 'stdout'} (the core counts ${pending} pending, ${migrated} migrated by the hook)\n`,
    );
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(error.code)
      ? EXIT.ok
      : EXIT.usage;
  } else if (error instanceof CliError) {
    process.stderr.write(`error: ${redact(error.message)}\n`);
    process.exitCode = error.exitCode;
  } else {
    process.stderr.write(`error: ${redact(error instanceof Error ? error.message : String(error))}\n`);
    process.exitCode = EXIT.core;
  }
}
