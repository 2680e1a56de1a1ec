import { Console } from 'node:console';
import type { AddressInfo } from 'node:net';
import type { RouteDefinition } from '#functions/routes.js';
import { ENV } from '#functions/shared/env.js';
import { WORKERS } from '#functions/workers.js';
import { displayUrl } from '../shared/display-url.js';
import { describeHandlerSource } from './bundles.js';
import { type CapacityProxy, startCapacityProxy } from './capacity-proxy.js';
import { DataDirModeError, makeDataDirPrivate, PRIVATE_UMASK, type Tightened } from './data-dir.js';
import { createRouter, loadHandler, useHandler } from './dispatch.js';
import { type DynamoDbLocal, ensureTable, freePort, startDynamoDbLocal } from './dynamodb.js';
import { HASHING_ROUTE_IDS, type HashingContexts, startHashingContexts } from './hashing-routes.js';
import { createLocalHttpServer, describe, type LocalHttpServer } from './http-server.js';
import { checkJava } from './java.js';
import { holdsData, KeyFileError, type LocalKey, useLocalKey } from './key-file.js';
import {
  type ExternalDynamoDb,
  inMemoryFeatureEnv,
  type LocalOptions,
  OptionsError,
  parseCommand,
  USAGE,
} from './options.js';
import { DataDirInUseError, removePidFile, stopOrphanedDynamoDbLocal, writePidFile } from './pidfile.js';
import { BACKGROUND_SERVICES, type RunningService, type ServiceContext } from './services.js';

/**
 * The local runtime behind `npm start`: DynamoDB Local, the table, the background services
 * (none yet, see services.ts) and an HTTP server that hands the route manifest's requests to the
 * real handlers as API Gateway v2 events.
 *
 * Output: the runtime's own messages are plain lines (problems on stderr); everything the
 * handlers write — their JSON log lines and any console output — goes to stdout, as it would go
 * to CloudWatch.
 */

const say = (message: string) => process.stdout.write(`${message}\n`);
const report = (message: string) => process.stderr.write(`${message}\n`);

/** Graceful shutdown: how long requests in flight may take to finish. */
const DRAIN_MS = 5000;
/** A shutdown requested during start-up waits at most this long for the current step. */
const STARTUP_WAIT_MS = 15_000;

class StopRequested extends Error {}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Handlers may use console.* freely: like Lambda, all of it goes to the one log stream (stdout). */
function routeConsoleToStdout(): void {
  globalThis.console = new Console({ stdout: process.stdout, stderr: process.stdout });
}

function listenProblem(error: NodeJS.ErrnoException, options: LocalOptions): string {
  const where = `${options.host}:${options.port}`;
  if (error.code === 'EADDRINUSE') {
    return (
      `Port ${options.port} is already in use on ${options.host} (another core, or a previous run still going?). ` +
      `Stop it or pick another port, e.g. PORT=${options.port === 3567 ? 3568 : 3567} npm start`
    );
  }
  if (error.code === 'EACCES') return `Not allowed to listen on ${where}: choose a port above 1023 (PORT=…)`;
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') {
    return `Cannot listen on ${where}: HOST '${options.host}' is not an address of this machine`;
  }
  return `Cannot listen on ${where}: ${error.message}`;
}

function tightenedMessage(dataDir: string, tightened: readonly Tightened[]): string {
  return (
    `Others could read or write parts of the data folder ${dataDir}; made them owner-only: ` +
    `${tightened.map((t) => `${t.name} (was ${t.was})`).join(', ')}.`
  );
}

function apiKeyStatus(apiKeys: unknown): string {
  const count =
    typeof apiKeys === 'string'
      ? apiKeys
          .replace(/\s/g, '')
          .split(',')
          .filter((k) => k !== '').length
      : 0;
  if (count === 0) return `not required (set ${ENV.apiKeys} to require one)`;
  return `required — ${count} key${count === 1 ? '' : 's'} from ${ENV.apiKeys}; send one in the 'api-key' header`;
}

/** Whether the base configuration turns account linking, MFA and the OAuth2 provider on (an app's coreConfig may differ). */
function featureStatus(base: Readonly<Record<string, unknown>>): string {
  const on = (key: string) =>
    base[key] === true || (typeof base[key] === 'string' && base[key].toLowerCase() === 'true');
  const state = (key: string) => (on(key) ? 'on' : 'off');
  return `account linking ${state('account_linking_enabled')}, MFA ${state('mfa_enabled')}, OAuth2 provider ${state('oauth_provider_enabled')} by default`;
}

