/**
 * The reference core's TOTP rate limiting and used-code rule, as arithmetic over one record per
 * user id of an app — across its tenants, where the reference keeps one per tenant
 * (docs/totp-and-mfa.md "Rate limiting"):
 *
 * - Failed attempts are counted across all the user's devices. Only the latest run of failures
 *   counts (a success ends it), at most `totp_max_attempts` of them, and of those only the ones
 *   made within `totp_rate_limit_cooldown_sec` before the newest failure.
 * - When that count reaches `totp_max_attempts` and the newest failure is less than the cooldown
 *   ago, every attempt is refused with `LIMIT_REACHED_ERROR` (not counted, so waiting ends it);
 *   once the cooldown has passed, the count starts again from 0.
 * - A code that was accepted stays refused (a failure) until every step it could have been
 *   accepted in is over.
 *
 * The record keeps just what that needs: the times of the latest run of failures (newest first,
 * at most `totp_max_attempts`) and the digests of accepted codes still in their window. Pure.
 */

import { TOTP_MAX_ATTEMPTS_LIMIT } from '#functions/config/validate.js';
import type { AttemptRecord, UsedCode } from './ports.js';

export type { AttemptRecord, UsedCode } from './ports.js';

/** The tenant's `totp_max_attempts` and `totp_rate_limit_cooldown_sec` (in ms). */
export interface TotpLimits {
  readonly maxAttempts: number;
  readonly cooldownMs: number;
}

/**
 * @internal Exported for test/unit/totp-attempts.test.ts, which starts its sequences of attempts from it.
 */
export const NO_ATTEMPTS: AttemptRecord = { failedAt: [], usedCodes: [] };

/**
 * Where an attempt stands before its code is looked at: refused for `retryAfterMs` more, or
 * allowed with `failed` failures already counted (the answer to a wrong code reports `failed + 1`).
 */
export type LimitState =
  | { readonly limited: true; readonly retryAfterMs: number; readonly failed: number }
  | { readonly limited: false; readonly failed: number };

/** The failures that count now (the reference's arithmetic over its used-code list). */
export function limitState(record: AttemptRecord, now: number, limits: TotpLimits): LimitState {
  const run = record.failedAt.slice(0, limits.maxAttempts);
  const newest = run[0];
  if (newest === undefined) return { limited: false, failed: 0 };
  let failed = 0;
  for (const at of run) {
    if (!(at > newest - limits.cooldownMs)) break;
    failed++;
  }
  if (failed === limits.maxAttempts) {
    const since = now - newest;
    if (since < limits.cooldownMs) {
      return { limited: true, retryAfterMs: limits.cooldownMs - since, failed };
    }
    return { limited: false, failed: 0 };
  }
  return { limited: false, failed };
}

const liveCodes = (record: AttemptRecord, now: number) => record.usedCodes.filter((c) => c.expiresAt > now);

/** Whether this code (by digest) was accepted before and could still be accepted: a replay. */
export function isReplay(record: AttemptRecord, codeDigest: string, now: number): boolean {
  return liveCodes(record, now).some((c) => c.codeDigest === codeDigest);
}

/**
 * The record after a wrong (or replayed) code at `now`. It keeps the newest `totp_max_attempts`
 * failures of this tenant; when it already held more (another tenant of the app allows more
 * attempts, and its count must not be cut short by this one's), it keeps them all and this one,
 * up to the largest `totp_max_attempts` any tenant may have.
 */
export function afterFailure(record: AttemptRecord, now: number, limits: TotpLimits): AttemptRecord {
  const held = record.failedAt.length;
  const kept = held > limits.maxAttempts ? Math.min(TOTP_MAX_ATTEMPTS_LIMIT, held + 1) : limits.maxAttempts;
  return {
    failedAt: [now, ...record.failedAt].sort((a, b) => b - a).slice(0, kept),
    usedCodes: liveCodes(record, now),
  };
}

/** The record after an accepted code: the run of failures ends, the code is used until `expiresAt`. */
export function afterSuccess(record: AttemptRecord, now: number, used: UsedCode): AttemptRecord {
  return { failedAt: [], usedCodes: [...liveCodes(record, now), used] };
}

/**
 * When storage may drop the record (epoch ms): its used codes have expired and its newest failure
 * is two cooldowns old. One cooldown after it the failures no longer limit anyone; they still
 * count in the number a wrong code reports for one more cooldown (the reference keeps its failed
 * codes about that long before its hourly cleanup removes them).
 */
export function recordExpiry(record: AttemptRecord, limits: TotpLimits): number {
  const newest = record.failedAt[0];
  const failures = newest === undefined ? 0 : newest + 2 * limits.cooldownMs;
  return Math.max(failures, ...record.usedCodes.map((c) => c.expiresAt));
}
