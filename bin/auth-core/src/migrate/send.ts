/**
 * Sending chunks to the core. A real run stages each chunk (`POST /bulk-import/users`, gzipped, with
 * an Idempotency-Key) and journals what was staged; a dry run asks the core to check it
 * (`?dryRun=true`), or, when the core cannot, only reports the duplicates found across chunks. The
 * run picks one sender; each takes out users the core refuses at validation and sends the rest again.
 */
import { gzipSync } from 'node:zlib';
import type { CoreClient, CoreReply } from '../core-client.js';
import { coreError, usageError } from '../errors.js';
import { maskPhones, phoneSpellings } from '../personal.js';
import type { Progress } from '../progress.js';
import { excerpt } from '../redact.js';
import type { Report } from '../report.js';
import type { RejectedEntry, StateFile } from '../state.js';
import type { AppHints } from './checks.js';
import { chunkKey } from './plan.js';
import type { Chunk } from './read.js';

export interface ChunkSender {
  send(chunk: Chunk): Promise<void>;
  /** Users the core would import (dry run); undefined for a real run. */
  readonly wouldImport: number | undefined;
}

/** Users the core refused at staging or in a dry run: report lines of stage `check`. */
export class CheckRefusals {
  constructor(
    private readonly report: Report,
    private readonly progress: Progress,
    private readonly hints: AppHints,
  ) {}

  add(chunk: Chunk, local: number, messages: readonly string[]): void {
    this.hints.refusedWith(messages);
    const sourceId = chunk.sourceIds[local];
    this.report.add({
      position: chunk.positions[local] as number,
      sourceId,
      externalUserId: chunk.users[local]?.externalUserId ?? sourceId,
      stage: 'check',
      messages,
      phoneNumbers: phoneSpellings(chunk.users[local]?.loginMethods),
    });
    this.progress.counters.refused += 1;
  }
}

/** The users of a chunk the core took (indexes in the chunk) and its answer. */
interface Accepted {
  readonly remaining: readonly number[];
  readonly reply: CoreReply;
}

/**
 * Posts the chunk until the core takes what is left: a 400 naming users (`{"users":[{index, errors}]}`)
 * takes them out (each told to `onRefused`) and the rest goes again, as round 1, 2, …; undefined when
 * every user was refused. Other answers stop the run.
 */
async function postUntilTaken(
  client: CoreClient,
  path: string,
  chunk: Chunk,
  headersFor: (round: number) => Record<string, string>,
  onRefused: (local: number, errors: string[]) => void,
): Promise<Accepted | undefined> {
  let remaining = chunk.users.map((_, i) => i);
  for (let round = 0; remaining.length > 0; round++) {
    const body = gzipSync(JSON.stringify({ users: remaining.map((i) => chunk.users[i]) }));
    const reply = client.checked(
      await client.request('POST', path, { body, gzip: true, headers: headersFor(round) }),
      `chunk ${chunk.index}`,
    );
    if (reply.status === 200) return { remaining, reply };
    const invalid = reply.status === 400 ? validationAnswer(reply.json) : undefined;
    if (invalid) {
      const refused = new Set<number>();
      for (const entry of invalid.users) {
        const at = remaining[entry.index];
        if (at === undefined || refused.has(at)) continue;
        refused.add(at);
        onRefused(at, entry.errors.map(String));
      }
      if (refused.size === 0)
        throw coreError(`the core refused chunk ${chunk.index} without naming a user: ${excerpt(reply.text, 300)}`);
      remaining = remaining.filter((i) => !refused.has(i));
      continue;
    }
    if (reply.status === 422) {
      throw usageError(
        `the core has already seen chunk ${chunk.index} of this migration with a different body (422 ${reply.text}); ` +
          'the export or the command changed since it was staged: give a new --state file to stage it as a new migration',
      );
    }
    if (reply.status === 413)
      throw usageError(`chunk ${chunk.index} is too large for the core (413): use a smaller --batch-size`);
    throw coreError(`the core refused chunk ${chunk.index}: ${reply.status} ${excerpt(reply.text, 300)}`);
  }
  return undefined;
}

interface ValidationAnswer {
  readonly users: ReadonlyArray<{ index: number; errors: string[] }>;
}

function validationAnswer(json: unknown): ValidationAnswer | undefined {
  if (typeof json !== 'object' || json === null || !Array.isArray((json as { users?: unknown }).users))
    return undefined;
  const users = (json as { users: unknown[] }).users;
  const ok = users.every(
    (u) =>
      typeof u === 'object' &&
      u !== null &&
      Number.isInteger((u as { index?: unknown }).index) &&
      Array.isArray((u as { errors?: unknown }).errors),
  );
  return ok ? (json as ValidationAnswer) : undefined;
}

