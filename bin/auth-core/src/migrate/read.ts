/**
 * Reading the export into chunks: each record is converted by the source's converter (a record that
 * cannot be converted gets a report line and never stops the run), its metadata keys that look like
 * credentials are dropped, what is left behind is reported, and the users go into chunks in the
 * export's order, each as large as `sizeAt` says when its first user comes (sizing.ts; a resumed
 * run's journal fixes the chunks it sent before).
 */
import type { WireImportUser } from '../contract.js';
import { withoutCredentialKeys } from '../credential-keys.js';
import { usageError } from '../errors.js';
import type { ByteCounter } from '../input.js';
import { phoneSpellings } from '../personal.js';
import type { Progress } from '../progress.js';
import type { Report } from '../report.js';
import type { Conversion } from '../sources/conversion.js';
import type { SourceSetup } from '../sources/index.js';
import { type AppHints, MAX_ROLES_CHECKED } from './checks.js';
import type { DuplicateCheck } from './duplicates.js';
import type { VerifyTargets } from './verify.js';

/** Users sent in one staging (or dry-run) request, with where each came from. */
export interface Chunk {
  readonly index: number;
  /** Payload index (users converted, in order) of its first user. */
  readonly start: number;
  readonly users: WireImportUser[];
  /** Per user: the record's 1-based position in the export. */
  readonly positions: number[];
  /** Per user: the record's id in the source. */
  readonly sourceIds: (string | undefined)[];
  /** Dry run: users (index in the chunk) that repeat a key of a user in an earlier chunk, with the messages. */
  readonly duplicates: Map<number, string[]>;
}

/** What the users carried besides their login methods, counted over the export. */
export interface Carried {
  /** Users whose second factors went in as TOTP devices. */
  totpUsers: number;
  /** Users with second factors that cannot be carried. */
  factorUsers: number;
  /** userMetadata keys dropped because they look like credentials, and the users they were dropped from. */
  metadataKeys: number;
  metadataUsers: number;
}

/** Converted users by how they will sign in: their hash's family, pending the hook, or without a password. */
export interface SignInCounts {
  byHashFamily: Record<string, number>;
  pendingHook: number;
  withoutPassword: number;
}

/** Counts `user` under how it will sign in (a user with several password methods: the first one's). */
export function countSignIn(counts: SignInCounts, user: WireImportUser): void {
  const password = user.loginMethods.find(
    (m) => m.recipeId === 'emailpassword' && (m.hashingAlgorithm !== undefined || m.passwordMigration === 'hook'),
  );
  if (password?.hashingAlgorithm !== undefined)
    counts.byHashFamily[password.hashingAlgorithm] = (counts.byHashFamily[password.hashingAlgorithm] ?? 0) + 1;
  else if (password !== undefined) counts.pendingHook += 1;
  else counts.withoutPassword += 1;
}

export interface ReadContext {
  readonly source: SourceSetup;
  readonly exportPath: string;
  readonly sourceName: string;
  readonly report: Report;
  readonly progress: Progress;
  readonly hints: AppHints;
  /** Users of the chunk whose first user is payload index `start` (the chunk's `index`). */
  readonly sizeAt: (start: number, index: number) => number;
  /** Dry run only. */
  readonly duplicates: DuplicateCheck | undefined;
  /** `--verify`: notes how the verify file's accounts were converted. */
  readonly verifyTargets?: VerifyTargets;
}

export class ExportReader {
  readonly carried: Carried = { totpUsers: 0, factorUsers: 0, metadataKeys: 0, metadataUsers: 0 };
  readonly signIn: SignInCounts = { byHashFamily: {}, pendingHook: 0, withoutPassword: 0 };
  /** Every role a converted user holds (bounded: a role list is not an export's size). */
  readonly rolesUsed = new Set<string>();
  /** Payload index (users converted, in order) → the record's position in the export. */
  readonly positions: number[] = [];
  private chunk: Chunk = emptyChunk(0, 0);
  /** Users the chunk being filled takes (set by its first user). */
  private chunkSize = 0;

  constructor(private readonly context: ReadContext) {}

