import { Console } from 'node:console';
import type { AddressInfo } from 'node:net';
import type { RouteDefinition } from '#functions/routes.js';
import { WORKERS } from '#functions/workers.js';
import { readyBanner } from './banner.js';
import { describeHandlerSource } from './bundles.js';
import { DataDirModeError, PRIVATE_UMASK } from './data-dir.js';
import { createRouter } from './dispatch.js';
import { prepareHandlerEnvironment } from './handler-env.js';
import { createLocalHttpServer, describe, type LocalHttpServer } from './http-server.js';
import { checkJava } from './java.js';
import { KeyFileError } from './key-file.js';
import { Lifecycle, StopRequested } from './lifecycle.js';
import { loadHandlers } from './load-handlers.js';
import { type LocalOptions, OptionsError, parseCommand, USAGE } from './options.js';
import { DataDirInUseError } from './pidfile.js';
import { BACKGROUND_SERVICES, type RunningService, type ServiceContext } from './services.js';
import { startStorage } from './start-storage.js';

/**
 * The local runtime behind `npm start`: DynamoDB Local, the table, the background services
 * (the local SQS server and its pollers, the reconciler: services.ts) and an HTTP server that
 * hands the route manifest's requests to the real handlers as API Gateway v2 events.
 *
 * `main` runs its steps in order: read the command line, fix the handlers' environment
 * (handler-env.ts), load the base configuration, bind the port, start the storage
 * (start-storage.ts), start the background services, load the handlers (load-handlers.ts), serve
 * and print the banner (banner.ts); lifecycle.ts stops them all, in reverse order, on a signal.
 *
 * Output: the runtime's own messages are plain lines (problems on stderr); everything the
 * handlers write — their JSON log lines and any console output — goes to stdout, as it would go
 * to CloudWatch.
 */

const say = (message: string) => process.stdout.write(`${message}\n`);
const report = (message: string) => process.stderr.write(`${message}\n`);
const output = { say, report };

/** Graceful shutdown: how long requests in flight may take to finish. */
const DRAIN_MS = 5000;

/** Handlers may use console.* freely: like Lambda, all of it goes to the one log stream (stdout). */
function routeConsoleToStdout(): void {
  globalThis.console = new Console({ stdout: process.stdout, stderr: process.stdout });
}

/** The options of the command line, or the exit code when there is nothing to run (help, a bad option). */
function readCommandLine(argv: readonly string[]): LocalOptions | number {
  try {
    const command = parseCommand(argv, process.env, process.cwd());
    if (command.help) {
      say(USAGE);
      return 0;
    }
    return command.options;
  } catch (error) {
    if (!(error instanceof OptionsError)) throw error;
    report(`${error.message}\n\n${USAGE}`);
    return 2;
  }
}

/**
 * The base configuration, checked before anything starts (a bad API_KEYS fails in a second), the
 * routes, and where their handlers come from: sources, or (HANDLER_BUNDLES) the synthesized
 * bundles, one for every entry. Undefined (reported) when one of them is missing.
 */
async function loadConfiguration() {
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
    return undefined;
  }
  try {
    return { base, routes, handlerSource: describeHandlerSource([...routes, ...WORKERS]) };
  } catch (error) {
    report(describe(error));
    return undefined;
  }
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

/**
 * The HTTP server on its port, bound first: a busy port is reported at once, not after DynamoDB
 * Local started. Requests that arrive before everything is ready wait for it. Undefined (reported)
 * when the port cannot be bound.
 */
async function bindPort(
  options: LocalOptions,
  run: Lifecycle,
): Promise<{ http: LocalHttpServer; address: AddressInfo } | undefined> {
  const http = createLocalHttpServer({ report, allowedHosts: options.allowedHosts });
  let address: AddressInfo;
  try {
    address = await http.listen(options.port, options.host);
  } catch (error) {
    report(listenProblem(error as NodeJS.ErrnoException, options));
    return undefined;
  }
  run.add('the HTTP server', () => http.close(DRAIN_MS));
  return { http, address };
}

/** The background services, in order (extension point: local SQS, pollers, reconciler). */
async function startServices(context: ServiceContext, run: Lifecycle) {
  const services: { name: string; running: RunningService }[] = [];
  for (const service of BACKGROUND_SERVICES) {
    const running = await service.start(context);
    services.push({ name: service.name, running });
    run.add(service.name, () => running.stop());
    run.checkpoint();
  }
  return services;
}

/** Runs the runtime until a signal stops it; resolves with the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const started = performance.now();
  const options = readCommandLine(argv);
  if (typeof options === 'number') return options;

  // Java runs the bundled DynamoDB Local; an external DynamoDB (DYNAMODB_ENDPOINT) needs none.
  const java = options.dynamodbEndpoint ? undefined : checkJava();
  if (java && !java.ok) {
    report(java.message);
    return 1;
  }
  routeConsoleToStdout();
  // Everything this runtime and DynamoDB Local (its child) create is owner-only (data-dir.ts).
  process.umask(PRIVATE_UMASK);
  const run = new Lifecycle(output, options.dataDir);
  run.handleSignals();

  const environment = await prepareHandlerEnvironment(options, run, say);
  const configuration = await loadConfiguration();
  if (configuration === undefined) return 1;
  const { base, routes, handlerSource } = configuration;

  try {
    const bound = await bindPort(options, run);
    if (bound === undefined) return 1;
    const storage = await startStorage(options, environment.dynamodbPort, run, output);
    const services = await startServices(
      {
        env: process.env,
        dataDir: options.dataDir,
        region: options.region,
        dynamodbEndpoint: environment.dynamodbEndpoint,
        tableName: options.tableName,
        say,
        report,
        fail: (message) => {
          report(message);
          void run.shutdown(1, 'Stopping: a background service failed.');
        },
      },
      run,
    );
    const { hashing, handlersMs } = await loadHandlers(routes, run, report);
    run.checkpoint();

    bound.http.ready(createRouter(routes));
    say(
      readyBanner({
        options,
        started,
        address: bound.address,
        base,
        routeCount: routes.length,
        handlerSource,
        environment,
        storage,
        services,
        hashing,
        handlersMs,
      }),
    );
  } catch (error) {
    if (!(error instanceof StopRequested)) {
      if (error instanceof DataDirInUseError || error instanceof KeyFileError || error instanceof DataDirModeError) {
        report(error.message);
      } else report(`Start-up failed: ${describe(error)}`);
      void run.shutdown(1, 'Stopping…');
    }
  } finally {
    run.started();
  }
  return run.done;
}
