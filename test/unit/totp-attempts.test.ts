/**
 * TOTP rate limiting (functions/domain/totp/attempts.ts): the record-based arithmetic gives the
 * same answers as the reference core's, which keeps every used code (valid or not) and recounts
 * them on each attempt (docs/totp-and-mfa.md "Rate limiting"). Checked on arbitrary sequences of
 * attempts with fast-check, beside hand-picked cases.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AttemptRecord,
  afterFailure,
  afterSuccess,
  isReplay,
  limitState,
  NO_ATTEMPTS,
  recordExpiry,
  type TotpLimits,
} from '#functions/domain/totp/attempts.js';

type Answer = { status: 'OK' } | { status: 'INVALID'; failed: number } | { status: 'LIMIT'; retryAfterMs: number };

/** The reference's check-and-store over its full list of used codes (newest first). */
class ReferenceModel {
  private readonly codes: { valid: boolean; created: number; code: string; expiry: number }[] = [];
  constructor(private readonly limits: TotpLimits) {}

  attempt(now: number, code: string, right: boolean, windowMs: number): Answer {
    const n = this.limits.maxAttempts;
    const reset = this.limits.cooldownMs;
    const invalid: number[] = [];
    for (const c of this.codes.slice(0, n)) {
      if (c.valid) break;
      invalid.push(c.created);
    }
    let failed = 0;
    for (const created of invalid.slice(0, n)) {
      if (!(created > (invalid[0] as number) - reset)) break;
      failed++;
    }
    if (failed === n) {
      const latest = invalid[0] as number;
      if (now - latest < reset) return { status: 'LIMIT', retryAfterMs: reset - (now - latest) };
      failed = 0;
    }
    if (code.length > 8) return { status: 'INVALID', failed: failed + 1 };
    let valid = right;
    if (valid && this.codes.some((c) => c.code === code && c.valid && c.expiry > now)) valid = false;
    this.codes.unshift({ valid, created: now, code, expiry: now + windowMs });
    return valid ? { status: 'OK' } : { status: 'INVALID', failed: failed + 1 };
  }
}

/** The same attempt through this core's record. */
function attempt(
  record: AttemptRecord,
  limits: TotpLimits,
  now: number,
  code: string,
  right: boolean,
  windowMs: number,
): { answer: Answer; record: AttemptRecord } {
  const state = limitState(record, now, limits);
  if (state.limited) return { answer: { status: 'LIMIT', retryAfterMs: state.retryAfterMs }, record };
  if (code.length > 8) return { answer: { status: 'INVALID', failed: state.failed + 1 }, record };
  if (right && !isReplay(record, code, now)) {
    return {
      answer: { status: 'OK' },
      record: afterSuccess(record, now, { codeDigest: code, expiresAt: now + windowMs }),
    };
  }
  return { answer: { status: 'INVALID', failed: state.failed + 1 }, record: afterFailure(record, now, limits) };
}

// Round numbers as well as arbitrary ones, so that attempts land exactly on the cooldown's edges.
const limitsArb = fc.record({
  maxAttempts: fc.integer({ min: 1, max: 6 }),
  cooldownMs: fc.oneof(fc.constantFrom(500, 1_000, 2_000), fc.integer({ min: 1, max: 5_000 })),
});
const eventArb = fc.record({
  gapMs: fc.oneof(fc.constantFrom(1, 250, 500, 1_000, 2_000), fc.integer({ min: 1, max: 3_000 })),
  right: fc.boolean(),
  // Few distinct codes, so that replays happen; sometimes one longer than 8 characters.
  code: fc.oneof(fc.constantFrom('111111', '222222', '333333'), fc.constant('123456789')),
  windowMs: fc.constantFrom(1_000, 3_000, 90_000),
});