async function preloadHandlers(routes: readonly RouteDefinition[]) {
  const results = await Promise.all(
    routes.map((route) =>
      loadHandler(route).then(
        () => undefined,
        (error: unknown) => ({ route, error }),
      ),
    ),
  );
  return results.filter((r) => r !== undefined);
}

/**
 * The DynamoDB that DYNAMODB_ENDPOINT names, made ready for the handlers (whose environment already
 * points at it): on a DynamoDB Local the base table is created when missing; on AWS it must exist
 * with this core's keys and indexes (tables there come from the stack). Returns the banner line.
 */
async function useExternalDynamoDb(external: ExternalDynamoDb, tableName: string): Promise<string> {
  const { createTableIfMissing, tableNamed, tableProblem } = await import('#functions/storage/kit/index.js');
  const table = tableNamed(tableName);
  const shown = displayUrl(external.url);
  try {
    if (!external.aws) await createTableIfMissing(table);
    const problem = await tableProblem(table);
    if (problem !== undefined) throw new Error(`the base table cannot be used: ${problem}`);
  } catch (error) {
    throw new Error(`DynamoDB at ${shown} (DYNAMODB_ENDPOINT): ${describe(error)}`);
  }
  return external.aws
    ? `${shown} (AWS, region ${process.env.AWS_REGION}; tables are checked, not created), table ${tableName}`
    : `${shown} (DynamoDB Local; tables are created as needed), table ${tableName}`;
}

