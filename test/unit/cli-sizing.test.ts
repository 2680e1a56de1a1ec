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
  AUTO_START,
  DEFAULT_REQUEST_SECONDS,
  FixedSize,
} from '../../bin/auth-core/src/migrate/sizing.js';
import { Progress } from '../../bin/auth-core/src/progress.js';

const sizing = { start: AUTO_START, min: AUTO_START, max: 10_000, targetMs: DEFAULT_REQUEST_SECONDS * 1000 };

/** What happened to one request: answered after `ms`, or refused for now. */
const outcome = fc.oneof(
  fc.record({ kind: fc.constant('answered' as const), users: fc.integer({ min: 1, max: 10_000 }), ms: fc.nat(60_000) }),
  fc.record({ kind: fc.constant('refused' as const), users: fc.integer({ min: 1, max: 10_000 }) }),
);

describe('--batch-size auto', () => {
  it('starts at 1,000 users and doubles while requests come back within half the target', () => {
    const sizer = new AdaptiveSize(sizing);
    const sizes = [];
    for (let i = 0; i < 6; i++) {
      const size = sizer.next();
      sizes.push(size);
      sizer.answered(size, 1_000);
    }
    expect(sizes).toEqual([1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
  });

  it('grows by a step within the target, shrinks to the target after it (at least by half)', () => {
    const sizer = new AdaptiveSize(sizing);
    sizer.answered(1_000, 7_000);
    expect(sizer.next()).toBe(2_000);
    sizer.answered(2_000, 9_000);
    expect(sizer.next()).toBe(3_000);
    // 3,000 users in 12 s: scaled to the 10 s target.
    sizer.answered(3_000, 12_000);
    expect(sizer.next()).toBe(2_500);
    // Far slower than the target: halved, not less.
    sizer.answered(2_500, 60_000);
    expect(sizer.next()).toBe(1_250);
  });

  it('measures each answer against its own request: two answers for one size grow it once', () => {
    const sizer = new AdaptiveSize(sizing);
    sizer.answered(1_000, 1_000);
    sizer.answered(1_000, 1_000);
    expect(sizer.next()).toBe(2_000);
  });

  it('halves on a refusal (a 503 cut short, a 5xx, no answer), down to the minimum', () => {
    const sizer = new AdaptiveSize({ ...sizing, start: 8_000 });
    sizer.refused(8_000);
    expect(sizer.next()).toBe(4_000);
    // A refusal of a smaller request (formed earlier) halves from that.
    sizer.refused(2_400);
    expect(sizer.next()).toBe(1_200);
    for (let i = 0; i < 10; i++) sizer.refused(sizer.next());
    expect(sizer.next()).toBe(AUTO_START);
  });

  it('property: always within its bounds, never grows on a refusal or a slow answer, never shrinks on one within the target', () => {
    fc.assert(
      fc.property(fc.array(outcome, { maxLength: 200 }), (outcomes) => {
        const sizer = new AdaptiveSize(sizing);
        for (const o of outcomes) {
          const before = sizer.next();
          if (o.kind === 'refused') sizer.refused(o.users);
          else sizer.answered(o.users, o.ms);
          const after = sizer.next();
          if (o.kind === 'refused' || o.ms > sizing.targetMs) expect(after).toBeLessThanOrEqual(before);
          else expect(after).toBeGreaterThanOrEqual(before);
          expect(after).toBeGreaterThanOrEqual(sizing.min);
          expect(after).toBeLessThanOrEqual(sizing.max);
          expect(Number.isInteger(after)).toBe(true);
        }
      }),
    );
  });

  it('property: against a core whose time grows with the users (a fixed part and a part per user), it settles near the target', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9_000 }),
        fc.double({ min: 0.01, max: 20, noNaN: true }),
        (fixed, perUser) => {
          const sizer = new AdaptiveSize(sizing);
          const took = (users: number) => fixed + users * perUser;
          const late: number[] = [];
          for (let i = 0; i < 60; i++) {
            const size = sizer.next();
            const ms = took(size);
            if (i >= 30) late.push(ms);
            sizer.answered(size, ms);
          }
          const size = sizer.next();
          // At a bound, or sending requests that take about the target: none of the last ones takes
          // more than twice it, and the size is not below what a request of target time holds by half.
          if (size > sizing.min && size < sizing.max) {
            for (const ms of late) expect(ms).toBeLessThanOrEqual(2 * sizing.targetMs);
            const fits = (sizing.targetMs - fixed) / perUser;
            expect(size).toBeGreaterThanOrEqual(Math.floor(fits / 2) - 1);
          }
          if (size === sizing.min) expect(took(sizing.min + sizing.start)).toBeGreaterThan(sizing.targetMs / 2);
        },
      ),
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
