/**
 * Ports of the bulk-import pipeline's use cases (staging, processing, status, reconciliation).
 * The storage module implements them against DynamoDB; unit tests pass in-memory fakes.
 */
import type {
  EmailPasswordImportLoginMethod,
  ImportLoginMethod,
  ImportTotpDevice,
  ImportUser,
} from '../import/types.js';

export type StagedStatus = 'NEW' | 'PROCESSING' | 'FAILED';
export const STAGED_STATUS_VALUES: readonly StagedStatus[] = ['NEW', 'PROCESSING', 'FAILED'];

/** `T` without the fields `K`, which a value of this type can never carry. */
type Without<T, K extends keyof T> = Omit<T, K> & { readonly [P in K]?: never };

/** A login method without its credentials (an email/password method's password and hash). */
export type ClearLoginMethod =
  | Without<EmailPasswordImportLoginMethod, 'plainTextPassword' | 'passwordHash'>
  | Exclude<ImportLoginMethod, EmailPasswordImportLoginMethod>;

/**
 * An import user without its credentials — plain-text passwords, password hashes, TOTP secrets —
 * which a staged row keeps sealed apart: what the row holds in clear, and all the status API shows.
 */
export interface ClearImportUser extends Omit<ImportUser, 'loginMethods' | 'totpDevices'> {
  loginMethods: ClearLoginMethod[];
  totpDevices: Without<ImportTotpDevice, 'secretKey'>[];
}

/**
 * A staged row as `get` and `list` read it: its user WITHOUT credentials (they stay sealed; the
 * type cannot hold them). What the status API, the DLQ consumer and the reconciler see.
 */
export interface StagedRow {
  readonly appId: string;
  readonly id: string;
  readonly status: StagedStatus;
  /** The normalised user as validated at staging time, its credentials left out. */
  readonly user: ClearImportUser;
  /** Why the import failed (FAILED rows only). */
  readonly errorMessage?: string;
  /** The last transient error the import worker hit (no credentials); reported when retries run out. */
  readonly lastError?: string;
  /**
   * What `lastError` was: `backpressure` (throttling, capacity, a busy dependency — the DLQ
   * consumer re-queues such a user) or `error` (anything else: it turns FAILED).
   */
  readonly lastErrorKind?: 'backpressure' | 'error';
  readonly createdAt: number;
  readonly updatedAt: number;
  /** When the row's import message was last sent (or, before the first send, when it was staged). */
  readonly sentAt: number;
}

/**
 * A row claimed for its import (`claim`, `claimMany`): its user WITH its credentials opened, for
 * the import function alone — never log it, never return it from an endpoint.
 */
export interface ClaimedRow extends Omit<StagedRow, 'user'> {
  readonly user: ImportUser;
}

/** Keyset position: the first row of a page (pages run `createdAt DESC, id DESC`). */
export interface StagedCursor {
  readonly createdAt: number;
  readonly id: string;
}

export interface PendingRef {
  readonly appId: string;
  readonly id: string;
}

export interface StagingStore {
  /**
   * Stages one round of a request (`POST /bulk-import/users`): NEW rows and their counter shares
   * in groups of ≤ 98 rows, each group committing together with a marker of its own, then its
   * users' import messages sent through `pace.send`. The rows are grouped the same way for the
   * same users, so a repeat of the same request (same `once`, same ids) does only what is left: a
   * group whose marker says it committed is not written again (the ids it found taken then are
   * returned again), and one whose messages were sent is not sent again. Users whose id is already
   * taken are not written and are returned; the caller gives them fresh ids. No group starts once
   * `pace.mayStart()` says no: `complete` is then false, and the groups done stay.
   */
  insertNewOnce(
    appId: string,
    users: readonly ImportUser[],
    now: number,
    once: StagingOnce,
    pace: StagingPace,
  ): Promise<{ collidedIds: string[]; complete: boolean }>;
  /** The row without its credentials (see {@link StagedRow}). */
  get(appId: string, id: string): Promise<StagedRow | undefined>;
  /**
   * NEW → PROCESSING (a PROCESSING row stays), its credentials opened. Undefined when the row is
   * gone or FAILED — or when its credentials can never be opened: the row is then made FAILED with
   * a message saying why (never retried).
   */
  claim(appId: string, id: string, now: number): Promise<ClaimedRow | undefined>;
  /** {@link claim} for several rows at once (fewer writes); by id, undefined where `claim` would be. */
  claimMany(appId: string, ids: readonly string[], now: number): Promise<Map<string, ClaimedRow | undefined>>;
  /**
   * The row, as the caller read it (`get`, `claim`), → FAILED with `message`, its credentials
   * erased in the same write; nothing is read again. False when the row is gone, FAILED already,
   * or no longer in `row.status` (a concurrent change wins: the write is conditioned on it).
   */
  fail(row: StagedRow | ClaimedRow, message: string, now: number): Promise<boolean>;
  /** Remembers a transient error and its kind (default `error`) on a NEW/PROCESSING row (best effort). */
  noteTransientError(
    appId: string,
    id: string,
    message: string,
    now: number,
    kind?: 'backpressure' | 'error',
  ): Promise<void>;
  /** Deletes a PROCESSING row whose user already exists; false when it is not PROCESSING any more. */
  removeImported(appId: string, id: string): Promise<boolean>;
  /** Deletes the rows that exist (any status); returns the ids it deleted. */
  remove(appId: string, ids: readonly string[]): Promise<Set<string>>;
  list(
    appId: string,
    query: { status?: StagedStatus; limit: number; from?: StagedCursor },
  ): Promise<{ rows: StagedRow[]; next?: StagedCursor }>;
  /** Exact count from the counters (all statuses when `status` is omitted). */
  count(appId: string, status?: StagedStatus): Promise<number>;
  /** Visits, page by page, the app's NEW/PROCESSING rows whose message was last sent before `sentBefore`. */
  pendingSentBefore(
    appId: string,
    sentBefore: number,
    visit: (page: readonly PendingRef[]) => Promise<void>,
  ): Promise<void>;
  /** Records a (re-)send; a no-op when the row is gone or FAILED. */
  markSent(appId: string, id: string, now: number): Promise<void>;
}