  /** The export's chunks, each full but the last; `counter` counts the bytes read (progress). */
  async *chunks(counter: ByteCounter): AsyncGenerator<Chunk> {
    const { source, progress } = this.context;
    const c = progress.counters;
    for await (const record of source.records(counter)) {
      c.records += 1;
      if ('error' in record) {
        this.unreadable(record.position, record.error);
        continue;
      }
      if (c.records === 1) {
        const problem = source.checkFirst(record.value);
        if (problem)
          throw usageError(`${this.context.exportPath} is not a ${this.context.sourceName} export: ${problem}`);
      }
      const conversion = source.convert(record.value);
      if (conversion.ok) this.add(record.position, conversion);
      else {
        this.context.report.add({
          position: record.position,
          sourceId: conversion.sourceId,
          externalUserId: conversion.sourceId,
          stage: 'convert',
          messages: conversion.reasons,
        });
        c.refused += 1;
      }
      if (this.chunk.users.length > 0 && this.chunk.users.length >= this.chunkSize) {
        yield this.chunk;
        this.chunk = emptyChunk(this.chunk.index + 1, this.positions.length);
      }
      if ((c.records & 255) === 0) progress.update(counter.bytes);
    }
    if (this.chunk.users.length > 0) yield this.chunk;
  }

  /** A record that cannot be read: the first one means the file is not readable as the source's layout. */
  private unreadable(position: number, error: string): void {
    const { progress, report, source, exportPath } = this.context;
    if (progress.counters.records === 1)
      throw usageError(`${exportPath} is not readable as ${source.layout}: ${error}`);
    report.add({ position, sourceId: undefined, externalUserId: undefined, stage: 'convert', messages: [error] });
    progress.counters.refused += 1;
  }

  private add(position: number, conversion: Extract<Conversion, { ok: true }>): void {
    const { user, sourceId } = conversion;
    this.context.progress.counters.converted += 1;
    countSignIn(this.signIn, user);
    this.context.verifyTargets?.note(user);
    const leftBehind = [...conversion.factorsLeftBehind, ...this.scrubMetadata(user)];
    if (conversion.factorsLeftBehind.length > 0) this.carried.factorUsers += 1;
    if (Array.isArray(user.totpDevices) && user.totpDevices.length > 0) {
      this.carried.totpUsers += 1;
      this.context.hints.totpUser(`record ${position} (${sourceId ?? 'no id'}) has TOTP devices`, this.chunk.index > 0);
    }
    if (leftBehind.length > 0) {
      this.context.report.addLeftBehind({
        position,
        sourceId,
        externalUserId: user.externalUserId ?? sourceId,
        stage: 'convert',
        messages: leftBehind,
        phoneNumbers: phoneSpellings(user.loginMethods),
      });
    }
    for (const { role } of user.userRoles ?? []) {
      if (typeof role === 'string' && this.rolesUsed.size < MAX_ROLES_CHECKED) this.rolesUsed.add(role.trim());
    }
    const payloadIndex = this.positions.length;
    this.positions.push(position);
    // The chunk's size is taken when its first user comes: the sizing has seen the latest answers.
    if (this.chunk.users.length === 0)
      this.chunkSize = Math.max(1, this.context.sizeAt(payloadIndex, this.chunk.index));
    const duplicates =
      this.context.duplicates?.check(user, payloadIndex, this.chunk.start, (i) => this.positions[i] as number) ?? [];
    if (duplicates.length > 0) this.chunk.duplicates.set(this.chunk.users.length, duplicates);
    this.chunk.users.push(user);
    this.chunk.positions.push(position);
    this.chunk.sourceIds.push(sourceId);
  }

  /** Drops the user's metadata keys that look like credentials; a message per key dropped. */
  private scrubMetadata(user: WireImportUser): string[] {
    const metadata = user.userMetadata;
    if (metadata === undefined || typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
      return [];
    const scrubbed = withoutCredentialKeys(metadata);
    if (scrubbed.dropped.length === 0) return [];
    if (Object.keys(scrubbed.metadata).length > 0) user.userMetadata = scrubbed.metadata;
    else delete user.userMetadata;
    this.carried.metadataKeys += scrubbed.dropped.length;
    this.carried.metadataUsers += 1;
    return scrubbed.dropped.map(
      (path) =>
        `userMetadata key ${path} dropped: it looks like a credential, and tokens and secrets never enter user metadata`,
    );
  }
}

function emptyChunk(index: number, start: number): Chunk {
  return { index, start, users: [], positions: [], sourceIds: [], duplicates: new Map() };
}
