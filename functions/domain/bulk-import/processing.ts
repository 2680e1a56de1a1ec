/**
 * Use cases of the import worker and the DLQ consumer (design §6): import one staged user with THE
 * import function, report per-user failures on the row, and turn exhausted retries into FAILED.
 *
 * Exactly-once effect under at-least-once delivery: the user's items and the deletion of its
 * staged row commit in ONE transaction (the row deletion is conditioned on the row still being
 * PROCESSING), FAILED is only ever written conditionally on the row's current status, and a
 * redelivery of an imported user finds no row (or finds its user already there) and does nothing.
 */

import type {
  GroupImportRequest,
  GroupImportResult,
  ImportConfig,
  ImportOutcome,
  ImportRequest,
} from '#functions/domain/import/import-user.js';
import { TransientWriteError } from '#functions/domain/users/write.js';
import { BackpressureError } from '#functions/shared/errors.js';
import type { ImportMessage } from './message.js';
import { describeError, scrubSecrets } from './secrets.js';
import type { StagedUserRecord, StagingStore } from './staging-ports.js';
import type { ImportUser } from './types.js';
import { type ImportValidationContext, validateImportUser } from './validate-user.js';

/** What re-validation and the import need to know about the app, read now (roles/tenants may have changed). */
export interface AppImportContext {
  readonly validation: Omit<ImportValidationContext, 'now' | 'newId'>;
  readonly config: ImportConfig;
}

export interface ProcessingDeps {
  readonly store: StagingStore;
  /** Undefined when the app no longer exists (its deletion purges its staged rows). */
  readonly loadApp: (appId: string) => Promise<AppImportContext | undefined>;
  /** THE import function (functions/domain/import/import-user.ts), bound to its dependencies. */
  readonly importUser: (request: ImportRequest) => Promise<ImportOutcome>;
  /** THE import function's group path (importUserGroup), bound to its dependencies. */
  readonly importUserGroup: (request: GroupImportRequest) => Promise<GroupImportResult>;
  readonly now: () => number;
  readonly newId: () => string;
  readonly warn: (message: string, fields: Record<string, unknown>) => void;
  /**
   * Whether a failure is backpressure: DynamoDB, SQS or KMS throttling or capacity errors, a
   * conflicting transaction, a 5xx — "not now", never a reason to fail the user.
   * @default a {@link BackpressureError}
   */
  readonly isBackpressure?: (error: unknown) => boolean;
  /** Milliseconds left in this invocation: no user is started without enough of it. @default unlimited */
  readonly timeLeftMs?: () => number;
}

/** Time a user needs in the worst case (claim, import, hashing) before it is worth starting. */
export const MIN_TIME_PER_USER_MS = 5_000;

/**
 * Users imported one by one at once within an invocation. After a first backpressure result no
 * further user is started: the rest come back later with the others (fewer writes while the table
 * is busy).
 */
export const ONE_BY_ONE_CONCURRENCY = 5;

const isBackpressureOf = (deps: Pick<ProcessingDeps, 'isBackpressure'>) =>
  deps.isBackpressure ?? ((error: unknown) => error instanceof BackpressureError);

export type ProcessingResult =
  /** Imported now. */
  | { readonly kind: 'imported' }
  /** Nothing to do: imported by an earlier delivery, removed, FAILED already, or the app is gone. */
  | { readonly kind: 'skipped'; readonly reason: string }
  /** The row is now FAILED with this (credential-free) message. */
  | { readonly kind: 'failed'; readonly message: string }
  /** An unexpected error: the message must come back (its receive count grows towards the DLQ). */
  | { readonly kind: 'retry'; readonly error: string }
  /**
   * Backpressure (DynamoDB, SQS or KMS busy), or not tried because of it: the message must come
   * back later, with a delay (see {@link planBackpressure}); nothing was noted on the row.
   */
  | { readonly kind: 'backpressure'; readonly error: string };

/**
 * The stored user as validation input. Normalisation turned an absent `totpDevices` into `[]`,
 * and an explicit `[]` needs MFA: an empty list is treated as absent (nothing to import).
 */
