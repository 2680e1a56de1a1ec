/**
 * Passwordless through the unmodified supertokens-node (`Passwordless` + `Session`) against
 * `npm start` over HTTP: users migrated from an Auth0 export's email and SMS connections with
 * `npx auth-core migrate` sign in as themselves (no duplicate), a new email signs up, a wrong code
 * is counted, and the listing, resend and revocation calls the SDK makes answer what it reads.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import supertokens from 'supertokens-node';
import Passwordless from 'supertokens-node/recipe/passwordless';
import Session from 'supertokens-node/recipe/session';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalProcess } from '../helpers/local-process.js';
import { coreCaller, createApp, runCommand, startRuntime, stopRuntime } from './migrate-helpers.js';

const API_KEY = `pwless-e2e-${randomBytes(12).toString('hex')}`;
const APP_ID = `pwless-${randomBytes(4).toString('hex')}`;
const EMAIL_USER = { id: 'email|6500c0ffee00000000000001', email: 'pat.pwless@example.com' };
const SMS_USER = { id: 'sms|6500c0ffee00000000000002', phoneNumber: '+14155550142' };

let runtime: LocalProcess | undefined;
let dir: string | undefined;
const core = coreCaller(() => runtime!, API_KEY);

const userCount = async () =>
  (await core('GET', `/appid-${APP_ID}/users/count?includeAllTenants=true`)).json.count as number;

beforeAll(async () => {
  ({ runtime, dir } = await startRuntime({ API_KEYS: API_KEY }, 'pwless-e2e-'));
  await createApp(core, APP_ID);

  // An Auth0 bulk export (NDJSON) with one user of the email connection and one of the sms
  // connection, migrated with the command (staged, then imported by the worker).
  const exportFile = join(dir, 'auth0-users.ndjson');
  const users = [
    {
      user_id: EMAIL_USER.id,
      email: 'Pat.Pwless@Example.com',
      email_verified: false,
      created_at: '2023-06-06T06:06:06.000Z',
      identities: [{ connection: 'email', provider: 'email', user_id: '6500c0ffee00000000000001', isSocial: false }],
    },
    {
      user_id: SMS_USER.id,
      phone_number: SMS_USER.phoneNumber,
      created_at: '2023-07-07T07:07:07.000Z',
      identities: [{ connection: 'sms', provider: 'sms', user_id: '6500c0ffee00000000000002', isSocial: false }],
    },
  ];
  writeFileSync(exportFile, `${users.map((u) => JSON.stringify(u)).join('\n')}\n`);
  const migrated = await runCommand(
    ['migrate', exportFile, '--from', 'auth0', '--app', APP_ID, '--report', join(dir, 'report.ndjson')],
    { AUTH_CORE_URL: runtime.url, AUTH_CORE_API_KEY: API_KEY },
  );
  expect(migrated.code, migrated.stderr).toBe(0);
  expect(await userCount()).toBe(2);

  supertokens.init({
    appInfo: { appName: 'pwless-e2e', apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
    supertokens: { connectionURI: `${runtime.url}/appid-${APP_ID}`, apiKey: API_KEY },
    telemetry: false,
    recipeList: [
      Passwordless.init({ contactMethod: 'EMAIL_OR_PHONE', flowType: 'USER_INPUT_CODE_AND_MAGIC_LINK' }),
      Session.init(),
    ],
  });
});

afterAll(() => stopRuntime(runtime, dir));

type CreatedCode = Awaited<ReturnType<typeof Passwordless.createCode>>;
/** The code of `created` as the user types it (or `userInputCode` instead), for consumeCode and checkCode. */
const typed = (created: CreatedCode, userInputCode = created.userInputCode) => ({
  tenantId: 'public',
  preAuthSessionId: created.preAuthSessionId,
  deviceId: created.deviceId,
  userInputCode,
});

