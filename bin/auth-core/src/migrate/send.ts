/**
 * Sending chunks to the core. A real run stages each chunk (`POST /bulk-import/users`, gzipped, with
 * an Idempotency-Key) and journals what was staged; a dry run asks the core to check it
 * (`?dryRun=true`), or, when the core cannot, only reports the duplicates found across chunks. The
 * run picks one sender; each takes out users the core refuses at validation and sends the rest again.
 *
 * An answer that says "not now" — any 5xx (a request the core cut short at its time budget answers
 * 503 with `Retry-After` and keeps what it staged), 409 (the same key still being answered), 429,
 * no answer at all — is sent again, the same body under the same key, with backoff, until the core
 * takes it: the core stages only what is left of it. Each answer (and each refusal) tells the
 * sizing how long the core takes (sizing.ts). The run stops (exit 3) only when one chunk was refused
 * for `giveUpAfterMs` without a break, or the core refuses for a reason a retry cannot change.
 */
import { gzipSync } from 'node:zlib';
import { type CoreClient, type CoreReply, UnreachableError } from '../core-client.js';
import { coreError, usageError } from '../errors.js';
import { maskPhones, phoneSpellings } from '../personal.js';
import type { Progress } from '../progress.js';
import { excerpt } from '../redact.js';
import type { Report } from '../report.js';
import type { RejectedEntry, StateFile } from '../state.js';
import type { AppHints } from './checks.js';
import { chunkKey } from './plan.js';
import type { Chunk } from './read.js';
import type { ChunkSizer } from './sizing.js';

/** How long one chunk may be refused for now, without a break, before the run stops (exit 3). */
export const DEFAULT_GIVE_UP_AFTER_MS = 15 * 60_000;

/** What every request of a run shares: the core, the sizing it informs, and its patience. */
export interface Sending {
  readonly client: CoreClient;
  readonly sizer: ChunkSizer;
  /** See {@link DEFAULT_GIVE_UP_AFTER_MS}. */
  readonly giveUpAfterMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An answer that says "not now": the same request may be sent again. */
const notNow = (status: number) => status >= 500 || status === 409 || status === 429;

/**
 * Posts `body` until the core answers something else than "not now" (see the module comment),
 * with exponential backoff (or the core's `Retry-After`). 401 and a missing app stop the run (exit 3).
 */
async function postPatiently(
  sending: Sending,
  path: string,
  body: Buffer,
  headers: Record<string, string>,
  users: number,
  what: string,
): Promise<CoreReply> {
  const { client, sizer } = sending;
  const baseDelay = client.options.baseDelayMs ?? 500;
  const maxDelay = client.options.maxDelayMs ?? 30_000;
  let refusedSince: number | undefined;
  for (let attempt = 1; ; attempt++) {
    const started = Date.now();
    let why: string;
    let retryAfterMs: number | undefined;
    try {
      const reply = await client.request('POST', path, { body, gzip: true, headers, attempts: 1 });
      if (!notNow(reply.status)) {
        sizer.answered(users, Date.now() - started);
        return client.checked(reply, what);
      }
      why = `${reply.status} ${excerpt(reply.text, 200)}`;
      const retryAfter = Number(reply.headers.get('retry-after'));
      if (reply.headers.has('retry-after') && Number.isFinite(retryAfter) && retryAfter >= 0)
        retryAfterMs = Math.min(retryAfter * 1000, maxDelay);
    } catch (error) {
      if (!(error instanceof UnreachableError)) throw error;
      why = error.message;
    }
    sizer.refused(users);
    refusedSince ??= started;
    if (Date.now() - refusedSince >= sending.giveUpAfterMs) {
      throw coreError(
        `${what}: the core kept refusing it for now for ${Math.round((Date.now() - refusedSince) / 1000)} s ` +
          `(last: ${why}); stopped. Running the same command again resumes where this one stopped`,
      );
    }
    const backoff = Math.min(maxDelay, baseDelay * 2 ** Math.min(attempt - 1, 20));
    const delay = retryAfterMs ?? Math.round(backoff / 2 + Math.random() * (backoff / 2));
    client.options.onRetry?.(why, attempt, delay);
    await sleep(delay);
  }
}

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
 * every user was refused. "Not now" is sent again ({@link postPatiently}); other answers stop the run.
 */
async function postUntilTaken(
  sending: Sending,
  path: string,
  chunk: Chunk,
  headersFor: (round: number) => Record<string, string>,
  onRefused: (local: number, errors: string[]) => void,
): Promise<Accepted | undefined> {
  let remaining = chunk.users.map((_, i) => i);
  for (let round = 0; remaining.length > 0; round++) {
    const body = gzipSync(JSON.stringify({ users: remaining.map((i) => chunk.users[i]) }));
    const reply = await postPatiently(sending, path, body, headersFor(round), remaining.length, `chunk ${chunk.index}`);
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

/**
 * A real run: stages each chunk under its Idempotency-Key and journals it; a journaled chunk is not
 * sent again. A chunk's range is journaled before its first request, so a re-run sends it again as
 * it was (the same body under the same key) if the run stopped before the core took it.
 */
export class Stager implements ChunkSender {
  readonly wouldImport = undefined;

  constructor(
    private readonly sending: Sending,
    private readonly migration: string,
    private readonly journal: StateFile,
    private readonly refusals: CheckRefusals,
    private readonly progress: Progress,
  ) {}

  async send(chunk: Chunk): Promise<void> {
    const done = this.journal.chunks.get(chunk.start);
    if (done) {
      for (const entry of done.rejected) this.refusals.add(chunk, entry.i, [...entry.errors]);
      this.progress.counters.staged += done.ids.length;
      return;
    }
    const range = { index: chunk.index, start: chunk.start, users: chunk.users.length };
    this.journal.plan(range);
    const rejected: RejectedEntry[] = [];
    const taken = await postUntilTaken(
      this.sending,
      this.sending.client.appPath('/bulk-import/users'),
      chunk,
      (round) => ({ 'idempotency-key': chunkKey(this.migration, chunk.start, chunk.users.length, round) }),
      (at, errors) => {
        // The journal keeps the core's reasons as the report shows them: phone numbers masked.
        const phones = phoneSpellings(chunk.users[at]?.loginMethods);
        rejected.push({ i: at, errors: errors.map((e) => maskPhones(e, phones)) });
        this.refusals.add(chunk, at, errors);
      },
    );
    if (taken === undefined) {
      // Every user of the chunk was refused.
      this.journal.record({ ...range, ids: [], rejected });
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
    this.journal.record({ ...range, ids, rejected });
    this.progress.counters.staged += taken.remaining.length;
  }
}

/** A dry run the core checks (`?dryRun=true`): refusals and conflicts, then the duplicates across chunks. */
export class CoreDryRun implements ChunkSender {
  wouldImport = 0;

  constructor(
    private readonly sending: Sending,
    private readonly refusals: CheckRefusals,
  ) {}

  async send(chunk: Chunk): Promise<void> {
    const found = new Map(chunk.duplicates);
    const taken = await postUntilTaken(
      this.sending,
      this.sending.client.appPath('/bulk-import/users?dryRun=true'),
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