function revalidationInput(user: ImportUser): Record<string, unknown> {
  const { totpDevices, ...rest } = user;
  return totpDevices.length > 0 ? { ...rest, totpDevices } : rest;
}

/** The prefix of a FAILED row's message when the import hit an error a retry would not fix. */
const PERMANENT_ERROR_PREFIX = 'Import failed: ';

/** The Java list rendering of validation errors, as the reference stores them: `[a, b]`. */
export const javaList = (errors: readonly string[]) => `[${errors.join(', ')}]`;

/**
 * Imports the staged user a message names.
 *
 * Steps: claim the row (NEW/PROCESSING → PROCESSING; a missing or FAILED row → skipped);
 * re-validate the stored user against the app's current roles, tenants and switches (invalid →
 * FAILED `[…]`); run the import with "delete my PROCESSING row + counter" in the same
 * transaction; a domain failure → FAILED with the §5.4 message (only while the row is still
 * PROCESSING); the user already present → its row is removed, no FAILED. Backpressure thrown
 * (`isBackpressure`) returns `backpressure` and writes nothing; a write that kept meeting changes
 * ({@link TransientWriteError}) is remembered on the row (for the DLQ consumer) and `retry`
 * returned; any other error after the claim marks the row FAILED at once (`Import failed: …`): a
 * retry would fail the same way, so it is never retried.
 */
export async function processStagedUser(
  deps: ProcessingDeps,
  message: ImportMessage,
  hashes?: ReadonlyMap<string, string>,
): Promise<ProcessingResult> {
  const { appId, id } = message;
  let user: Parameters<typeof scrubSecrets>[1];
  let claimed: StagedUserRecord | undefined;
  try {
    const row = await deps.store.claim(appId, id, deps.now());
    if (!row) return { kind: 'skipped', reason: 'no NEW or PROCESSING row' };
    claimed = row;
    user = row.user;
    const app = await deps.loadApp(appId);
    if (!app) return { kind: 'skipped', reason: 'app does not exist' };

    const validation = validateImportUser(
      revalidationInput(row.user),
      { ...app.validation, now: deps.now(), newId: deps.newId },
      { idMode: 'readStored' },
    );
    if (!validation.ok) {
      const text = scrubSecrets(javaList(validation.errors), user);
      const marked = await deps.store.fail(row, text, deps.now());
      return marked ? { kind: 'failed', message: text } : { kind: 'skipped', reason: 'row changed meanwhile' };
    }

    const outcome = await deps.importUser({
      appId,
      user: validation.user,
      config: app.config,
      companions: { importedStagedRows: [id] },
      ...(hashes ? { hashes } : {}),
    });
    switch (outcome.kind) {
      case 'imported':
        return { kind: 'imported' };
      case 'already-imported':
        // An earlier delivery committed the user; its transaction also deleted the row, unless
        // the row is a leftover (e.g. restored from a backup): drop it, never mark it FAILED.
        await deps.store.removeImported(appId, id);
        return { kind: 'skipped', reason: 'already imported' };
      case 'extra-write-failed':
        return { kind: 'skipped', reason: 'row removed or failed meanwhile' };
      case 'failed': {
        const text = scrubSecrets(outcome.errors.join(', '), user);
        const marked = await deps.store.fail(row, text, deps.now());
        return marked ? { kind: 'failed', message: text } : { kind: 'skipped', reason: 'row changed meanwhile' };
      }
    }
  } catch (error) {
    const text = describeError(error, user);
    // Backpressure: the table (or a queue, or the key) is busy. Nothing is written now — a note
    // would be one more write to a busy table; the worker returns the message with a delay.
    if (isBackpressureOf(deps)(error)) return { kind: 'backpressure', error: text };
    // Any other error after the claim, but a write that kept meeting changes, would fail the same
    // way again: the row turns FAILED now, never retried.
    if (claimed && !(error instanceof TransientWriteError)) {
      const failed = await failPermanently(deps, claimed, `${PERMANENT_ERROR_PREFIX}${text}`);
      if (failed) return failed;
    }
    try {
      await deps.store.noteTransientError(appId, id, text, deps.now());
    } catch {
      // Best effort: the retry itself is what matters.
    }
    deps.warn('staged user import failed transiently; it will be retried', { appId, id, error: text });
    return { kind: 'retry', error: text };
  }
}

