/**
 * One execution context of worker-pool.ts (a worker thread): loads the handler module(s) once,
 * then handles one invocation at a time and posts back what the handler returned or threw. A
 * module that fails to load throws here, which ends the thread (the pool reports it).
 */
import { Console } from 'node:console';
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import type { Context } from 'aws-lambda';
import type { ContextMessage, Invocation } from './worker-pool.js';

type Handler = (event: unknown, context: Context) => Promise<unknown>;

const port = parentPort;
if (!port) throw new Error('lambda-context.ts runs in a worker thread (see worker-pool.ts)');
// As in the runtime's thread (runtime.ts): all console output goes to the one log stream, stdout.
globalThis.console = new Console({ stdout: process.stdout, stderr: process.stdout });

const { handlerPaths } = workerData as { handlerPaths: string[] };
const handlers = new Map<string, Handler>(
  await Promise.all(
    handlerPaths.map(async (handlerPath) => {
      const loaded = (await import(pathToFileURL(handlerPath).href)) as { handler?: Handler };
      if (typeof loaded.handler !== 'function') throw new Error(`${handlerPath} does not export handler`);
      return [handlerPath, loaded.handler] as const;
    }),
  ),
);

const post = (message: ContextMessage) => port.postMessage(message);

port.on('message', async ({ handlerPath, event, context, timeoutMs }: Invocation) => {
  const deadline = Date.now() + timeoutMs;
  const noop = () => undefined;
  try {
    const handler = handlers.get(handlerPath ?? (handlerPaths[0] as string));
    if (!handler) throw new Error(`${handlerPath} is not loaded in this context`);
    const result = await handler(event, {
      ...(context as unknown as Context),
      getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
      done: noop,
      fail: noop,
      succeed: noop,
    });
    post({ type: 'result', result });
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    post({ type: 'error', error: { name: e.name, message: e.message, stack: e.stack } });
  }
});
post({ type: 'ready' });
