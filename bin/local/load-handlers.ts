/**
 * Start-up step of the local runtime (bin/local/runtime.ts): every handler module is loaded once
 * the environment is complete (Lambda's cold start, paid once here rather than by the first
 * requests). A module that fails to load does not stop the runtime: its routes answer 500, as a
 * broken function would on AWS. The routes that hash passwords load in worker threads
 * (hashing-routes.ts) at the same time.
 */
import type { RouteDefinition } from '#functions/routes.js';
import { loadHandler, useHandler } from './dispatch.js';
import { HASHING_ROUTE_IDS, type HashingContexts, startHashingContexts } from './hashing-routes.js';
import { describe } from './http-server.js';
import type { Lifecycle } from './lifecycle.js';

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

/** Loads the handlers (see the module comment); returns the hashing threads, if they run, and the time taken. */
export async function loadHandlers(
  routes: readonly RouteDefinition[],
  run: Lifecycle,
  report: (message: string) => void,
): Promise<{ hashing: HashingContexts | undefined; handlersMs: number }> {
  const handlersStarted = performance.now();
  const [hashing, failed] = await Promise.all([
    startHashingContexts(routes, process.env, report).catch((error: unknown) => {
      report(`The password hashing routes cannot run in worker threads (they run in this thread): ${describe(error)}`);
      return undefined;
    }),
    preloadHandlers(routes.filter((route) => !HASHING_ROUTE_IDS.includes(route.id))),
  ]);
  if (hashing) {
    for (const [id, handler] of hashing.handlers) useHandler(id, handler);
    // Stopped after the HTTP server has let its requests in flight finish (cleanups run in reverse).
    run.addLast('the password hashing threads', () => hashing.stop());
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
  return { hashing, handlersMs };
}