/** Marks the claimed (PROCESSING) row FAILED; undefined when that write fails too (the message is retried). */
async function failPermanently(
  deps: ProcessingDeps,
  row: StagedUserRecord,
  message: string,
): Promise<ProcessingResult | undefined> {
  try {
    return (await deps.store.fail(row, message, deps.now()))
      ? { kind: 'failed', message }
      : { kind: 'skipped', reason: 'row changed meanwhile' };
  } catch {
    return undefined;
  }
}

/** A group's error in words without any user's data: our own error's message, else the SDK error's name. */
const backpressureText = (error: unknown) =>
  error instanceof BackpressureError
    ? `${error.name}: ${error.message}`
    : error instanceof Error
      ? error.name
      : 'unknown error';

const messageKey = (m: Pick<ImportMessage, 'appId' | 'id'>) => `${m.appId}\u0000${m.id}`;

/**
 * Imports the staged users a worker batch names (design §6), with the fewest writes that keep
 * every invariant: per app, the rows are claimed together (one transaction, one counter update)
 * and the users that re-validate are imported together (importUserGroup: one transaction per
 * group, one update per counter item). Whatever that fast path does not finish — an invalid
 * user, a conflict anywhere in a group, an error — goes through {@link processStagedUser} one
 * message at a time, so every user ends exactly as it would alone. Results are in message order;
 * a message repeated within the batch shares its twin's result.
 */
export async function processStagedUsers(
  deps: ProcessingDeps,
  messages: readonly ImportMessage[],
): Promise<ProcessingResult[]> {
  const done = new Map<string, ProcessingResult>();
  const hashes = new Map<string, string>();
  const byApp = new Map<string, string[]>();
  for (const m of messages) {
    const ids = byApp.get(m.appId) ?? [];
    if (!ids.includes(m.id)) ids.push(m.id);
    byApp.set(m.appId, ids);
  }
  const isBackpressure = isBackpressureOf(deps);
  /** The app's users not done yet come back later, untried: the table pushed back on the app's batch. */
  const deferApp = (appId: string, ids: readonly string[], error: unknown) => {
    const result: ProcessingResult = { kind: 'backpressure', error: backpressureText(error) };
    for (const id of ids) if (!done.has(messageKey({ appId, id }))) done.set(messageKey({ appId, id }), result);
  };
  for (const [appId, ids] of byApp) {
    if (ids.length < 2) continue;
    try {
      const rows = await deps.store.claimMany(appId, ids, deps.now());
      const app = await deps.loadApp(appId);
      if (!app) continue;
      const users: ImportUser[] = [];
      for (const [id, row] of rows) {
        if (!row) {
          done.set(messageKey({ appId, id }), { kind: 'skipped', reason: 'no NEW or PROCESSING row' });
          continue;
        }
        const validation = validateImportUser(
          revalidationInput(row.user),
          { ...app.validation, now: deps.now(), newId: deps.newId },
          { idMode: 'readStored' },
        );
        if (validation.ok) users.push(validation.user);
      }
      if (users.length < 2) continue;
      const result = await deps.importUserGroup({
        appId,
        config: app.config,
        users,
        deleteStagedRows: true,
      });
      for (const id of result.imported) done.set(messageKey({ appId, id }), { kind: 'imported' });
      for (const [id, hash] of result.hashes) hashes.set(id, hash);
      if (result.interruptedBy !== undefined && isBackpressure(result.interruptedBy)) {
        deferApp(appId, ids, result.interruptedBy);
      }
    } catch (error) {
      if (isBackpressure(error)) {
        deferApp(appId, ids, error);
        continue;
      }
      // Nothing is lost: every user not marked done takes the one-by-one path below (which
      // records a credential-free error per row if it fails too). Only the error's name is
      // logged here: its text could quote any of the group's users.
      deps.warn('grouped import failed; importing these users one by one', {
        appId,
        error: error instanceof Error ? error.name : 'unknown error',
      });
    }
  }
  const pending = [
    ...new Map(messages.filter((m) => !done.has(messageKey(m))).map((m) => [messageKey(m), m])).values(),
  ];
  // One by one, a few at a time; once the table pushes back (or the invocation's time runs
  // short) no further user is started: those come back later, untried.
  let pushedBack: string | undefined;
  let next = 0;
  const runner = async () => {
    while (next < pending.length) {
      const m = pending[next++] as ImportMessage;
      if (pushedBack === undefined && (deps.timeLeftMs?.() ?? Number.POSITIVE_INFINITY) < MIN_TIME_PER_USER_MS) {
        pushedBack = 'not started: the invocation had too little time left';
      }
      if (pushedBack !== undefined) {
        done.set(messageKey(m), { kind: 'backpressure', error: pushedBack });
        continue;
      }
      const result = await processStagedUser(deps, m, hashes);
      if (result.kind === 'backpressure') pushedBack ??= `not started after backpressure: ${result.error}`;
      done.set(messageKey(m), result);
    }
  };
  await Promise.all(Array.from({ length: Math.min(ONE_BY_ONE_CONCURRENCY, pending.length) }, runner));
  return messages.map((m) => done.get(messageKey(m)) as ProcessingResult);
}

