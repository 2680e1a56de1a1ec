/**
 * Progress on stderr: on a TTY a live bar (cli-progress) with converted, staged, imported and failed
 * users, users/s and the ETA; off a TTY one plain line every 5 seconds; with `--json` nothing but
 * the final summary (on stdout). The lines and the bar keep coming while nothing is read — the
 * export read through, the requests in flight slow — so a slow phase shows its counts growing
 * rather than falling silent.
 */
import cliProgress from 'cli-progress';
import { redact } from './redact.js';

export type ProgressMode = 'tty' | 'plain' | 'json';

export interface Counters {
  records: number;
  converted: number;
  /** Users reported at the convert or check stage. */
  refused: number;
  staged: number;
  imported: number;
  failed: number;
  /** NEW + PROCESSING in the app (while waiting). */
  pending: number;
}

const PLAIN_INTERVAL_MS = 5_000;

export class Progress {
  readonly counters: Counters = { records: 0, converted: 0, refused: 0, staged: 0, imported: 0, failed: 0, pending: 0 };
  private bar: cliProgress.SingleBar | undefined;
  private lastPlain = 0;
  private phaseName = '';
  private phaseStarted = Date.now();
  private total = 0;
  private value = 0;
  private readonly started = Date.now();
  private ticker: NodeJS.Timeout | undefined;

  constructor(
    readonly mode: ProgressMode,
    private readonly out: NodeJS.WritableStream = process.stderr,
  ) {}

  /** A line for the user (not in `--json` mode), printed above the bar. */
  say(line: string, evenInJsonMode = false): void {
    if (this.mode === 'json' && !evenInJsonMode) return;
    const running = this.bar !== undefined;
    if (running) this.bar?.stop();
    this.out.write(`${redact(line)}\n`);
    if (running) this.startBar();
  }

  /** Starts a phase whose progress is `value` of `total` (bytes read while staging, users while waiting). */
  phase(name: string, total: number): void {
    this.finishBar();
    this.phaseName = name;
    this.phaseStarted = Date.now();
    this.total = Math.max(total, 1);
    this.value = 0;
    if (this.mode === 'plain') this.out.write(`${name}…\n`);
    if (this.mode === 'tty') this.startBar();
    this.lastPlain = Date.now();
    if (this.mode !== 'json') {
      // Between two updates (a slow request), the counters the senders move are shown anyway.
      this.ticker = setInterval(() => this.update(this.value), 1_000);
      this.ticker.unref();
    }
  }

  update(value: number): void {
    this.value = value;
    if (this.mode === 'tty') this.bar?.update(Math.min(value, this.total), this.payload());
    else if (this.mode === 'plain' && Date.now() - this.lastPlain >= PLAIN_INTERVAL_MS) {
      this.lastPlain = Date.now();
      this.out.write(`${this.plainLine()}\n`);
    }
  }

  finishBar(): void {
    clearInterval(this.ticker);
    this.ticker = undefined;
    if (this.bar) {
      this.bar.update(Math.min(this.value, this.total), this.payload());
      this.bar.stop();
      this.bar = undefined;
    }
  }

  /** Users per second since the command started (staged while staging, imported while waiting). */
  rate(count: number): number {
    const seconds = (Date.now() - this.phaseStarted) / 1000;
    return seconds > 0 ? count / seconds : 0;
  }

  get elapsedMs(): number {
    return Date.now() - this.started;
  }

  private startBar(): void {
    this.bar = new cliProgress.SingleBar(
      {
        stream: this.out,
        format: `${this.phaseName} {bar} {percentage}% | converted {converted} | staged {staged} | imported {imported} | failed {failed} | {speed} users/s | ETA {eta_formatted}`,
        hideCursor: true,
        clearOnComplete: false,
        etaBuffer: 50,
        fps: 5,
      },
      cliProgress.Presets.shades_classic,
    );
    this.bar.start(this.total, Math.min(this.value, this.total), this.payload());
  }

  private payload(): Record<string, string | number> {
    const c = this.counters;
    const moving = this.phaseName.startsWith('waiting') ? c.imported : c.staged;
    return {
      converted: c.converted,
      staged: c.staged,
      imported: c.imported,
      failed: c.failed,
      speed: Math.round(this.rate(moving)),
    };
  }

  private plainLine(): string {
    const c = this.counters;
    const seconds = Math.round((Date.now() - this.started) / 1000);
    const moving = this.phaseName.startsWith('waiting') ? c.imported : c.staged;
    const percent = Math.min(100, Math.floor((this.value / this.total) * 100));
    return (
      `[${seconds}s] ${this.phaseName} ${percent}%: ${c.records} records read, ${c.converted} converted, ` +
      `${c.refused} refused, ${c.staged} staged, ${c.imported} imported, ${c.failed} failed, ${c.pending} pending, ` +
      `${Math.round(this.rate(moving))} users/s`
    );
  }
}
