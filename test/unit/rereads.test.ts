/**
 * The read-again-on-conflict loop (functions/shared/rereads.ts): every optimistic write of the core
 * goes through it, so how many attempts it makes and what it does when they run out is what a
 * caller sees after concurrent changes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { READ_AGAIN, RereadsExhaustedError, reread } from '#functions/shared/rereads.js';

describe('reread', () => {
  it('answers the first attempt that is not refused, after exactly that many attempts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 7 }), async (attempts, refused) => {
        const seen: number[] = [];
        const run = reread({ attempts, exhausted: 'kept changing' }, async (attempt) => {
          seen.push(attempt);
          return attempt < refused ? READ_AGAIN : `done after ${attempt}`;
        });
        if (refused < attempts) {
          expect(await run).toBe(`done after ${refused}`);
          expect(seen).toEqual(Array.from({ length: refused + 1 }, (_, i) => i));
        } else {
          await expect(run).rejects.toThrow(new RereadsExhaustedError('kept changing'));
          expect(seen).toEqual(Array.from({ length: attempts }, (_, i) => i));
        }
      }),
    );
  });

  it('gives up with the reason as the error message, in the error class the policy names', async () => {
    const always = async () => READ_AGAIN;
    const error = await reread({ attempts: 2, exhausted: 'the row kept changing' }, always).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RereadsExhaustedError);
    expect(error).toMatchObject({ name: 'RereadsExhaustedError', message: 'the row kept changing' });

    class Busy extends Error {}
    await expect(reread({ attempts: 1, exhausted: 'busy', error: Busy }, always)).rejects.toBeInstanceOf(Busy);
  });

  it('answers orElse instead of throwing when the policy has one', async () => {
    let calls = 0;
    const answer = await reread({ attempts: 3, exhausted: 'kept changing', orElse: () => 'retry later' }, async () => {
      calls++;
      return READ_AGAIN;
    });
    expect(answer).toBe('retry later');
    expect(calls).toBe(3);
  });

  it('lets an error of an attempt through at once', async () => {
    let calls = 0;
    const run = reread({ attempts: 5, exhausted: 'kept changing' }, async () => {
      calls++;
      throw new Error('the table is gone');
    });
    await expect(run).rejects.toThrow('the table is gone');
    expect(calls).toBe(1);
  });
});