/** The message a FAILED row gets when its retries ran out without a recorded error. */
export const RETRIES_EXHAUSTED_MESSAGE =
  'The import did not complete after repeated attempts (no error was recorded); stage the user again to retry.';

/**
 * Marks the message's row FAILED with the text `textOf(row)` gives, from whatever pending status it
 * has. `read` is the row as the caller just read it, so the first try reads nothing; only when
 * the row changed meanwhile (the conditional write refused) is it read again.
 */
async function failPendingRow(
  deps: Pick<ProcessingDeps, 'store' | 'now'>,
  message: ImportMessage,
  textOf: (row: StagedUserRecord) => string,
  read?: StagedUserRecord,
): Promise<'failed' | 'skipped' | 'retry'> {
  let row = read ?? (await deps.store.get(message.appId, message.id));
  for (let attempt = 0; attempt < 3; attempt++) {
    if (attempt > 0) row = await deps.store.get(message.appId, message.id);
    if (!row || row.status === 'FAILED') return 'skipped';
    if (await deps.store.fail(row, textOf(row), deps.now())) return 'failed';
  }
  return 'retry';
}

/**
 * A message that exhausted its retries (it reached the dead-letter queue): its row becomes FAILED
 * with the last transient error, unless the row is gone (imported or removed) or FAILED already.
 * Returns false when the store kept changing under it (the DLQ message is then retried).
 */
export async function failExhaustedImport(
  deps: Pick<ProcessingDeps, 'store' | 'now'>,
  message: ImportMessage,
  read?: StagedUserRecord,
): Promise<'failed' | 'skipped' | 'retry'> {
  return failPendingRow(
    deps,
    message,
    (row) => (row.lastError ? `Import failed after repeated attempts: ${row.lastError}` : RETRIES_EXHAUSTED_MESSAGE),
    read,
  );
}

// ------------------------------------------------------------------------------------------------
// Backpressure: a user the table (or a queue, or the key) was too busy for comes back later, with
// a growing delay, for a bounded time.

/** How the import backs off (the values are functions/workers.ts IMPORT_BACKPRESSURE). */
export interface BackpressurePolicy {
  /** Delay before the first return; it doubles with every return (jittered: half to all of it). */
  readonly firstDelaySeconds: number;
  /** The longest delay (SQS allows 900 s). */
  readonly maxDelaySeconds: number;
  /** A user still refused this long after its first backpressure turns FAILED. */
  readonly giveUpAfterSeconds: number;
}

/** A message's record of backpressure, carried with it from one delivery to the next. */
export interface BackpressureHistory {
  /** Epoch ms of the first backpressure this user met. */
  readonly since: number;
  /** How often it was returned so far. */
  readonly retries: number;
}

export type BackpressurePlan =
  /** Send the message again after `delaySeconds`, carrying `history`. */
  | { readonly kind: 'later'; readonly delaySeconds: number; readonly history: BackpressureHistory }
  /** Refused for longer than the policy allows: the user turns FAILED ({@link throttledTooLongMessage}). */
  | { readonly kind: 'give-up'; readonly since: number };

