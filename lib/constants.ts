/**
 * Numbers and paths the stacks share. Kept apart from the stacks so the worker wiring and the
 * infra tests read the same values the queues were sized with. Worker timeouts and the receive
 * count come from the worker manifest (functions/workers.ts), never from a second copy here.
 */
import { fileURLToPath } from 'node:url';
import {
  IMPORT_MAX_RECEIVE_COUNT as MANIFEST_MAX_RECEIVE_COUNT,
  WORKERS,
  type WorkerId,
  type WorkerSource,
  workerNamed,
} from '#functions/workers.js';

/** Absolute path of the repository root; handler entries are resolved from here, never from cwd. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The timeout of worker `id`, the sole consumer of `kind`: a queue is sized for exactly one. */
function soleTimeoutOf(kind: WorkerSource['kind'], id: WorkerId): number {
  const consumers = WORKERS.filter((w) => w.source.kind === kind);
  if (consumers.length !== 1 || consumers[0]?.id !== id) {
    throw new Error(`functions/workers.ts must have exactly one ${kind} worker, ${id}; found ${consumers.length}`);
  }
  return workerNamed(id).timeoutSeconds;
}

/** Timeout of the SQS import worker (one batch of staged users), from the worker manifest. */
export const IMPORT_WORKER_TIMEOUT_SECONDS = soleTimeoutOf('import-queue', 'import-worker');

/** Timeout of the dead-letter-queue consumer, from the worker manifest. */
export const DLQ_CONSUMER_TIMEOUT_SECONDS = soleTimeoutOf('import-dlq', 'dlq-consumer');

/**
 * AWS recommends a source-queue visibility timeout of at least six times the consuming function's
 * timeout, so a batch retried by the Lambda poller is not redelivered while still in flight.
 */
export const VISIBILITY_TIMEOUT_FACTOR = 6;

/** Receives before a message is moved to the DLQ (transient errors get this many attempts). */
export const IMPORT_MAX_RECEIVE_COUNT = MANIFEST_MAX_RECEIVE_COUNT;

/**
 * DLQ retention. A standard queue keeps a message's original enqueue time when it is moved to the
 * DLQ, so this must exceed the source queue's retention (4 days by default).
 */
export const IMPORT_DLQ_RETENTION_DAYS = 14;

/**
 * The Node.js major version every function runs on (Lambda's `nodejs<major>.x`) and its bundles
 * are built for (esbuild `node<major>`). The local runtime and the tests run on any Node.js the
 * package's `engines` field accepts (README "Quick start"); test/infra/node-runtime.test.ts keeps
 * the runtime, the bundler target and that field in agreement.
 */
export const LAMBDA_NODE_MAJOR = 24;

/** Defaults for a route function when the manifest entry sets none. */
export const DEFAULT_ROUTE_TIMEOUT_SECONDS = 10;
export const DEFAULT_ROUTE_MEMORY_MB = 1024;

/**
 * CloudFormation allows 500 resources per template and a route costs about 11 (function, role,
 * policy, log group, integration, up to three routes and their permissions). Routes are therefore spread
 * over this many nested stacks. The assignment hashes the route id, so adding or removing a route
 * never moves another route to a different nested stack (moving one would make CloudFormation
 * create its API route in the new stack before deleting it from the old one, a route-key clash).
 * Changing this number moves routes: do it only in a deployment that can tolerate that.
 */
export const ROUTE_GROUP_COUNT = 4;

/**
 * API Gateway's routes-per-API quota for an HTTP API (Service Quotas code L-65B5C802, default 300;
 * raised only for an API that exists, by a quota request). The stack creates one route key per
 * gateway path of each manifest entry (functions/routes.ts gatewayPaths: three for a tenant API,
 * two for an app-specific one) plus `$default`; docs/deploying-aws.md "Route quota".
 * @internal Exported for test/infra/route-quota.test.ts.
 */
export const HTTP_API_ROUTE_QUOTA = 300;

/**
 * Route keys the synthesized stack keeps free below HTTP_API_ROUTE_QUOTA. CloudFormation creates
 * a stack update's new routes before it deletes the ones the update removes, so while one deploy
 * replaces a route (new path, method, id or scope) the API briefly holds both: this leaves room
 * for one tenant route's three keys. A deploy that replaces more at once needs that much more
 * room, or two deploys. test/infra/route-quota.test.ts holds the stack to the quota minus this.
 * @internal Exported for test/infra/route-quota.test.ts.
 */
export const ROUTE_QUOTA_HEADROOM = 3;

/**
 * Resource ceiling the infra tests hold every stack and nested stack to (hard limit: 500).
 * @internal Exported for the infra tests, which hold every stack to it.
 */
export const MAX_RESOURCES_PER_STACK = 450;