describe('passwordless through supertokens-node', () => {
  it('signs in the user migrated from the email connection with a user input code', async () => {
    const created = await Passwordless.createCode({ tenantId: 'public', email: ' PAT.pwless@example.com' });
    expect(created.status).toBe('OK');
    expect(created.codeLifetime).toBe(900_000);
    const consumed = await Passwordless.consumeCode(typed(created));
    expect(consumed.status).toBe('OK');
    if (consumed.status !== 'OK') return;
    expect(consumed.createdNewRecipeUser).toBe(false);
    expect(consumed.user.id).toBe(EMAIL_USER.id);
    expect(consumed.recipeUserId.getAsString()).toBe(EMAIL_USER.id);
    expect(consumed.user.emails).toEqual([EMAIL_USER.email]);
    expect(consumed.user.timeJoined).toBe(Date.parse('2023-06-06T06:06:06.000Z'));
    // The code reached the imported email: it is verified now.
    expect(consumed.user.loginMethods[0]?.verified).toBe(true);
    expect(consumed.consumedDevice).toEqual({
      preAuthSessionId: created.preAuthSessionId,
      failedCodeInputAttemptCount: 0,
      email: EMAIL_USER.email,
    });
    expect((await supertokens.getUser(EMAIL_USER.id))?.loginMethods[0]?.verified).toBe(true);
  });

  it('signs in the user migrated from the sms connection with a magic link, however the number is written', async () => {
    for (const written of [SMS_USER.phoneNumber, '+1 (415) 555-0142']) {
      const created = await Passwordless.createCode({ tenantId: 'public', phoneNumber: written });
      const consumed = await Passwordless.consumeCode({
        tenantId: 'public',
        preAuthSessionId: created.preAuthSessionId,
        linkCode: created.linkCode,
      });
      expect(consumed.status, written).toBe('OK');
      if (consumed.status !== 'OK') continue;
      expect(consumed.createdNewRecipeUser).toBe(false);
      expect(consumed.user.id).toBe(SMS_USER.id);
      expect(consumed.recipeUserId.getAsString()).toBe(SMS_USER.id);
      expect(consumed.user.phoneNumbers).toEqual([SMS_USER.phoneNumber]);
    }
    expect(await userCount()).toBe(2);
  });

  it('signs up a new user, then signs the same user in (signInUp)', async () => {
    const created = await Passwordless.createCode({ tenantId: 'public', email: 'newcomer@example.com' });
    const consumed = await Passwordless.consumeCode(typed(created));
    expect(consumed.status).toBe('OK');
    if (consumed.status !== 'OK') return;
    expect(consumed.createdNewRecipeUser).toBe(true);
    expect(consumed.user.loginMethods.map((lm) => [lm.recipeId, lm.email, lm.verified])).toEqual([
      ['passwordless', 'newcomer@example.com', true],
    ]);
    const again = await Passwordless.signInUp({ tenantId: 'public', email: 'newcomer@example.com' });
    expect(again.status).toBe('OK');
    expect(again.createdNewRecipeUser).toBe(false);
    expect(again.user.id).toBe(consumed.user.id);
    expect(await userCount()).toBe(3);
  });

  it('counts a wrong code, resends, lists and revokes as the SDK expects', async () => {
    const created = await Passwordless.createCode({ tenantId: 'public', email: EMAIL_USER.email });
    const wrong = await Passwordless.consumeCode(
      typed(created, created.userInputCode === '000000' ? '111111' : '000000'),
    );
    expect(wrong).toEqual({
      status: 'INCORRECT_USER_INPUT_CODE_ERROR',
      failedCodeInputAttemptCount: 1,
      maximumCodeInputAttempts: 5,
    });
    const checked = await Passwordless.checkCode(typed(created));
    expect(checked.status).toBe('OK');

    const resent = await Passwordless.createNewCodeForDevice({ tenantId: 'public', deviceId: created.deviceId });
    expect(resent.status).toBe('OK');
    const byDevice = await Passwordless.listCodesByDeviceId({ tenantId: 'public', deviceId: created.deviceId });
    expect(byDevice).toMatchObject({
      preAuthSessionId: created.preAuthSessionId,
      failedCodeInputAttemptCount: 1,
      email: EMAIL_USER.email,
    });
    expect(byDevice?.codes).toHaveLength(2);
    const bySession = await Passwordless.listCodesByPreAuthSessionId({
      tenantId: 'public',
      preAuthSessionId: created.preAuthSessionId,
    });
    expect(bySession?.codes.map((c) => c.codeId).sort()).toEqual(byDevice?.codes.map((c) => c.codeId).sort());
    expect(await Passwordless.listCodesByEmail({ tenantId: 'public', email: EMAIL_USER.email })).toHaveLength(1);

    expect(await Passwordless.revokeCode({ tenantId: 'public', codeId: created.codeId })).toEqual({ status: 'OK' });
    expect(
      (await Passwordless.listCodesByDeviceId({ tenantId: 'public', deviceId: created.deviceId }))?.codes,
    ).toHaveLength(1);
    expect(await Passwordless.revokeAllCodes({ tenantId: 'public', email: EMAIL_USER.email })).toEqual({
      status: 'OK',
    });
    expect(await Passwordless.listCodesByEmail({ tenantId: 'public', email: EMAIL_USER.email })).toEqual([]);
    const afterRevoke = await Passwordless.consumeCode({
      tenantId: 'public',
      preAuthSessionId: created.preAuthSessionId,
      linkCode: resent.status === 'OK' ? resent.linkCode : '',
    });
    expect(afterRevoke).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect(await Passwordless.createNewCodeForDevice({ tenantId: 'public', deviceId: created.deviceId })).toEqual({
      status: 'RESTART_FLOW_ERROR',
    });
  });
});