describe('TOTP rate limiting', () => {
  it('answers every attempt as the reference does (fast-check)', () => {
    fc.assert(
      fc.property(limitsArb, fc.array(eventArb, { maxLength: 60 }), (limits, events) => {
        const model = new ReferenceModel(limits);
        let record = NO_ATTEMPTS;
        let now = 1_700_000_000_000;
        for (const e of events) {
          now += e.gapMs;
          const expected = model.attempt(now, e.code, e.right, e.windowMs);
          const ours = attempt(record, limits, now, e.code, e.right, e.windowMs);
          expect(ours.answer).toEqual(expected);
          record = ours.record;
          // The record stays small: at most totp_max_attempts failures.
          expect(record.failedAt.length).toBeLessThanOrEqual(limits.maxAttempts);
        }
      }),
    );
  });

  it('never lets more than totp_max_attempts wrong codes through within a cooldown (fast-check)', () => {
    fc.assert(
      fc.property(limitsArb, fc.array(fc.integer({ min: 0, max: 400 }), { maxLength: 80 }), (limits, gaps) => {
        let record = NO_ATTEMPTS;
        let now = 1_700_000_000_000;
        const wrongAnswered: number[] = [];
        for (const gap of gaps) {
          now += gap;
          const { answer, record: next } = attempt(record, limits, now, '000000', false, 90_000);
          record = next;
          if (answer.status === 'INVALID') {
            wrongAnswered.push(now);
            expect(answer.failed).toBeGreaterThanOrEqual(1);
            expect(answer.failed).toBeLessThanOrEqual(limits.maxAttempts);
          } else if (answer.status === 'LIMIT') {
            expect(answer.retryAfterMs).toBeGreaterThan(0);
            expect(answer.retryAfterMs).toBeLessThanOrEqual(limits.cooldownMs);
          }
        }
        // Within any cooldown-long span that starts at a counted failure, at most max + 1 failures
        // are counted: max in a run, then one more only after the run's cooldown is over.
        for (let i = 0; i < wrongAnswered.length; i++) {
          const start = wrongAnswered[i] as number;
          const inSpan = wrongAnswered.filter((t) => t >= start && t < start + limits.cooldownMs).length;
          expect(inSpan).toBeLessThanOrEqual(limits.maxAttempts);
        }
      }),
    );
  });

  it('limits after the max, counts down retryAfterMs, and starts again after the cooldown', () => {
    const limits = { maxAttempts: 3, cooldownMs: 10_000 };
    let record = NO_ATTEMPTS;
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) {
      expect(limitState(record, t0 + i, limits)).toEqual({ limited: false, failed: i });
      record = afterFailure(record, t0 + i, limits);
    }
    expect(limitState(record, t0 + 3, limits)).toEqual({ limited: true, retryAfterMs: 9_999, failed: 3 });
    expect(limitState(record, t0 + 2 + 9_999, limits)).toEqual({ limited: true, retryAfterMs: 1, failed: 3 });
    expect(limitState(record, t0 + 2 + 10_000, limits)).toEqual({ limited: false, failed: 0 });
    // An accepted code ends the run.
    record = afterSuccess(record, t0 + 20_000, { codeDigest: 'x', expiresAt: t0 + 110_000 });
    expect(limitState(record, t0 + 20_001, limits)).toEqual({ limited: false, failed: 0 });
    expect(isReplay(record, 'x', t0 + 109_999)).toBe(true);
    expect(isReplay(record, 'x', t0 + 110_000)).toBe(false);
  });

  it('lets storage drop a record once it no longer counts', () => {
    const limits = { maxAttempts: 3, cooldownMs: 10_000 };
    expect(recordExpiry(NO_ATTEMPTS, limits)).toBe(0);
    const failed = afterFailure(NO_ATTEMPTS, 5_000, limits);
    expect(recordExpiry(failed, limits)).toBe(25_000);
    const used = afterSuccess(failed, 6_000, { codeDigest: 'c', expiresAt: 96_000 });
    expect(recordExpiry(used, limits)).toBe(96_000);
    // Expired used codes are dropped from the next record.
    expect(afterFailure(used, 100_000, limits).usedCodes).toEqual([]);
  });
});
