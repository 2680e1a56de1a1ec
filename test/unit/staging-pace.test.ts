/**
 * A staging request's size is bounded by its time (docs/bulk-import.md "A request cut short"): its
 * groups start only while the time left holds the longest group seen so far and the reserve kept
 * after them (functions/domain/bulk-import/pace.ts); a request that cannot finish stops at a group
 * boundary, answers 503 with `Retry-After` and what was staged, and its repeat does the rest.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AFTER_GROUPS_RESERVE_MS,
  FIRST_GROUP_GUESS_MS,
  GROUP_MARGIN,
  GroupPace,
} from '#functions/domain/bulk-import/pace.js';
import { stageInRounds } from '#functions/domain/bulk-import/staging.js';
import type { StagingPace, StagingStore } from '#functions/domain/bulk-import/staging-ports.js';
import type { ImportUser } from '#functions/domain/import/types.js';
import { ServiceUnavailableError } from '#functions/shared/errors.js';
import type { MetricCounts } from '#functions/shared/metrics.js';

describe('the pace of groups', () => {
  it('starts a group only when the longest seen with its margin (else the first guess) and the reserve fit before the deadline', () => {
    let now = 0;
    const pace = new GroupPace(10_000, () => now);
    expect(pace.groupMs).toBe(FIRST_GROUP_GUESS_MS);
    now = 10_000 - FIRST_GROUP_GUESS_MS - AFTER_GROUPS_RESERVE_MS;
    expect(pace.mayStart()).toBe(true);
    now += 1;
    expect(pace.mayStart()).toBe(false);
    now = 0;
    pace.done(98, 4_000);
    pace.done(98, 1_000);
    expect(pace.groupMs).toBe(4_000 * GROUP_MARGIN);
    expect(GROUP_MARGIN).toBe(1.25);
    now = 10_000 - 5_000 - AFTER_GROUPS_RESERVE_MS;
    expect(pace.mayStart()).toBe(true);
    now += 1;
    expect(pace.mayStart()).toBe(false);
    // Without a budget every group starts.
    expect(new GroupPace(undefined, () => Number.MAX_SAFE_INTEGER).mayStart()).toBe(true);
  });

  it('starts no group while one under way has already taken longer than the time left', () => {
    let now = 0;
    const pace = new GroupPace(20_000, () => now);
    expect(pace.mayStart()).toBe(true);
    now = 9_000;
    // The first group has run 9 s: another would presumably take as long, and 9 + 9 + 1 > 20… not yet.
    expect(pace.mayStart()).toBe(true);
    now = 10_500;
    expect(pace.groupMs).toBe(10_500);
    expect(pace.mayStart()).toBe(false);
    // The first one done (10.5 s): the next ones are judged by it, with the margin.
    pace.done(98, 10_500);
    expect(pace.groupMs).toBe(Math.max(10_500 * GROUP_MARGIN, 1_500));
  });

  it('property: it lets a group start only when it fits before the deadline, and counts every user once', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60_000 }),
        fc.array(fc.record({ advance: fc.nat(5_000), users: fc.nat(98), ms: fc.nat(10_000), before: fc.boolean() }), {
          maxLength: 60,
        }),
        (deadline, steps) => {
          let now = 0;
          const pace = new GroupPace(deadline, () => now);
          let counted = 0;
          let countedNow = 0;
          for (const step of steps) {
            now += step.advance;
            const groupMs = pace.groupMs;
            const may = pace.mayStart();
            expect(may).toBe(now + groupMs + AFTER_GROUPS_RESERVE_MS <= deadline);
            if (step.before) pace.doneBefore(step.users);
            else {
              pace.done(step.users, Math.min(step.ms, now));
              countedNow += step.users;
            }
            counted += step.users;
          }
          expect(pace.staged).toBe(counted);
          expect(pace.stagedByThisAttempt).toBe(countedNow);
        },
      ),
    );
  });
});

describe('a staging request cut short by its time', () => {
  const GROUP = 10;
  const users: ImportUser[] = Array.from({ length: 100 }, (_, i) => ({ id: `u${i}` }) as unknown as ImportUser);

  /**
   * A store writing groups of 10 that each take `groupMs` on the shared clock, and remembering
   * which groups were done (what a repeat finds in the markers).
   */
  function slowStore(clock: { now: number }, groupMs: number) {
    const done = new Set<number>();
    const store = {
      async insertNewOnce(_app: string, part: readonly ImportUser[], _now: number, _once: unknown, pace: StagingPace) {
        let complete = true;
        for (let g = 0; g * GROUP < part.length; g++) {
          const ids = part.slice(g * GROUP, (g + 1) * GROUP).map((u) => u.id);
          if (done.has(g)) {
            pace.doneBefore(ids.length);
            continue;
          }
          if (!pace.mayStart()) {
            complete = false;
            continue;
          }
          clock.now += groupMs;
          await pace.send(ids);
          done.add(g);
          pace.done(ids.length, groupMs);
        }
        return { collidedIds: [], complete };
      },
    } as unknown as StagingStore;
    return { store, done };
  }

  it('stops at a group boundary with a 503 saying what was staged; the repeat stages only the rest', async () => {
    const clock = { now: 0 };
    const { store, done } = slowStore(clock, 3_000);
    const metrics: MetricCounts[] = [];
    const published: string[] = [];
    const deps = {
      store,
      publisher: { publish: async (m: readonly { id: string }[]) => void published.push(...m.map((x) => x.id)) },
      now: () => clock.now,
      warn: () => undefined,
      metrics: { record: (counts: MetricCounts) => void metrics.push(counts) },
    };
    const insert = (part: readonly ImportUser[], round: number, pace: StagingPace) =>
      store.insertNewOnce('app', part, 0, { key: 'k', generation: 'g', round, expiresAt: 0 }, pace);
    // 12 s: groups at 0 (the first guess), 3 s and 6 s start; at 9 s, 3.75 s + the reserve no longer fit.
    const cut = await stageInRounds(
      deps,
      'app',
      users,
      { insert, freshIds: (u) => u },
      {
        deadline: 12_000,
        repeat: 'key',
        now: () => clock.now,
      },
    ).catch((e: unknown) => e);
    expect(cut).toBeInstanceOf(ServiceUnavailableError);
    expect((cut as ServiceUnavailableError).statusCode).toBe(503);
    expect((cut as ServiceUnavailableError).retryAfterSeconds).toBe(2);
    expect((cut as Error).message).toBe(
      'The request ran out of time before every user was staged: 30 users of 100 staged; send the request again ' +
        'with the same Idempotency-Key after 2 s (it stages only the users not staged yet)',
    );
    expect(done.size).toBe(3);
    expect(published).toEqual(users.slice(0, 30).map((u) => u.id));
    expect(metrics).toEqual([{ UsersStaged: 30 }, { StagingOutOfTime: 1 }]);

    // The same request again, with time enough: only the other groups, and every user once.
    metrics.length = 0;
    const staged = await stageInRounds(
      deps,
      'app',
      users,
      { insert, freshIds: (u) => u },
      {
        deadline: clock.now + 60_000,
        repeat: 'key',
        now: () => clock.now,
      },
    );
    expect(staged.map((u) => u.id)).toEqual(users.map((u) => u.id));
    expect(published).toEqual(users.map((u) => u.id));
    expect(metrics).toEqual([{ UsersStaged: 70 }]);
  });

  it('without a key says to send the same body again; with nothing staged, that nothing was', async () => {
    const clock = { now: 0 };
    const { store } = slowStore(clock, 3_000);
    const deps = { store, publisher: { publish: async () => undefined }, now: () => 0, warn: () => undefined };
    const insert = (part: readonly ImportUser[], round: number, pace: StagingPace) =>
      store.insertNewOnce('app', part, 0, { key: 'k', generation: 'g', round, expiresAt: 0 }, pace);
    const message = (deadline: number) =>
      stageInRounds(
        deps,
        'app',
        users,
        { insert, freshIds: (u) => u },
        { deadline, repeat: 'body', now: () => clock.now },
      )
        .then(() => 'staged')
        .catch((e: Error) => e.message);
    expect(await message(2_500)).toBe(
      'The request ran out of time before every user was staged: nothing was staged; send the request again after 2 s',
    );
    clock.now = 0;
    expect(await message(8_000)).toBe(
      'The request ran out of time before every user was staged: 20 users of 100 staged; send the same request ' +
        'again after 2 s (the same body stages only the users not staged yet)',
    );
  });
});
