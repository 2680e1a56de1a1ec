import { describe, expect, it } from 'vitest';
import {
  BUSY_RESEND_AFTER_MS,
  DEFAULT_RESEND_AFTER_MS,
  type ImportBacklog,
  resendCutoff,
} from '#functions/domain/bulk-import/reconcile.js';

const backlog = (drained: boolean): ImportBacklog => ({ isDrained: async () => drained });
const NOW = 1_800_000_000_000;

describe('resendCutoff: when a staged row counts as having lost its message', () => {
  it('once both queues are empty, a row sent more than 15 min ago', async () => {
    expect(await resendCutoff(backlog(true), NOW)).toBe(NOW - DEFAULT_RESEND_AFTER_MS);
    expect(DEFAULT_RESEND_AFTER_MS).toBe(15 * 60_000);
    expect(await resendCutoff(backlog(true), NOW, 5 * 60_000)).toBe(NOW - 5 * 60_000);
  });

  it('while the queues hold messages, only a row sent more than 6 h ago (its message may be waiting)', async () => {
    expect(BUSY_RESEND_AFTER_MS).toBe(6 * 3_600_000);
    expect(await resendCutoff(backlog(false), NOW)).toBe(NOW - BUSY_RESEND_AFTER_MS);
    expect(await resendCutoff(backlog(false), NOW, 5 * 60_000)).toBe(NOW - BUSY_RESEND_AFTER_MS);
  });

  it('never re-sends sooner when busy than when empty', async () => {
    const long = BUSY_RESEND_AFTER_MS * 2;
    expect(await resendCutoff(backlog(false), NOW, long)).toBe(NOW - long);
  });
});
