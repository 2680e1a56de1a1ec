/**
 * Lambda's execution contexts for a CPU-bound queue worker, on one machine.
 *
 * Why: on AWS every concurrent invocation of the import worker runs in its own instance with its
 * own vCPU, so hashing plain-text passwords (bcrypt/argon2 in hash-wasm: synchronous WASM, tens of
 * milliseconds per user) scales with concurrency. Run in the runtime's own thread, every poller
 * would share one event loop: hashing would use one core and stall the HTTP server and the other
 * pollers. So each execution context here is a `node:worker_threads` worker that loads the handler
 * module once (a warm instance; its module state is its own, as on Lambda) and handles one event at
 * a time. The pool has one context per core (at least 2). A pool may load several handler modules
 * into each context (the local runtime's CPU-bound HTTP routes share one pool, see
 * hashing-routes.ts); each invocation then names the module it is for.
 *
 * Semantics kept from Lambda: a handler that throws rejects `invoke` (the poller leaves the whole
 * batch to come back); a context that dies (uncaught error, out of memory, `process.exit`) rejects
 * its invocation too and is replaced by a fresh one (a cold start) on the next invocation — no
 * message is lost, it reappears after the visibility timeout. The contexts get the environment the
 * services prepared, and their stdout (the logger's redacted JSON lines, console output) is the
 * runtime's stdout. Worker threads are threads of this process: a SIGKILL leaves nothing behind.
 *
 * TypeScript: the runtime runs under tsx, whose `--import` hooks do not apply to a worker's entry on
 * Node 20, so each worker starts from a tiny ESM bootstrap that registers tsx and then imports
 * lambda-context.ts (which imports the handler, `#functions/*` aliases included).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Context } from 'aws-lambda';
import { ContextsBusyError, FunctionTimeoutError } from './timeouts.js';

export interface WorkerPoolOptions {
  /** Absolute path of the module that exports `handler`, or of several (each context loads all). */
  readonly handlerPath: string | readonly string[];
  /** Thread names (`<name>#<n>`) and messages. */
  readonly name: string;
  /** The handlers' environment (ServiceContext.env): copied into every context when it starts. */
  readonly env: NodeJS.ProcessEnv;
  /** Execution contexts. @default max(2, os.availableParallelism()) */
  readonly size?: number;
  /** The function's memory: the context's heap limit. */
  readonly memoryMb?: number;
  /** Problems of the pool: contexts that died or failed to start. */
  readonly report: (message: string) => void;
  /**
   * How long an invocation may wait for a free context, from its Lambda context (e.g. until too
   * little of its time is left to do its work); past it, the invocation rejects with
   * {@link ContextsBusyError}. @default as long as it takes (a queue worker's batch just waits)
   */
  readonly maxWaitMs?: (context: Context) => number;
}

export interface WorkerPool {
  readonly size: number;
  /**
   * One invocation in a free context (waits for one); resolves with what the handler returned.
   * `handlerPath` picks one of the pool's modules (default: the first).
   */
  invoke(event: unknown, context: Context, handlerPath?: string): Promise<unknown>;
  /** Lets the invocations in flight finish, then ends every context. */
  stop(): Promise<void>;
}

/** Sent by lambda-context.ts. */
export type ContextMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'result'; readonly result: unknown }
  | { readonly type: 'error'; readonly error: { name: string; message: string; stack?: string } };

/** What lambda-context.ts receives per invocation (the Context's data; its methods are rebuilt). */
export interface Invocation {
  /** One of the context's handler modules; undefined for the first. */
  readonly handlerPath?: string;
  readonly event: unknown;
  readonly context: Record<string, unknown>;
  readonly timeoutMs: number;
}

const BOOTSTRAP = (entry: string) =>
  new URL(
    `data:text/javascript,${encodeURIComponent(
      `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};\n` +
        `register();\nawait import(${JSON.stringify(entry)});\n`,
    )}`,
  );
const ENTRY = new URL('./lambda-context.ts', import.meta.url).href;

interface Instance {
  readonly worker: Worker;
  /** Settles once the handler module has loaded (or the context died first). */
  readonly ready: Promise<void>;
  dead: boolean;
  pending?: { resolve: (value: unknown) => void; reject: (error: Error) => void };
  /** Ends the context now; its invocation in flight rejects with `error`. */
  kill(error: Error): void;
}