/** What to do with a message that met backpressure (again), given its history. */
export function planBackpressure(
  history: BackpressureHistory | undefined,
  now: number,
  policy: BackpressurePolicy,
  random: () => number = Math.random,
): BackpressurePlan {
  const since = Math.min(history?.since ?? now, now);
  if (now - since >= policy.giveUpAfterSeconds * 1000) return { kind: 'give-up', since };
  const retries = (history?.retries ?? 0) + 1;
  const ceiling = Math.min(policy.maxDelaySeconds, policy.firstDelaySeconds * 2 ** Math.min(retries - 1, 20));
  return { kind: 'later', delaySeconds: Math.round(ceiling * (0.5 + random() / 2)), history: { since, retries } };
}

/** A duration as the FAILED message and the README say it (`6 h`, `90 min`, `45 s`). */
function describeDuration(seconds: number): string {
  if (seconds >= 3600 && seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds >= 60 && seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** The FAILED message of a user the table stayed too busy for (no credential: `lastError` is scrubbed). */
export const throttledTooLongMessage = (policy: BackpressurePolicy, lastError: string | undefined) =>
  `Import gave up after ${describeDuration(policy.giveUpAfterSeconds)} of throttling: DynamoDB (or SQS or KMS) ` +
  'kept refusing the import for lack of capacity, so nothing of this user was written. Stage the user again ' +
  'once the table has capacity (warm it, or lower the import concurrency).' +
  (lastError ? ` Last error: ${lastError}` : '');

/** The bound of {@link planBackpressure} was reached: the row turns FAILED, saying so. */
export function failThrottledImport(
  deps: Pick<ProcessingDeps, 'store' | 'now'>,
  message: ImportMessage,
  policy: BackpressurePolicy,
  lastError: string,
  read?: StagedUserRecord,
): Promise<'failed' | 'skipped' | 'retry'> {
  return failPendingRow(deps, message, () => throttledTooLongMessage(policy, lastError), read);
}

/**
 * The message could not be returned with a delay (the send itself was refused): it comes back by
 * its visibility timeout instead, and its receive count grows towards the dead-letter queue. The
 * row remembers why (best effort), so the DLQ consumer re-queues it instead of failing it.
 */
export async function noteBackpressure(
  deps: Pick<ProcessingDeps, 'store' | 'now'>,
  message: ImportMessage,
  error: string,
): Promise<void> {
  try {
    await deps.store.noteTransientError(message.appId, message.id, error, deps.now(), 'backpressure');
  } catch {
    // Best effort: without the note the DLQ consumer fails the user with its last recorded error.
  }
}

export type DeadLetterDecision =
  | { readonly kind: 'failed' | 'skipped' | 'retry' }
  /** It reached the DLQ only because of backpressure: send it to the import queue again. */
  | { readonly kind: 'requeue'; readonly delaySeconds: number; readonly history: BackpressureHistory };

/**
 * A message in the dead-letter queue. If its row's last recorded failure was backpressure, the
 * message only ran out of receives because the table, a queue or the key was busy: it goes back to
 * the import queue with a delay (its history, or now, starts the clock), until the policy's bound,
 * when the user turns FAILED saying so. Otherwise the row turns FAILED with its last error
 * ({@link failExhaustedImport}).
 */
export async function handleDeadLetter(
  deps: Pick<ProcessingDeps, 'store' | 'now'> & { readonly policy: BackpressurePolicy },
  message: ImportMessage,
  history: BackpressureHistory | undefined,
): Promise<DeadLetterDecision> {
  // One read decides, and the FAILED write is conditioned on what it saw (read again only if refused).
  const row = await deps.store.get(message.appId, message.id);
  if (!row || row.status === 'FAILED') return { kind: 'skipped' };
  if (row.lastErrorKind !== 'backpressure') return { kind: await failExhaustedImport(deps, message, row) };
  const plan = planBackpressure(history, deps.now(), deps.policy);
  if (plan.kind === 'later') return { kind: 'requeue', delaySeconds: plan.delaySeconds, history: plan.history };
  return {
    kind: await failThrottledImport(deps, message, deps.policy, row.lastError ?? 'none recorded', row),
  };
}
