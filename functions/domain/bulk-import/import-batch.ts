/**
 * The import of a batch: what the import worker does with the staged users its messages name —
 * claim each row, check its user again against the app as it is now, and run THE import function
 * (functions/domain/import/import-user.ts) with "delete my staged row" in the same transaction.
 * A user that can never be imported turns FAILED (failed-rows.ts); one the table was too busy for
 * comes back later (backoff.ts); its neighbours never notice either.
 *
 * Exactly-once effect under at-least-once delivery: the user's items and the deletion of its
 * staged row commit in ONE transaction (the row deletion is conditioned on the row still being
 * PROCESSING), FAILED is only ever written conditionally on the row's current status, and a
 * redelivery of an imported user finds no row (or finds its user already there) and does nothing.
 * docs/import-pipeline.md walks the whole path.
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
import type { ImportUser } from '../import/types.js';
import { type FailOutcome, failRow, javaList, permanentFailureMessage, type StagedRowDeps } from './failed-rows.js';
import type { ImportMessage } from './message.js';
import { describeError, scrubSecrets } from './scrub-credentials.js';
import type { ClaimedRow } from './staging-ports.js';
import { type ImportValidationContext, validateImportUser } from './validate-user.js';

/** What re-validation and the import need to know about the app, read now (roles/tenants may have changed). */
export interface AppImportContext {
  readonly validation: Omit<ImportValidationContext, 'now' | 'newId'>;
  readonly config: ImportConfig;
}

export interface ImportBatchDeps extends StagedRowDeps {
  /** Undefined when the app no longer exists (its deletion purges its staged rows). */
  readonly loadApp: (appId: string) => Promise<AppImportContext | undefined>;
  /** THE import function (functions/domain/import/import-user.ts), bound to its dependencies. */
  readonly importUser: (request: ImportRequest) => Promise<ImportOutcome>;
  /** THE import function's group path (importUserGroup), bound to its dependencies. */
  readonly importUserGroup: (request: GroupImportRequest) => Promise<GroupImportResult>;
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

const isBackpressureOf = (deps: Pick<ImportBatchDeps, 'isBackpressure'>) =>
  deps.isBackpressure ?? ((error: unknown) => error instanceof BackpressureError);

export type StagedImportResult =
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
   * back later, with a delay (see backoff.ts); nothing was noted on the row.
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

/** The claimed row's user checked again against the app as it is now. */
const revalidate = (deps: ImportBatchDeps, row: ClaimedRow, app: AppImportContext) =>
  validateImportUser(
    revalidationInput(row.user),
    { ...app.validation, now: deps.now(), newId: deps.newId },
    { idMode: 'readStored' },
  );

/** The result of {@link failRow} on a claimed row, with the (credential-free) message it wrote. */
async function failClaimed(deps: ImportBatchDeps, row: ClaimedRow, message: string): Promise<StagedImportResult> {
  const outcome: FailOutcome = await failRow(deps, row, message);
  return outcome === 'failed' ? { kind: 'failed', message } : { kind: 'skipped', reason: 'row changed meanwhile' };
}

/**
 * Imports the staged user a message names.
 *
 * Steps: claim the row (NEW/PROCESSING → PROCESSING; a missing or FAILED row → skipped);
 * re-validate the stored user against the app's current roles, tenants and switches (invalid →
 * FAILED `[…]`); run the import with "delete my PROCESSING row + counter" in the same
 * transaction; a domain failure → FAILED with the reference's message (only while the row is still
 * PROCESSING); the user already present → its row is removed, no FAILED. Backpressure thrown
 * (`isBackpressure`) returns `backpressure` and writes nothing; a write that kept meeting changes
 * ({@link TransientWriteError}) is remembered on the row (for the DLQ consumer) and `retry`
 * returned; any other error after the claim marks the row FAILED at once (`Import failed: …`): a
 * retry would fail the same way, so it is never retried.
 */
export async function importStagedUser(
  deps: ImportBatchDeps,
  message: ImportMessage,
  hashes?: ReadonlyMap<string, string>,
): Promise<StagedImportResult> {
  const { appId, id } = message;
  let claimed: ClaimedRow | undefined;
  try {
    const row = await deps.store.claim(appId, id, deps.now());
    if (!row) return { kind: 'skipped', reason: 'no NEW or PROCESSING row' };
    claimed = row;
    const app = await deps.loadApp(appId);
    if (!app) return { kind: 'skipped', reason: 'app does not exist' };

    const validation = revalidate(deps, row, app);
    if (!validation.ok) return await failClaimed(deps, row, scrubSecrets(javaList(validation.errors), row.user));

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
      case 'failed':
        return await failClaimed(deps, row, scrubSecrets(outcome.errors.join(', '), row.user));
    }
  } catch (error) {
    const text = describeError(error, claimed?.user);
    // Backpressure: the table (or a queue, or the key) is busy. Nothing is written now — a note
    // would be one more write to a busy table; the import worker returns the message with a delay.
    if (isBackpressureOf(deps)(error)) return { kind: 'backpressure', error: text };
    // Any other error after the claim, but a write that kept meeting changes, would fail the same
    // way again: the row turns FAILED now, never retried (unless that write fails too).
    if (claimed && !(error instanceof TransientWriteError)) {
      const failed = await failClaimed(deps, claimed, permanentFailureMessage(text)).catch(() => undefined);
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

/** A group's error in words without any user's data: our own error's message, else the SDK error's name. */
const backpressureText = (error: unknown) =>
  error instanceof BackpressureError
    ? `${error.name}: ${error.message}`
    : error instanceof Error
      ? error.name
      : 'unknown error';

const messageKey = (m: Pick<ImportMessage, 'appId' | 'id'>) => `${m.appId}\u0000${m.id}`;

/**
 * Imports the staged users an import worker batch names, with the fewest writes that keep every
 * invariant: per app, the rows are claimed together (one transaction, one counter update) and the
 * users that re-validate are imported together (importUserGroup: one transaction per group, one
 * update per counter item). Whatever that fast path does not finish — an invalid user, a conflict
 * anywhere in a group, an error — goes through {@link importStagedUser} one message at a time, so
 * every user ends exactly as it would alone. Results are in message order; a message repeated
 * within the batch shares its twin's result.
 */
export async function importStagedBatch(
  deps: ImportBatchDeps,
  messages: readonly ImportMessage[],
): Promise<StagedImportResult[]> {
  const done = new Map<string, StagedImportResult>();
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
    const result: StagedImportResult = { kind: 'backpressure', error: backpressureText(error) };
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
        const validation = revalidate(deps, row, app);
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
      const result = await importStagedUser(deps, m, hashes);
      if (result.kind === 'backpressure') pushedBack ??= `not started after backpressure: ${result.error}`;
      done.set(messageKey(m), result);
    }
  };
  await Promise.all(Array.from({ length: Math.min(ONE_BY_ONE_CONCURRENCY, pending.length) }, runner));
  return messages.map((m) => done.get(messageKey(m)) as StagedImportResult);
}
