/**
 * The local runtime's life from start-up to exit (bin/local/runtime.ts): the cleanups each step
 * registers, the signals that stop it, and the one shutdown that runs the cleanups in reverse
 * order of registration and settles the exit code.
 */
import type { ChildProcess } from 'node:child_process';
import { describe } from './http-server.js';
import { removePidFile } from './pidfile.js';

/** A shutdown requested during start-up waits at most this long for the current step. */
const STARTUP_WAIT_MS = 15_000;

/** Thrown by {@link Lifecycle.checkpoint} when a shutdown began: start-up stops at its next step. */
export class StopRequested extends Error {}

interface Output {
  /** A runtime message (stdout). */
  readonly say: (message: string) => void;
  /** A problem (stderr). */
  readonly report: (message: string) => void;
}

export class Lifecycle {
  private stopping = false;
  private exitCode = 0;
  private readonly cleanups: { name: string; run: () => Promise<void> | void }[] = [];
  private startupDone: () => void = () => undefined;
  private readonly startup = new Promise<void>((r) => {
    this.startupDone = r;
  });
  private finished: (code: number) => void = () => undefined;
  /** Resolves with the exit code once the shutdown's cleanups ran. */
  readonly done = new Promise<number>((r) => {
    this.finished = r;
  });
  /** DynamoDB Local's process, killed outright on a second signal. */
  private database: ChildProcess | undefined;

  private readonly output: Output;
  /** The data directory whose pid file a second signal removes. */
  private readonly dataDir: string | undefined;

  constructor(output: Output, dataDir: string | undefined) {
    this.output = output;
    this.dataDir = dataDir;
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /** Registers a cleanup: run at shutdown before those registered earlier. */
  add(name: string, run: () => Promise<void> | void): void {
    this.cleanups.push({ name, run });
  }

  /** Registers a cleanup run after every other one (e.g. after the HTTP server drained). */
  addLast(name: string, run: () => Promise<void> | void): void {
    this.cleanups.unshift({ name, run });
  }

  /** The DynamoDB Local process a second Ctrl-C kills without waiting. */
  holdDatabase(process: ChildProcess): void {
    this.database = process;
  }

  /** Throws {@link StopRequested} once a shutdown began (called between start-up steps). */
  checkpoint(): void {
    if (this.stopping) throw new StopRequested();
  }

  /** Start-up is over (done or failed): a shutdown waiting for it may go on. */
  started(): void {
    this.startupDone();
  }

  /** Stops once: waits for the start-up step in progress, runs the cleanups, settles `done`. */
  async shutdown(code: number, why: string): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.exitCode = code;
    this.output.say(why);
    await Promise.race([this.startup, new Promise((r) => setTimeout(r, STARTUP_WAIT_MS).unref())]);
    for (const cleanup of this.cleanups.reverse()) {
      try {
        await cleanup.run();
      } catch (error) {
        this.output.report(`Stopping ${cleanup.name} failed: ${describe(error)}`);
        this.exitCode ||= 1;
      }
    }
    this.output.say(this.exitCode === 0 ? 'Stopped.' : `Stopped (exit code ${this.exitCode}).`);
    this.finished(this.exitCode);
  }

  /**
   * SIGINT, SIGTERM and SIGHUP stop the runtime (a second one, a second later or more, exits at
   * once); an uncaught exception stops it with code 1; an unhandled rejection is reported.
   */
  handleSignals(): void {
    let firstSignalAt: number | undefined;
    const onSignal = (signal: NodeJS.Signals) => {
      if (firstSignalAt === undefined) {
        firstSignalAt = Date.now();
        void this.shutdown(0, `\nReceived ${signal}, stopping…`);
        return;
      }
      // The same Ctrl-C can arrive twice (from the terminal and relayed by tsx): ignore that one.
      if (Date.now() - firstSignalAt < 1000) return;
      // A second Ctrl-C: do not wait any longer.
      this.output.report(`Received ${signal} again: exiting now.`);
      if (this.database?.pid !== undefined) this.database.kill('SIGKILL');
      if (this.dataDir) removePidFile(this.dataDir, process.pid);
      process.exit(130);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    process.on('SIGHUP', onSignal);
    process.on('unhandledRejection', (reason) => {
      this.output.report(`Unhandled promise rejection (a handler bug?): ${describe(reason)}`);
    });
    process.on('uncaughtException', (error) => {
      this.output.report(`Uncaught exception: ${describe(error)}`);
      void this.shutdown(1, 'Stopping after an uncaught exception…');
    });
  }
}