/** An app that has (or recently had) staged rows, and the table its rows were staged in. */
export interface StagingAppMarker {
  readonly appId: string;
  /** When a staging request last wrote the marker (before its first row). */
  readonly stagedAt: number;
  /** The table the rows of that request went to (absent on markers written before apps had tables). */
  readonly table?: string;
}

/**
 * The apps that staged users, whatever table each keeps its rows in (markers in the base table,
 * written by staging before any row): the reconciler's list of where to look.
 */
export interface StagingAppMarkers {
  list(): Promise<readonly StagingAppMarker[]>;
  /** Removes the marker unless a staging request wrote it again after `stagedAt`. */
  remove(appId: string, stagedAt: number): Promise<void>;
}

/** How one staging call paces its groups and hands each committed group on. */
export interface StagingPace {
  /** Whether another group may start now (false once the request's time would not let it finish). */
  mayStart(): boolean;
  /** Sends the import messages of a committed group's users; throws when they could not all be sent. */
  send(ids: readonly string[]): Promise<void>;
  /** A group done by this call (committed, its messages sent): `users` staged by it in `ms`. */
  done(users: number, ms: number): void;
  /** A group an earlier attempt of the same request finished: `users` staged by it. */
  doneBefore(users: number): void;
}

/** Which request and which round of its staging an {@link StagingStore.insertNewOnce} call is. */
export interface StagingOnce {
  /** The Idempotency-Key (or the key the body's digest makes, for a request without one). */
  readonly key: string;
  /** The claim's generation (a key reused after its record expired starts a new one). */
  readonly generation: string;
  /** 0, then 1, 2 … for users given fresh ids after a collision. */
  readonly round: number;
  /** Epoch ms after which the markers may be forgotten. */
  readonly expiresAt: number;
}

/** The part of a request an Idempotency-Key claims: the body's digest and its lease. */
export interface IdempotencyClaim {
  /** SHA-256 (hex) of the request body. */
  readonly digest: string;
  /** Random, chosen by the first claim: the generation of everything staged for it and the seed of its ids. */
  readonly generation: string;
  /** Epoch ms until which the claiming request is presumed alive. */
  readonly leaseUntil: number;
  /** Epoch ms after which the record is forgotten. */
  readonly expiresAt: number;
}

/** An answer remembered for replay. `body` is JSON. */
export interface RememberedAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** Where a DONE record's answer is kept, as the record names it. */
interface StoredAnswer {
  readonly id: string;
  readonly parts: number;
}

export type IdempotencyRecord =
  | ({ readonly state: 'RUNNING' } & IdempotencyClaim)
  | {
      readonly state: 'DONE';
      readonly digest: string;
      readonly generation: string;
      readonly expiresAt: number;
      readonly answer: StoredAnswer;
    };

/** Requests remembered under an Idempotency-Key, per app (one conditional write claims a key). */
export interface IdempotencyStore {
  /** The record of this key; undefined when there is none or it has expired by `now`. */
  get(appId: string, key: string, now: number): Promise<IdempotencyRecord | undefined>;
  /** Claims a key no live record holds; false when another request holds it. */
  claim(appId: string, key: string, claim: IdempotencyClaim, now: number): Promise<boolean>;
  /**
   * Takes over a RUNNING claim whose lease (`seenLeaseUntil`, as read) ran out: false when someone
   * else took it over, released, renewed or completed it meanwhile.
   */
  takeOver(appId: string, key: string, seenLeaseUntil: number, claim: IdempotencyClaim): Promise<boolean>;
  /** Ends the lease of this claim now (after a failure), so a retry need not wait for it to run out. */
  release(appId: string, key: string, claim: IdempotencyClaim): Promise<void>;
  /**
   * RUNNING → DONE with the answer; false (nothing changed) when the record is no longer this
   * claim's RUNNING record, e.g. another attempt of the same claim completed it first.
   */
  complete(
    appId: string,
    key: string,
    claim: IdempotencyClaim,
    answer: RememberedAnswer,
    expiresAt: number,
  ): Promise<boolean>;
  /**
   * Frees the key of this claim's RUNNING record (a request staged under its body's digest alone,
   * once answered: the same body sent again later is a new request): `get` no longer finds it and
   * `claim` may take the key again. Nothing when it is no longer this claim's RUNNING record.
   */
  forget(appId: string, key: string, claim: IdempotencyClaim): Promise<void>;
  /**
   * The answer the DONE record of this key holds (undefined when the key has no DONE record).
   * With `stored` (from a DONE record just read by `get`) the record is not read again.
   */
  answer(appId: string, key: string, stored?: StoredAnswer): Promise<RememberedAnswer | undefined>;
}