export async function startWorkerPool(options: WorkerPoolOptions): Promise<WorkerPool> {
  const size = Math.max(2, options.size ?? availableParallelism());
  const handlerPaths = typeof options.handlerPath === 'string' ? [options.handlerPath] : [...options.handlerPath];
  let spawned = 0;
  let stopping = false;

  function spawn(): Instance {
    const worker = new Worker(BOOTSTRAP(ENTRY), {
      name: `${options.name}#${++spawned}`,
      // Not the parent's tsx flags (see the header); the bootstrap registers tsx itself.
      execArgv: [],
      // The AWS SDK's Node-version warning is printed once, by the runtime's own thread.
      env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...options.env },
      workerData: { handlerPaths },
      ...(options.memoryMb ? { resourceLimits: { maxOldGenerationSizeMb: options.memoryMb } } : {}),
    });
    let loaded: (() => void) | undefined;
    let failed: ((error: Error) => void) | undefined;
    const die = (error: Error) => {
      if (instance.dead) return;
      instance.dead = true;
      failed?.(error);
      if (instance.pending) instance.pending.reject(error);
      instance.pending = undefined;
      if (!stopping) {
        options.report(
          error instanceof FunctionTimeoutError
            ? `${options.name}: ${error.message}; its execution context ended (replaced on next use)`
            : `${options.name}: an execution context died (replaced on next use): ${error}`,
        );
      }
      void worker.terminate();
    };
    const instance: Instance = {
      worker,
      dead: false,
      ready: new Promise<void>((resolve, reject) => {
        loaded = resolve;
        failed = reject;
      }),
      kill: die,
    };
    instance.ready.catch(() => undefined);
    worker.on('message', (message: ContextMessage) => {
      if (message.type === 'ready') return loaded?.();
      const pending = instance.pending;
      instance.pending = undefined;
      if (!pending) return;
      if (message.type === 'result') pending.resolve(message.result);
      else pending.reject(Object.assign(new Error(message.error.message), message.error));
    });
    worker.on('error', die);
    worker.on('exit', (code) => die(new Error(`its thread exited (code ${code})`)));
    return instance;
  }

  const instances = Array.from({ length: size }, spawn);
  try {
    // Cold starts at start-up, as the runtime pays the HTTP handlers' (a module that cannot load fails it).
    await Promise.all(instances.map((i) => i.ready));
  } catch (error) {
    stopping = true;
    await Promise.all(instances.map((i) => i.worker.terminate()));
    throw new Error(`${options.name} failed to load in a worker thread: ${(error as Error).message}`);
  }

  const free = instances.map((_, i) => i);
  const waiting: ((slot: number) => void)[] = [];
  const inFlight = new Set<Promise<unknown>>();

  async function run(slot: number, invocation: Invocation): Promise<unknown> {
    let instance = instances[slot] as Instance;
    if (instance.dead) {
      instance = spawn();
      instances[slot] = instance;
    }
    await instance.ready;
    const running = instance;
    return new Promise((resolve, reject) => {
      // As Lambda: an invocation still running at its timeout is stopped — its execution context
      // ends (the thread is terminated) and the next invocation gets a fresh one (a cold start).
      const timer = setTimeout(
        () => running.kill(new FunctionTimeoutError(invocation.timeoutMs / 1000)),
        Math.max(0, invocation.timeoutMs),
      );
      running.worker.postMessage(invocation);
      running.pending = {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
    });
  }

  function waitForSlot(context: Context): Promise<number> {
    const limit = options.maxWaitMs?.(context);
    return new Promise<number>((resolveSlot, reject) => {
      const started = performance.now();
      const take = (slot: number) => {
        clearTimeout(timer);
        resolveSlot(slot);
      };
      const timer =
        limit === undefined
          ? undefined
          : setTimeout(
              () => {
                const at = waiting.indexOf(take);
                if (at >= 0) waiting.splice(at, 1);
                reject(new ContextsBusyError(performance.now() - started));
              },
              Math.max(0, limit),
            );
      waiting.push(take);
    });
  }

  async function invoke(event: unknown, context: Context, handlerPath?: string): Promise<unknown> {
    if (handlerPath !== undefined && !handlerPaths.includes(handlerPath)) {
      throw new Error(`${options.name}: ${handlerPath} is not one of the pool's handlers`);
    }
    // The Context's data crosses to the thread; its methods are rebuilt there (lambda-context.ts).
    const data = Object.fromEntries(Object.entries(context).filter(([, v]) => typeof v !== 'function'));
    const slot = free.pop() ?? (await waitForSlot(context));
    // The time spent waiting for a context counts against the function's timeout, as it would if
    // Lambda had been slow to start an environment.
    const invocation: Invocation = { handlerPath, event, context: data, timeoutMs: context.getRemainingTimeInMillis() };
    try {
      return await run(slot, invocation);
    } finally {
      const next = waiting.shift();
      if (next) next(slot);
      else free.push(slot);
    }
  }

  return {
    size,
    invoke(event, context, handlerPath) {
      if (stopping) return Promise.reject(new Error(`${options.name}: the pool is stopping`));
      const call = invoke(event, context, handlerPath);
      inFlight.add(call);
      void call.catch(() => undefined).finally(() => inFlight.delete(call));
      return call;
    },
    async stop() {
      stopping = true;
      await Promise.allSettled([...inFlight]);
      await Promise.all(instances.map((i) => i.worker.terminate()));
    },
  };
}
