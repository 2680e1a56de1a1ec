/**
 * How large the migration command's requests are (bin/auth-core/src/migrate/sizing.ts): with
 * `--batch-size auto` they start small, grow while the core answers well inside the target time,
 * shrink on a slow answer or a refusal, and always stay within the bounds; and the progress lines
 * keep coming while a request is slow.
 */
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AdaptiveSize,
  AUTO_MIN,
  AUTO_START,
  DEFAULT_REQUEST_SECONDS,
  FixedSize,
} from '../../bin/auth-core/src/migrate/sizing.js';
import { Progress } from '../../bin/auth-core/src/progress.js';

const sizing = { start: AUTO_START, min: AUTO_MIN, max: 10_000, targetMs: DEFAULT_REQUEST_SECONDS * 1000 };

/** What happened to one request: answered after `ms`, or refused for now. */
const outcome = fc.oneof(
  fc.record({ kind: fc.constant('answered' as const), users: fc.integer({ min: 1, max: 10_000 }), ms: fc.nat(60_000) }),
  fc.record({ kind: fc.constant('refused' as const), users: fc.integer({ min: 1, max: 10_000 }) }),
);

describe('--batch-size auto', () => {
  it('starts at 500 users and doubles while requests come back within half the target', () => {
    const sizer = new AdaptiveSize(sizing);
    const sizes = [];
    for (let i = 0; i < 8; i++) {
      const size = sizer.next();
      sizes.push(size);
      sizer.answered(size, 1_000);
    }
    expect(sizes).toEqual([500, 1_000, 2_000, 4_000, 8_000, 10_000, 10_000, 10_000]);
  });

  it('grows no further than what the measured speed fits in the target', () => {
    const sizer = new AdaptiveSize(sizing);
    // 500 users in 4 s: 1,250 fit in 10 s.
    sizer.answered(500, 4_000);
    expect(sizer.next()).toBe(1_000);
    sizer.answered(1_000, 4_900);
    expect(sizer.next()).toBe(2_000);
    // 2,000 users in 16 s: slow, 1,250 fit.
    sizer.answered(2_000, 16_000);
    expect(sizer.next()).toBe(1_250);
    // Between half the target and the target: kept.
    sizer.answered(1_250, 7_000);
    expect(sizer.next()).toBe(1_250);
  });

  it('halves on a refusal (a 503 cut short, a 5xx, no answer), down to the minimum', () => {
    const sizer = new AdaptiveSize({ ...sizing, start: 8_000 });
    sizer.refused(8_000);
    expect(sizer.next()).toBe(4_000);
    // A refusal of a smaller request (formed earlier) halves from that.
    sizer.refused(1_000);
    expect(sizer.next()).toBe(500);
    for (let i = 0; i < 10; i++) sizer.refused(sizer.next());
    expect(sizer.next()).toBe(AUTO_MIN);
  });

  it('property: always within its bounds, never grows on a refusal or a slow answer, never shrinks on a fast one', () => {
    fc.assert(
      fc.property(fc.array(outcome, { maxLength: 200 }), (outcomes) => {
        const sizer = new AdaptiveSize(sizing);
        for (const o of outcomes) {
          const before = sizer.next();
          if (o.kind === 'refused') {
            sizer.refused(o.users);
            expect(sizer.next()).toBeLessThanOrEqual(before);
          } else {
            sizer.answered(o.users, o.ms);
            if (o.ms > sizing.targetMs) expect(sizer.next()).toBeLessThanOrEqual(before);
            // Fast enough that even the doubled size fits the target: it grows (or stays at the max).
            if (o.ms * 2 * Math.max(before, o.users) <= sizing.targetMs * o.users && o.ms <= sizing.targetMs / 2)
              expect(sizer.next()).toBeGreaterThanOrEqual(Math.min(before, sizing.max));
          }
          expect(sizer.next()).toBeGreaterThanOrEqual(sizing.min);
          expect(sizer.next()).toBeLessThanOrEqual(sizing.max);
          expect(Number.isInteger(sizer.next())).toBe(true);
        }
      }),
    );
  });

  it('property: a core of steady speed is met with requests that take about the target, or the limit', () => {
    fc.assert(
      fc.property(fc.integer({ min: 20, max: 5_000 }), (usersPerSecond) => {
        const sizer = new AdaptiveSize(sizing);
        for (let i = 0; i < 40; i++) {
          const size = sizer.next();
          sizer.answered(size, (size / usersPerSecond) * 1000);
        }
        const settled = sizer.next();
        const fits = Math.floor((usersPerSecond * sizing.targetMs) / 1000);
        // Settled where a request takes between half the target and the target (or at a bound).
        if (settled < sizing.max && settled > sizing.min) {
          expect(settled).toBeLessThanOrEqual(fits);
          expect(settled).toBeGreaterThanOrEqual(Math.floor(fits / 2) - 1);
        }
      }),
    );
  });
});

describe('--batch-size <n>', () => {
  it('is n whatever the core does', () => {
    const sizer = new FixedSize(10_000);
    sizer.refused();
    sizer.answered();
    expect(sizer.next()).toBe(10_000);
  });
});

describe('progress while a request is slow', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a plain line every 5 s although nothing is read, showing the counters as the senders move them', () => {
    vi.useFakeTimers();
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    const progress = new Progress('plain', out);
    progress.phase('staging', 100);
    vi.advanceTimersByTime(5_500);
    progress.counters.staged = 500;
    vi.advanceTimersByTime(5_000);
    progress.finishBar();
    vi.advanceTimersByTime(20_000);
    const lines = text.split('\n').filter((l) => l.startsWith('['));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[5s\] staging 0%: .* 0 staged,/);
    expect(lines[1]).toMatch(/^\[10s\] staging 0%: .* 500 staged,/);
  });
});