/** A real run: stages each chunk under its Idempotency-Key and journals it; a journaled chunk is not sent again. */
export class Stager implements ChunkSender {
  readonly wouldImport = undefined;

  constructor(
    private readonly client: CoreClient,
    private readonly migration: string,
    private readonly journal: StateFile,
    private readonly refusals: CheckRefusals,
    private readonly progress: Progress,
  ) {}

  async send(chunk: Chunk): Promise<void> {
    const done = this.journal.chunks.get(chunk.index);
    if (done) {
      for (const entry of done.rejected) this.refusals.add(chunk, entry.i, [...entry.errors]);
      this.progress.counters.staged += done.ids.length;
      return;
    }
    const rejected: RejectedEntry[] = [];
    const taken = await postUntilTaken(
      this.client,
      this.client.appPath('/bulk-import/users'),
      chunk,
      (round) => ({ 'idempotency-key': chunkKey(this.migration, chunk.index, round) }),
      (at, errors) => {
        // The journal keeps the core's reasons as the report shows them: phone numbers masked.
        const phones = phoneSpellings(chunk.users[at]?.loginMethods);
        rejected.push({ i: at, errors: errors.map((e) => maskPhones(e, phones)) });
        this.refusals.add(chunk, at, errors);
      },
    );
    if (taken === undefined) {
      // Every user of the chunk was refused.
      this.journal.record({ index: chunk.index, users: chunk.users.length, ids: [], rejected });
      return;
    }
    const answer = taken.reply.json as { users?: unknown } | undefined;
    const users = Array.isArray(answer?.users)
      ? (answer.users as Array<{ loginMethods?: Array<{ userId?: unknown }> }>)
      : [];
    if (users.length !== taken.remaining.length) {
      throw coreError(
        `the core answered chunk ${chunk.index} with ${users.length} staged users for ${taken.remaining.length} sent`,
      );
    }
    const ids = users.map((u) => (u.loginMethods ?? []).map((m) => String(m.userId)));
    this.journal.record({ index: chunk.index, users: chunk.users.length, ids, rejected });
    this.progress.counters.staged += taken.remaining.length;
  }
}

/** A dry run the core checks (`?dryRun=true`): refusals and conflicts, then the duplicates across chunks. */
export class CoreDryRun implements ChunkSender {
  wouldImport = 0;

  constructor(
    private readonly client: CoreClient,
    private readonly refusals: CheckRefusals,
  ) {}

  async send(chunk: Chunk): Promise<void> {
    const found = new Map(chunk.duplicates);
    const taken = await postUntilTaken(
      this.client,
      this.client.appPath('/bulk-import/users?dryRun=true'),
      chunk,
      () => ({}),
      (at, errors) => {
        this.refusals.add(chunk, at, errors);
        // A user the core refuses is reported once, with the core's reasons.
        found.delete(at);
      },
    );
    if (taken === undefined) return;
    const answer = taken.reply.json as { dryRun?: unknown; conflicts?: unknown } | undefined;
    if (answer?.dryRun !== true)
      throw coreError(`the core answered chunk ${chunk.index} of the dry run without "dryRun":true; stopped`);
    const conflicts = Array.isArray(answer.conflicts)
      ? (answer.conflicts as Array<{ index?: unknown; errors?: unknown }>)
      : [];
    for (const conflict of conflicts) {
      const at = Number.isInteger(conflict.index) ? taken.remaining[conflict.index as number] : undefined;
      if (at === undefined) continue;
      const messages = Array.isArray(conflict.errors) ? conflict.errors.map(String) : [];
      found.set(at, [...messages, ...(found.get(at) ?? [])]);
    }
    this.wouldImport += reportFound(chunk, taken.remaining, found, this.refusals);
  }
}

/** A dry run against a core without dry-run support: only the duplicates across chunks are found. */
export class LocalDryRun implements ChunkSender {
  wouldImport = 0;

  constructor(private readonly refusals: CheckRefusals) {}

  async send(chunk: Chunk): Promise<void> {
    this.wouldImport += reportFound(
      chunk,
      chunk.users.map((_, i) => i),
      chunk.duplicates,
      this.refusals,
    );
  }
}

/** Reports the users of `checked` with findings, in chunk order; returns how many have none. */
function reportFound(
  chunk: Chunk,
  checked: readonly number[],
  found: ReadonlyMap<number, string[]>,
  refusals: CheckRefusals,
): number {
  for (const [at, messages] of [...found.entries()].sort((a, b) => a[0] - b[0])) refusals.add(chunk, at, messages);
  return checked.filter((i) => !found.has(i)).length;
}
