/**
 * Password hashing off the HTTP server's event loop.
 *
 * Sign-in, sign-up, the single-user import, and the dashboard's sign-in and user changes hash or
 * verify passwords: synchronous WASM (bcrypt, Argon2) or loops (phpass) of up to about a second
 * per call at the bounds of the hash costs. On Lambda each invocation has its execution environment to itself, so that only delays
 * its own request. Run in the runtime's thread, it would stop every other request (`/hello`
 * included) for that time; so these routes' handlers run in worker threads, like the import
 * worker's (worker-pool.ts): one pool whose contexts load all of them, one per core (at least 2).
 * The other routes stay in this thread (cheap, mostly waiting on DynamoDB).
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { RouteDefinition } from '#functions/routes.js';
import { handlerModulePath } from './bundles.js';
import { startWorkerPool, type WorkerPool } from './worker-pool.js';

/** The manifest routes whose handlers hash or verify passwords. Staging only checks hash formats. */
export const HASHING_ROUTE_IDS: readonly string[] = [
  'signin',
  'signup',
  'bulk-import-import',
  // The dashboard's own users (docs/dashboard.md).
  'dashboard-signin',
  'dashboard-user-create',
  'dashboard-user-update',
];

/** The least time a hashing route needs once it has a thread (a hash at the app's cost, a few reads and writes). */
const MIN_TIME_TO_HASH_MS = 2_000;

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2 | string>;

export interface HashingContexts {
  /** Route id → a handler that runs the route's real handler in a worker thread. */
  readonly handlers: ReadonlyMap<string, Handler>;
  readonly size: number;
  stop(): Promise<void>;
}

/** Starts the pool for the hashing routes of `routes` (with the handlers' environment, `env`). */
export async function startHashingContexts(
  routes: readonly RouteDefinition[],
  env: NodeJS.ProcessEnv,
  report: (message: string) => void,
): Promise<HashingContexts> {
  const hashing = routes.filter((route) => HASHING_ROUTE_IDS.includes(route.id));
  const missing = HASHING_ROUTE_IDS.filter((id) => !hashing.some((route) => route.id === id));
  if (missing.length > 0) throw new Error(`hashing routes missing from the manifest: ${missing.join(', ')}`);
  const paths = new Map(hashing.map((route) => [route.id, handlerModulePath(route)]));
  const pool: WorkerPool = await startWorkerPool({
    name: 'hashing routes',
    handlerPath: [...paths.values()],
    env,
    memoryMb: Math.max(...hashing.map((route) => route.memoryMb ?? 1024)),
    report,
    // A request that would get a thread with less than this left could not hash and answer in it:
    // refused as busy (503 with Retry-After) rather than left to time out (a 500).
    maxWaitMs: (context) => context.getRemainingTimeInMillis() - MIN_TIME_TO_HASH_MS,
  });
  const handlers = new Map<string, Handler>(
    [...paths].map(([id, path]) => [id, (event, context) => pool.invoke(event, context, path) as ReturnType<Handler>]),
  );
  return { handlers, size: pool.size, stop: () => pool.stop() };
}
