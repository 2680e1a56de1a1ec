/**
 * One phone rule through the real handlers (functions/contract/phone-numbers.ts): a user imported
 * with a phone number written one way is found by every spelling that normalises to the same
 * number — by `GET /users/by-accountinfo`, by the import's dry run (a conflict) and by passwordless
 * sign-in-up (`POST /recipe/signinup/code`, then consume: the imported user, not a new one).
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { normalisePhoneNumber } from '#functions/contract/phone-numbers.js';
import { phoneSpellings } from '../helpers/phone-spellings.js';
import { call, captureLogs, createApp, expectNoSecrets, importUser } from './users-support.js';

const logs = captureLogs();
const codes: string[] = [];
afterAll(() => {
  logs.restore();
  expectNoSecrets(logs.lines, codes);
});

const byPhone = async (appId: string, phoneNumber: string) => {
  const reply = await call(
    'GET',
    `/appid-${appId}/public/users/by-accountinfo?phoneNumber=${encodeURIComponent(phoneNumber)}&doUnionOfAccountInfo=false`,
  );
  expect(reply.status, reply.text).toBe(200);
  return (reply.json.users as Array<{ id: string; phoneNumbers: string[] }>).map((u) => [u.id, u.phoneNumbers]);
};

/** Signs in with a code sent to `phoneNumber`; returns the user and whether it was created. */
async function signInByCode(appId: string, phoneNumber: string) {
  const path = `/appid-${appId}/public/recipe/signinup`;
  const created = await call('POST', `${path}/code`, { body: { phoneNumber } });
  expect(created.status, created.text).toBe(200);
  codes.push(created.json.userInputCode, created.json.linkCode, created.json.deviceId);
  const consumed = await call('POST', `${path}/code/consume`, {
    body: {
      preAuthSessionId: created.json.preAuthSessionId,
      deviceId: created.json.deviceId,
      userInputCode: created.json.userInputCode,
    },
  });
  expect(consumed.status, consumed.text).toBe(200);
  expect(consumed.json.status, consumed.text).toBe('OK');
  return { id: consumed.json.user.id as string, createdNewUser: consumed.json.createdNewUser as boolean };
}

describe('a phone number stored from one spelling', () => {
  it('is found by every spelling that normalises to it: lookup, dry run, passwordless', async () => {
    const appId = await createApp({}, [], 'phones');
    const taken = new Set<string>();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(phoneSpellings, async ({ spellings }) => {
        const [stored, ...others] = spellings as [string, ...string[]];
        const number = normalisePhoneNumber(stored);
        // One user per number in the app: a number drawn twice is not imported twice.
        fc.pre(number !== '' && !taken.has(number));
        taken.add(number);
        const id = `phone-${++n}`;
        const imported = await importUser(appId, {
          externalUserId: id,
          loginMethods: [{ recipeId: 'passwordless', phoneNumber: stored }],
        });
        expect(imported.status, imported.text).toBe(200);
        expect(imported.json.user.phoneNumbers).toEqual([number]);

        const same = [stored, stored.trim(), number, ...others.filter((s) => normalisePhoneNumber(s) === number)];
        for (const spelling of same) {
          expect(await byPhone(appId, spelling), JSON.stringify(spelling)).toEqual([[id, [number]]]);
        }
        const lookup = same[same.length - 1] as string;
        const dryRun = await call('POST', `/appid-${appId}/bulk-import/users?dryRun=true`, {
          body: { users: [{ loginMethods: [{ recipeId: 'passwordless', phoneNumber: lookup }] }] },
        });
        expect(dryRun.status, dryRun.text).toBe(200);
        expect(dryRun.json.conflicts, JSON.stringify(lookup)).toEqual([
          {
            index: 0,
            errors: [`E007: A user with phoneNumber ${number} already exists in passwordless loginMethod.`],
          },
        ]);
        expect(await signInByCode(appId, lookup)).toEqual({ id, createdNewUser: false });
      }),
      { numRuns: 25 },
    );
  });

  it('the case seen: imported as `+1 (555) 0100`, found as written and as `+15550100`', async () => {
    const appId = await createApp({}, [], 'phones');
    const imported = await importUser(appId, {
      externalUserId: 'seen',
      loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+1 (555) 0100' }],
    });
    expect(imported.status, imported.text).toBe(200);
    expect(imported.json.user.phoneNumbers).toEqual(['+15550100']);
    for (const spelling of ['+1 (555) 0100', '+15550100', ' +1 555-0100 ']) {
      expect(await byPhone(appId, spelling), spelling).toEqual([['seen', ['+15550100']]]);
    }
    expect(await signInByCode(appId, '+1 555 0100')).toEqual({ id: 'seen', createdNewUser: false });
  });
});
