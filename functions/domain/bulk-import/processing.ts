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
import type { ImportMessage } from './message.js';
import { describeError, scrubSecrets } from './secrets.js';
import type { StagingStore } from './staging-ports.js';
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
   * Whether a storage failure could succeed when retried (throttling, a conflicting transaction,
   * an unavailable service). Every other error — a value storage refuses, a bug — is permanent.
   */
  readonly isTransient: (error: unknown) => boolean;
}

export type ProcessingResult =
  /** Imported now. */
  | { readonly kind: 'imported' }
  /** Nothing to do: imported by an earlier delivery, removed, FAILED already, or the app is gone. */
  | { readonly kind: 'skipped'; readonly reason: string }
  /** The row is now FAILED with this (credential-free) message. */
  | { readonly kind: 'failed'; readonly message: string }
  /** A transient problem: the message must come back (its receive count grows towards the DLQ). */
  | { readonly kind: 'retry'; readonly error: string };

/**
 * The stored user as validation input. Normalisation turned an absent `totpDevices` into `[]`,
 * and an explicit `[]` needs MFA: an empty list is treated as absent (nothing to import).
 */
function revalidationInput(user: ImportUser): Record<string, unknown> {
  const { totpDevices, ...rest } = user;
  return totpDevices.length > 0 ? { ...rest, totpDevices } : rest;
}

/** The prefix of a FAILED row's message when the import hit an error a retry would not fix. */
export const PERMANENT_ERROR_PREFIX = 'Import failed: ';

/** The Java list rendering of validation errors, as the reference stores them: `[a, b]`. */
export const javaList = (errors: readonly string[]) => `[${errors.join(', ')}]`;

/**
 * Imports the staged user a message names.
 *
 * Steps: claim the row (NEW/PROCESSING → PROCESSING; a missing or FAILED row → skipped);
 * re-validate the stored user against the app's current roles, tenants and switches (invalid →
 * FAILED `[…]`); run the import with "delete my PROCESSING row + counter" in the same
 * transaction; a domain failure → FAILED with the §5.4 message (only while the row is still
 * PROCESSING); the user already present → its row is removed, no FAILED. A transient error
 * thrown (`isTransient`) is remembered on the row (for the DLQ consumer) and `retry` returned;
 * any other error after the claim marks the row FAILED at once (`Import failed: …`): a retry would
 * fail the same way, so it is never retried.
 */
export async function processStagedUser(
  deps: ProcessingDeps,
  message: ImportMessage,
  hashes?: ReadonlyMap<string, string>,
): Promise<ProcessingResult> {
  const { appId, id } = message;
  let user: Parameters<typeof scrubSecrets>[1];
  let claimed = false;
  try {
    const row = await deps.store.claim(appId, id, deps.now());
    if (!row) return { kind: 'skipped', reason: 'no NEW or PROCESSING row' };
    claimed = true;
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
      const marked = await deps.store.fail(appId, id, 'PROCESSING', text, deps.now());
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
        const marked = await deps.store.fail(appId, id, 'PROCESSING', text, deps.now());
        return marked ? { kind: 'failed', message: text } : { kind: 'skipped', reason: 'row changed meanwhile' };
      }
    }
  } catch (error) {
    const text = describeError(error, user);
    const transient = error instanceof TransientWriteError || deps.isTransient(error);
    if (claimed && !transient) {
      const failed = await failPermanently(deps, appId, id, `${PERMANENT_ERROR_PREFIX}${text}`);
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

/** Marks a PROCESSING row FAILED; undefined when that write fails too (the message is retried). */
async function failPermanently(
  deps: ProcessingDeps,
  appId: string,
  id: string,
  message: string,
): Promise<ProcessingResult | undefined> {
  try {
    return (await deps.store.fail(appId, id, 'PROCESSING', message, deps.now()))
      ? { kind: 'failed', message }
      : { kind: 'skipped', reason: 'row changed meanwhile' };
  } catch {
    return undefined;
  }
}

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
    } catch (error) {
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
  const results = await Promise.all(pending.map((m) => processStagedUser(deps, m, hashes)));
  for (const [i, m] of pending.entries()) done.set(messageKey(m), results[i] as ProcessingResult);
  return messages.map((m) => done.get(messageKey(m)) as ProcessingResult);
}

/** The message a FAILED row gets when its retries ran out without a recorded error. */
export const RETRIES_EXHAUSTED_MESSAGE =
  'The import did not complete after repeated attempts (no error was recorded); stage the user again to retry.';

/**
 * A message that exhausted its retries (it reached the dead-letter queue): its row becomes FAILED
 * with the last transient error, unless the row is gone (imported or removed) or FAILED already.
 * Returns false when the store kept changing under it (the DLQ message is then retried).
 */
export async function failExhaustedImport(
  deps: Pick<ProcessingDeps, 'store' | 'now'>,
  message: ImportMessage,
): Promise<'failed' | 'skipped' | 'retry'> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const row = await deps.store.get(message.appId, message.id);
    if (!row || row.status === 'FAILED') return 'skipped';
    const text = row.lastError ? `Import failed after repeated attempts: ${row.lastError}` : RETRIES_EXHAUSTED_MESSAGE;
    if (await deps.store.fail(message.appId, message.id, row.status, text, deps.now())) return 'failed';
  }
  return 'retry';
}
