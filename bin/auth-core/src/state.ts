/**
 * The state file: an append-only journal (one JSON object per line, each written and fsynced as it
 * happens) of which chunks the core staged and with which ids. A re-run reads it and sends only the
 * chunks not yet recorded; a line torn by a crash is ignored. It holds ids, counts and the core's
 * messages, never a credential; mode 0600.
 */
import { closeSync, existsSync, fsyncSync, readFileSync, writeSync } from 'node:fs';
import { usageError } from './errors.js';
import { openPrivate } from './private-file.js';
import { redact } from './redact.js';

export interface StateHeader {
  readonly type: 'migration';
  readonly version: 1;
  /** The migration's key (digest of the export, side files and options); chunk keys derive from it. */
  readonly key: string;
  readonly exportPath: string;
  readonly exportSha256: string;
  readonly source: string;
  readonly appId: string;
  readonly tenantId: string;
  readonly batchSize: number;
  readonly startedAt: string;
}

/** A user of a chunk the core refused at staging (validation), by its index in the chunk. */
export interface RejectedEntry {
  readonly i: number;
  readonly errors: readonly string[];
}

export interface ChunkEntry {
  readonly type: 'chunk';
  readonly index: number;
  /** Users the chunk had before any were refused. */
  readonly users: number;
  /** Per staged user (in chunk order, refused ones skipped): the ids of its login methods. */
  readonly ids: readonly (readonly string[])[];
  readonly rejected: readonly RejectedEntry[];
  readonly at: string;
}

export class StateFile {
  readonly chunks = new Map<number, ChunkEntry>();
  /** Chunks found in the journal when it was opened (a resumed migration). */
  resumedChunks = 0;
  private fd: number | undefined;

  private constructor(
    readonly path: string,
    readonly header: StateHeader,
  ) {}

  /** Opens the journal for `header`'s migration, resuming it when the file already belongs to it. */
  static open(path: string, header: StateHeader): StateFile {
    const state = new StateFile(path, header);
    if (existsSync(path)) {
      const lines = readFileSync(path, 'utf8').split('\n');
      let first: Partial<StateHeader> | undefined;
      try {
        first = JSON.parse(lines[0] ?? '') as Partial<StateHeader>;
      } catch {
        first = undefined;
      }
      if (first?.type !== 'migration' || first.key !== header.key) {
        throw usageError(
          `the state file ${path} belongs to another migration (a different export, source, app, tenant or options): ` +
            'give another --state file, or delete it to start over',
        );
      }
      for (const line of lines.slice(1)) {
        if (line.trim() === '') continue;
        try {
          const entry = JSON.parse(line) as ChunkEntry;
          if (entry.type === 'chunk' && Number.isInteger(entry.index)) state.chunks.set(entry.index, entry);
        } catch {
          // A line cut short by a crash: its chunk is sent again (the Idempotency-Key makes that a replay).
        }
      }
      state.resumedChunks = state.chunks.size;
      state.fd = openPrivate(path, 'a', 'state file');
    } else {
      state.fd = openPrivate(path, 'a', 'state file');
      state.append(header);
    }
    return state;
  }

  get resumed(): boolean {
    return this.resumedChunks > 0;
  }

  record(entry: Omit<ChunkEntry, 'type' | 'at'>): void {
    const full: ChunkEntry = {
      type: 'chunk',
      index: entry.index,
      users: entry.users,
      ids: entry.ids,
      rejected: entry.rejected.map((r) => ({ i: r.i, errors: r.errors.map(redact) })),
      at: new Date().toISOString(),
    };
    this.chunks.set(entry.index, full);
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