/** Runs the runtime until a signal stops it; resolves with the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const started = performance.now();
  let options: LocalOptions;
  try {
    const command = parseCommand(argv, process.env, process.cwd());
    if (command.help) {
      say(USAGE);
      return 0;
    }
    options = command.options;
  } catch (error) {
    if (!(error instanceof OptionsError)) throw error;
    report(`${error.message}\n\n${USAGE}`);
    return 2;
  }

  // Java runs the bundled DynamoDB Local; an external DynamoDB (DYNAMODB_ENDPOINT) needs none.
  const java = options.dynamodbEndpoint ? undefined : checkJava();
  if (java && !java.ok) {
    report(java.message);
    return 1;
  }
  routeConsoleToStdout();
  // Everything this runtime and DynamoDB Local (its child) create is owner-only (data-dir.ts).
  process.umask(PRIVATE_UMASK);

  let exitCode = 0;
  let stopping = false;
  let startupDone: () => void = () => undefined;
  const startup = new Promise<void>((r) => {
    startupDone = r;
  });
  let finished: (code: number) => void = () => undefined;
  const done = new Promise<number>((r) => {
    finished = r;
  });

  // Cleanups run in reverse order of registration.
  const cleanups: { name: string; run: () => Promise<void> | void }[] = [];
  let ddb: DynamoDbLocal | undefined;

  async function shutdown(code: number, why: string): Promise<void> {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    say(why);
    await Promise.race([startup, new Promise((r) => setTimeout(r, STARTUP_WAIT_MS).unref())]);
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup.run();
      } catch (error) {
        report(`Stopping ${cleanup.name} failed: ${describe(error)}`);
        exitCode ||= 1;
      }
    }
    say(exitCode === 0 ? 'Stopped.' : `Stopped (exit code ${exitCode}).`);
    finished(exitCode);
  }

  let firstSignalAt: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (firstSignalAt === undefined) {
      firstSignalAt = Date.now();
      void shutdown(0, `\nReceived ${signal}, stopping…`);
      return;
    }
    // The same Ctrl-C can arrive twice (from the terminal and relayed by tsx): ignore that one.
    if (Date.now() - firstSignalAt < 1000) return;
    // A second Ctrl-C: do not wait any longer.
    report(`Received ${signal} again: exiting now.`);
    if (ddb?.process.pid !== undefined) ddb.process.kill('SIGKILL');
    if (options.dataDir) removePidFile(options.dataDir, process.pid);
    process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  process.on('unhandledRejection', (reason) => {
    report(`Unhandled promise rejection (a handler bug?): ${describe(reason)}`);
  });
  process.on('uncaughtException', (error) => {
    report(`Uncaught exception: ${describe(error)}`);
    void shutdown(1, 'Stopping after an uncaught exception…');
  });

  const checkpoint = () => {
    if (stopping) throw new StopRequested();
  };

  // The handlers' environment is fixed before anything that reads it is imported (handler modules
  // load in step 5, after the background services have added theirs). DynamoDB Local's port is
  // chosen now so its endpoint is known up front.
  const external = options.dynamodbEndpoint;
  const dynamodbPort = external ? undefined : (options.dynamodbPort ?? (await freePort()));
  const dynamodbEndpoint = external ? external.url : `http://127.0.0.1:${dynamodbPort}`;
  // Capacity-limited mode: the handlers reach DynamoDB through a proxy that meters every table's
  // units and throttles beyond its budget (capacity-proxy.ts); the import worker's pace starts at
  // that budget. Started now, so the handlers' environment names it from the start.
  let capacity: CapacityProxy | undefined;
  if (options.writeCapacity) {
    capacity = await startCapacityProxy({
      target: dynamodbEndpoint,
      settings: options.writeCapacity,
      region: options.region,
      say,
    });
    const proxy = capacity;
    cleanups.push({ name: 'the capacity proxy', run: () => proxy.stop() });
    process.env[ENV.importWriteUnits] ??= String(options.writeCapacity.initialUnits);
  }
  process.env[ENV.tableName] = options.tableName;
  process.env[ENV.dynamodbEndpoint] = capacity?.endpoint ?? dynamodbEndpoint;
  // Only the command line turns the rehearsal on (and the banner then says so).
  if (options.simulateThrottling === undefined) delete process.env[ENV.simulateThrottling];
  else process.env[ENV.simulateThrottling] = String(options.simulateThrottling);
  process.env.AWS_REGION = options.region;
  // The functions may call loopback addresses here only (the hook against a legacy endpoint on this
  // machine; docs/security.md "Outbound requests"): the stack never sets it.
  process.env[ENV.localRuntime] = 'true';
  // Against a DynamoDB Local (bundled or a container), a table an app's config names is created on
  // first use; against AWS, tables come from the stack or the operator and are only checked.
  if (external?.aws) delete process.env[ENV.createTables];
  else process.env[ENV.createTables] = 'true';

  // In memory, account linking, MFA and the OAuth2 provider are on for every app unless the environment says otherwise
  // (options.ts, inMemoryFeatureEnv): the base configuration reads them from the environment.
  const features = inMemoryFeatureEnv(options, process.env);
  Object.assign(process.env, features);

  // The base configuration is checked before anything starts: a bad API_KEYS fails in a second.
  let base: Readonly<Record<string, unknown>>;
  let routes: readonly RouteDefinition[];
  try {
    const [{ getBaseConfig }, { ROUTES }] = await Promise.all([
      import('#functions/config/index.js'),
      import('#functions/routes.js'),
    ]);
    base = await getBaseConfig();
    routes = ROUTES;
  } catch (error) {
    report(
      error instanceof Error && /config/i.test(error.name)
        ? error.message
        : `Cannot load the configuration: ${describe(error)}`,
    );
    return 1;
  }
  // Sources, or (HANDLER_BUNDLES) the synthesized bundles: every entry must have one.
  let handlerSource: string;
  try {
    handlerSource = describeHandlerSource([...routes, ...WORKERS]);
  } catch (error) {
    report(describe(error));
    return 1;
  }

  let http: LocalHttpServer;
  let address: AddressInfo;
  let services: { name: string; running: RunningService }[] = [];
  let hashing: HashingContexts | undefined;
  let localKey: LocalKey | undefined;
  try {
    // 1. Bind the port first: a busy port is reported at once, not after DynamoDB Local started.
    //    Requests that arrive before everything is ready wait for it.
    http = createLocalHttpServer({ report, allowedHosts: options.allowedHosts });
    try {
      address = await http.listen(options.port, options.host);
    } catch (error) {
      report(listenProblem(error as NodeJS.ErrnoException, options));
      return 1;
    }
    const server = http;
    cleanups.push({ name: 'the HTTP server', run: () => server.close(DRAIN_MS) });

    // 2. DynamoDB Local, after making sure no earlier one still has the database open — or the
    //    DynamoDB that DYNAMODB_ENDPOINT names.
    let dynamoMs = 0;
    let hadData = false;
    let tightened: Tightened[] = [];
    let dynamoLine: string;
    if (external) {
      const mark = performance.now();
      dynamoLine = await useExternalDynamoDb(external, options.tableName);
      dynamoMs = performance.now() - mark;
    } else {
      if (options.dataDir) {
        tightened = makeDataDirPrivate(options.dataDir);
        if (tightened.length > 0) report(tightenedMessage(options.dataDir, tightened));
        hadData = holdsData(options.dataDir);
        const stale = await stopOrphanedDynamoDbLocal(options.dataDir);
        if (stale !== undefined) say(`Stopped a DynamoDB Local left over from an earlier run (pid ${stale}).`);
      }
      checkpoint();
      // DynamoDB Local is a long-lived but lightly loaded JVM here: the C1 compiler alone starts it
      // noticeably faster (~40% on a busy 2-core machine) at no visible cost for a local core. A
      // user-set JAVA_TOOL_OPTIONS wins.
      process.env.JAVA_TOOL_OPTIONS ??= '-XX:TieredStopAtLevel=1';
      const mark = performance.now();
      const dynamo = await startDynamoDbLocal({ dataDir: options.dataDir, port: dynamodbPort });
      ddb = dynamo;
      dynamoMs = performance.now() - mark;
      const dynamoPid = dynamo.process.pid ?? -1;
      dynamoLine =
        `DynamoDB Local pid ${dynamoPid} at ${dynamo.endpoint}, table ${options.tableName} ` +
        '(this machine only, telemetry off)';
      const dataDir = options.dataDir;
      if (dataDir) {
        writePidFile(dataDir, {
          runtimePid: process.pid,
          dynamodbPid: dynamoPid,
          dynamodbPort: Number(new URL(dynamo.endpoint).port),
          startedAt: new Date().toISOString(),
        });
      }
      cleanups.push({
        name: 'DynamoDB Local',
        run: async () => {
          await dynamo.stop();
          if (dataDir) removePidFile(dataDir, process.pid);
        },
      });
      dynamo.process.once('exit', (code, signal) => {
        if (stopping) return;
        report(`DynamoDB Local exited unexpectedly (${signal ?? `code ${code}`}).`);
        void shutdown(1, 'Stopping: the core cannot work without its database.');
      });
      checkpoint();

      // 3. The table, from the shared definition (kept when the database is persisted).
      await ensureTable(dynamo.endpoint, options.tableName);
    }
    // The key that seals credentials at rest (before anything that reads the environment starts).
    localKey = useLocalKey(process.env, options.dataDir, hadData);
    if (localKey.replacedLostKey) {
      report(
        `A new key file was created (${localKey.path}) for a data directory that already holds data: ` +
          'staged users sealed with the previous key cannot be imported and will end FAILED; ' +
          "apps' Firebase signer keys must be set again.",
      );
    }
    checkpoint();

    // 4. Background services (extension point: local SQS, pollers, reconciler).
    const context: ServiceContext = {
      env: process.env,
      dataDir: options.dataDir,
      region: options.region,
      dynamodbEndpoint,
      tableName: options.tableName,
      say,
      report,
      fail: (message) => {
        report(message);
        void shutdown(1, 'Stopping: a background service failed.');
      },
    };
    for (const service of BACKGROUND_SERVICES) {
      const running = await service.start(context);
      services = [...services, { name: service.name, running }];
      cleanups.push({ name: service.name, run: () => running.stop() });
      checkpoint();
    }

    // 5. Load every handler module now that the environment is complete (Lambda's cold start,
    //    paid once here rather than by the first requests). A module that fails to load does not
    //    stop the runtime: its routes answer 500, as a broken function would on AWS. The routes
    //    that hash passwords load in worker threads (hashing-routes.ts) at the same time.
    const handlersStarted = performance.now();
    const [hashingContexts, failed] = await Promise.all([
      startHashingContexts(routes, process.env, report).catch((error: unknown) => {
        report(
          `The password hashing routes cannot run in worker threads (they run in this thread): ${describe(error)}`,
        );
        return undefined;
      }),
      preloadHandlers(routes.filter((route) => !HASHING_ROUTE_IDS.includes(route.id))),
    ]);
    hashing = hashingContexts;
    if (hashingContexts) {
      for (const [id, handler] of hashingContexts.handlers) useHandler(id, handler);
      // Stopped after the HTTP server has let its requests in flight finish (cleanups run in reverse).
      cleanups.unshift({ name: 'the password hashing threads', run: () => hashingContexts.stop() });
    } else {
      failed.push(...(await preloadHandlers(routes.filter((route) => HASHING_ROUTE_IDS.includes(route.id)))));
    }
    const handlersMs = performance.now() - handlersStarted;
    const missing = failed.filter(
      (f) =>
        (f.error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' &&
        (f.error as Error).message.includes(`${f.route.handler}'`),
    );
    if (missing.length > 0) {
      report(
        `No handler module yet for ${missing.length} route(s) — their requests answer 500: ` +
          missing.map((f) => f.route.id).join(', '),
      );
    }
    for (const { route, error } of failed.filter((f) => !missing.includes(f))) {
      report(`Handler ${route.handler} failed to load; its requests answer 500: ${describe(error)}`);
    }
    checkpoint();

    // 6. Serve.
    http.ready(createRouter(routes));

    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const anyInterface = host === '0.0.0.0' || host === '[::]';
    const url = `http://${anyInterface ? '127.0.0.1' : host}:${address.port}`;
    const lines = [
      '',
      `Auth core (local) ready in ${seconds(performance.now() - started)} ` +
        `(${external ? 'DynamoDB' : 'DynamoDB Local'} ${seconds(dynamoMs)}, handlers ${seconds(handlersMs)})`,
      `  URL:       ${url}${anyInterface ? ` (listening on all interfaces, port ${address.port})` : ''}`,
      `  API keys:  ${apiKeyStatus(base.api_keys)}`,
      `  Requests:  from servers only: a foreign Origin or Host is refused (403)${
        options.allowedHosts.length > 0 ? `; ALLOWED_HOSTS ${options.allowedHosts.join(', ')}` : ''
      }`,
      `  Handlers:  ${handlerSource}`,
      `  Data:      ${
        external
          ? `in the DynamoDB at ${displayUrl(external.url)}`
          : options.dataDir === undefined
            ? 'in memory (lost when the runtime stops)'
            : `${options.dataDir} (owner only: the folder 0700, its files 0600${tightened.length > 0 ? `; tightened now: ${tightened.map((t) => `${t.name} was ${t.was}`).join(', ')}` : ''})`
      }`,
      `  Key:       ${
        localKey?.path === undefined
          ? 'in memory (seals staged credentials; lost when the runtime stops, like the data)'
          : `${localKey.path} (${localKey.created ? 'created now' : 'existing'}; seals staged credentials: keep it with the data)`
      }`,
      `  DynamoDB:  ${dynamoLine}`,
      `  Features:  ${featureStatus(base)}${
        Object.keys(features).length > 0 ? " (in memory: on unless an app's coreConfig turns them off)" : ''
      }`,
      ...services.flatMap((s) => s.running.banner ?? []).map((line) => `  ${line}`),
      ...(options.writeCapacity === undefined
        ? []
        : [
            `  Capacity:  LIMITED — every table ${options.writeCapacity.initialUnits} WRU/s at first (reads count a third), ` +
              `doubled ${options.writeCapacity.doublingSeconds} s after a sustained peak, up to ${options.writeCapacity.maxUnits}; ` +
              `throttled beyond, as DynamoDB does (--write-capacity; handlers reach DynamoDB through ${capacity?.endpoint})`,
          ]),
      ...(options.simulateThrottling === undefined
        ? []
        : [
            `  Throttling: SIMULATED — ${Math.round(options.simulateThrottling * 1000) / 10} % of DynamoDB calls fail ` +
              'with throttling errors (rehearsal of a busy table: --simulate-throttling)',
          ]),
      ...(hashing ? [`  Hashing:   ${HASHING_ROUTE_IDS.join(', ')} in ${hashing.size} worker threads`] : []),
      ...(options.functionTimeoutCap === undefined
        ? []
        : [
            `  Timeouts:  every function at most ${options.functionTimeoutCap} s (LOCAL_FUNCTION_TIMEOUT_SECONDS; ` +
              'a rehearsal setting, not what AWS runs)',
          ]),
      `  ${routes.length} routes; Ctrl-C to stop.`,
      '',
    ];
    say(lines.join('\n'));
  } catch (error) {
    if (!(error instanceof StopRequested)) {
      if (error instanceof DataDirInUseError || error instanceof KeyFileError || error instanceof DataDirModeError) {
        report(error.message);
      } else report(`Start-up failed: ${describe(error)}`);
      void shutdown(1, 'Stopping…');
    }
  } finally {
    startupDone();
  }
  return done;
}
