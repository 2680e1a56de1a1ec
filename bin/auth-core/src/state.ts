/**
 * The state file: an append-only journal (one JSON object per line, each written and fsynced as it
 * happens) of the chunks a run sent — each chunk's range of the converted users (where it starts,
 * how many), written before its first request — and of the chunks the core staged, with their ids.
 * Chunk sizes follow the core's speed (sizing.ts), so a chunk's range is known only from the
 * journal: a re-run sends every chunk it finds there with exactly the range it had (the same body
 * under the same Idempotency-Key: the core stages only what an interrupted request left), skips the
 * staged ones, and sizes only what lies beyond. A line torn by a crash is ignored. It holds ids,
 * counts and the core's messages, never a credential; mode 0600.
 */
import { closeSync, existsSync, fsyncSync, readFileSync, writeSync } from 'node:fs';
import { usageError } from './errors.js';
import { openPrivate } from './private-file.js';
import { redact } from './redact.js';

/** The journal's format; a file of another one is refused (not resumed). */
const STATE_VERSION = 2;

export interface StateHeader {
  readonly type: 'migration';
  readonly version: typeof STATE_VERSION;
  /** The migration's key (digest of the export, side files and options); chunk keys derive from it. */
  readonly key: string;
  readonly exportPath: string;
  readonly exportSha256: string;
  readonly source: string;
  readonly appId: string;
  readonly tenantId: string;
  readonly startedAt: string;
}

/** A user of a chunk the core refused at staging (validation), by its index in the chunk. */
export interface RejectedEntry {
  readonly i: number;
  readonly errors: readonly string[];
}

/** Where a chunk lies in the converted users (payload order): `users` of them from `start`. */
export interface ChunkRange {
  /** The chunk's number in the run that first sent it (messages and the report). */
  readonly index: number;
  /** Payload index of its first user. */
  readonly start: number;
  /** Users the chunk had before any were refused. */
  readonly users: number;
}

/** A chunk about to be sent for the first time: its range, fixed from now on. */
interface PlannedEntry extends ChunkRange {
  readonly type: 'planned';
  readonly at: string;
}

export interface ChunkEntry extends ChunkRange {
  readonly type: 'chunk';
  /** Per staged user (in chunk order, refused ones skipped): the ids of its login methods. */
  readonly ids: readonly (readonly string[])[];
  readonly rejected: readonly RejectedEntry[];
  readonly at: string;
}

const isRange = (entry: Partial<ChunkRange>): entry is ChunkRange =>
  Number.isInteger(entry.index) && Number.isInteger(entry.start) && Number.isInteger(entry.users);

export class StateFile {
  /** Staged chunks, by start. */
  readonly chunks = new Map<number, ChunkEntry>();
  /** Every chunk sent (staged or not), by start. */
  private readonly ranges = new Map<number, ChunkRange>();
  /** Chunks found staged in the journal when it was opened (a resumed migration). */
  resumedChunks = 0;
  private fd: number | undefined;

  private constructor(
    readonly path: string,
    readonly header: StateHeader,
  ) {}

  /** Opens the journal for `header`'s migration, resuming it when the file already belongs to it. */
  static open(path: string, header: Omit<StateHeader, 'version'>): StateFile {
    const state = new StateFile(path, { ...header, version: STATE_VERSION });
    if (existsSync(path)) {
      const lines = readFileSync(path, 'utf8').split('\n');
      let first: Partial<Omit<StateHeader, 'version'>> & { version?: unknown };
      try {
        first = JSON.parse(lines[0] ?? '') as typeof first;
      } catch {
        first = {};
      }
      if (first.type === 'migration' && first.version !== STATE_VERSION) {
        throw usageError(
          `the state file ${path} was written by another version of auth-core (state format ${String(first.version)}, ` +
            `this one writes ${STATE_VERSION}): finish that migration with the version that started it, or give ` +
            'another --state file (users it staged would then be staged again and end FAILED as duplicates)',
        );
      }
      if (first.type !== 'migration' || first.key !== header.key) {
        throw usageError(
          `the state file ${path} belongs to another migration (a different export, source, app, tenant or options): ` +
            'give another --state file, or delete it to start over',
        );
      }
      for (const line of lines.slice(1)) {
        if (line.trim() === '') continue;
        try {
          const entry = JSON.parse(line) as (ChunkEntry | PlannedEntry) & Partial<ChunkRange>;
          if (!isRange(entry)) continue;
          if (entry.type === 'chunk') state.chunks.set(entry.start, entry);
          if (entry.type === 'chunk' || entry.type === 'planned')
            state.ranges.set(entry.start, { index: entry.index, start: entry.start, users: entry.users });
        } catch {
          // A line cut short by a crash: its chunk is sent again (the Idempotency-Key makes that a replay).
        }
      }
      state.resumedChunks = state.chunks.size;
      state.fd = openPrivate(path, 'a', 'state file');
    } else {
      state.fd = openPrivate(path, 'a', 'state file');
      state.append(state.header);
    }
    return state;
  }

  get resumed(): boolean {
    return this.resumedChunks > 0;
  }

  /** The range a chunk starting at `start` had when it was first sent, if one was. */
  rangeAt(start: number): ChunkRange | undefined {
    return this.ranges.get(start);
  }

  /** The start of the first chunk sent after `start`, if any (a new chunk must end before it). */
  nextRangeAfter(start: number): number | undefined {
    let next: number | undefined;
    for (const s of this.ranges.keys()) if (s > start && (next === undefined || s < next)) next = s;
    return next;
  }

  /** Journals a chunk's range before its first request (nothing when it was journaled before). */
  plan(range: ChunkRange): void {
    if (this.ranges.has(range.start)) return;
    this.ranges.set(range.start, range);
    this.append({ type: 'planned', ...range, at: new Date().toISOString() } satisfies PlannedEntry);
  }

  record(entry: Omit<ChunkEntry, 'type' | 'at'>): void {
    const full: ChunkEntry = {
      type: 'chunk',
      index: entry.index,
      start: entry.start,
      users: entry.users,
      ids: entry.ids,
      rejected: entry.rejected.map((r) => ({ i: r.i, errors: r.errors.map(redact) })),
      at: new Date().toISOString(),
    };
    this.chunks.set(entry.start, full);
    this.ranges.set(entry.start, { index: entry.index, start: entry.start, users: entry.users });
    this.append(full);
  }

  private append(value: unknown): void {
    if (this.fd === undefined) throw new Error('state file closed');
    writeSync(this.fd, `${redact(JSON.stringify(value))}\n`);
    fsyncSync(this.fd);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
