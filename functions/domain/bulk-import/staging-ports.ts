/**
 * Ports of the bulk-import pipeline's use cases (staging, processing, status, reconciliation).
 * The storage module implements them against DynamoDB; unit tests pass in-memory fakes.
 */
import type { ImportUser } from './types.js';

export type StagedStatus = 'NEW' | 'PROCESSING' | 'FAILED';
export const STAGED_STATUS_VALUES: readonly StagedStatus[] = ['NEW', 'PROCESSING', 'FAILED'];

export interface StagedUserRecord {
  readonly appId: string;
  readonly id: string;
  readonly status: StagedStatus;
  /** The normalised user as validated at staging time (credentials included: never log it). */
  readonly user: ImportUser;
  /** Why the import failed (FAILED rows only). */
  readonly errorMessage?: string;
  /** The last transient error a worker hit (no credentials); reported when retries run out. */
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
   * Writes NEW rows and their counter shares atomically (per group of ≤ 99 rows). Users whose
   * id is already taken are not written and are returned; the caller gives them fresh ids.
   */
  insertNew(appId: string, users: readonly ImportUser[], now: number): Promise<{ collidedIds: string[] }>;
  get(appId: string, id: string): Promise<StagedUserRecord | undefined>;
  /** NEW → PROCESSING (a PROCESSING row stays). Undefined when the row is gone or FAILED. */
  claim(appId: string, id: string, now: number): Promise<StagedUserRecord | undefined>;
  /** {@link claim} for several rows at once (fewer writes); by id, undefined where `claim` would be. */
  claimMany(appId: string, ids: readonly string[], now: number): Promise<Map<string, StagedUserRecord | undefined>>;
  /** `from` → FAILED with `message`; false when the row is gone or no longer in `from`. */
  fail(appId: string, id: string, from: 'NEW' | 'PROCESSING', message: string, now: number): Promise<boolean>;
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
  ): Promise<{ rows: StagedUserRecord[]; next?: StagedCursor }>;
  /** Exact count from the counters (all statuses when `status` is omitted). */
  count(appId: string, status?: StagedStatus): Promise<number>;
  /** Visits, page by page, NEW/PROCESSING rows of every app whose message was last sent before `sentBefore`. */
  pendingSentBefore(sentBefore: number, visit: (page: readonly PendingRef[]) => Promise<void>): Promise<void>;
  /** Records a (re-)send; a no-op when the row is gone or FAILED. */
  markSent(appId: string, id: string, now: number): Promise<void>;
}
