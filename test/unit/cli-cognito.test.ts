/**
 * The `cognito` source: `aws cognito-idp list-users` JSON (as a document, a JSON array, NDJSON) and the
 * user pool's CSV, read by streaming; password users pending the hook with --password-hook and
 * reported without it; federated users as third-party logins; hostile input → a report line, never a
 * crash.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { WireImportUser } from '../../bin/auth-core/src/contract.js';
import { cognitoCsvRowToUser, cognitoTimeMs, convertCognito } from '../../bin/auth-core/src/sources/cognito.js';
import type { Conversion } from '../../bin/auth-core/src/sources/conversion.js';
import { setupSource } from '../../bin/auth-core/src/sources/index.js';

const base = { tenantId: 'public', providerMap: new Map<string, string>() };
const hook = { ...base, passwordHook: true };
const SUB = '7c1b2a3e-0f1e-4d5c-9b8a-112233445566';
const HOOK_HINT =
  'give --password-hook to import it pending the password-migration hook (the old system then checks its password at first sign-in)';

/** A user as `aws cognito-idp list-users` (CLI v2) prints it. */
function listUser(extra: Record<string, unknown> = {}, attributes: Array<[string, string]> = []) {
  return {
    Username: 'ada',
    Attributes: [
      { Name: 'sub', Value: SUB },
      { Name: 'email', Value: 'Ada@Example.com' },
      { Name: 'email_verified', Value: 'true' },
      { Name: 'given_name', Value: 'Ada' },
      { Name: 'custom:plan', Value: 'gold' },
      ...attributes.map(([Name, Value]) => ({ Name, Value })),
    ],
    UserCreateDate: '2023-04-05T06:07:08.123000+00:00',
    UserLastModifiedDate: '2023-05-01T00:00:00+00:00',
    Enabled: true,
    UserStatus: 'CONFIRMED',
    ...extra,
  };
}

const userOf = (result: Conversion): WireImportUser => {
  if (!result.ok) throw new Error(`refused: ${result.reasons.join('; ')}`);
  return result.user;
};

describe('cognito: list-users users', () => {
  it('a confirmed password user goes in pending the hook with --password-hook, keyed by sub', () => {
    const result = convertCognito(listUser(), hook);
    expect(result).toEqual({
      ok: true,
      sourceId: SUB,
      factorsLeftBehind: [],
      user: {
        externalUserId: SUB,
        userMetadata: { username: 'ada', attributes: { given_name: 'Ada', 'custom:plan': 'gold' } },
        loginMethods: [
          {
            recipeId: 'emailpassword',
            isVerified: true,
            timeJoinedInMSSinceEpoch: Date.parse('2023-04-05T06:07:08.123Z'),
            email: 'ada@example.com',
            passwordMigration: 'hook',
          },
        ],
      },
    });
  });

  it('without --password-hook a password user is reported, naming the flag', () => {
    expect(convertCognito(listUser(), base)).toEqual({
      ok: false,
      sourceId: SUB,
      reasons: [`Cognito exports no password hash: ${HOOK_HINT}`],
    });
  });

  it('a federated user becomes a third-party login with or without the flag (Google → google, OIDC name kept)', () => {
    const identities = JSON.stringify([
      { userId: '1098', providerName: 'Google', providerType: 'Google', issuer: null, primary: true },
      { userId: 'oidc-7', providerName: 'AcmeSSO', providerType: 'OIDC', issuer: null, primary: false },
    ]);
    for (const options of [base, hook]) {
      const user = userOf(
        convertCognito(
          listUser({ Username: 'Google_1098', UserStatus: 'EXTERNAL_PROVIDER' }, [['identities', identities]]),
          options,
        ),
      );
      expect(user.loginMethods.map((m) => [m.recipeId, m.thirdPartyId, m.thirdPartyUserId, m.isPrimary])).toEqual([
        ['thirdparty', 'google', '1098', true],
        ['thirdparty', 'AcmeSSO', 'oidc-7', undefined],
      ]);
      expect(user.loginMethods.some((m) => m.passwordMigration !== undefined)).toBe(false);
    }
    const mapped = userOf(
      convertCognito(listUser({ UserStatus: 'EXTERNAL_PROVIDER' }, [['identities', identities]]), {
        ...base,
        providerMap: new Map([['AcmeSSO', 'acme']]),
      }),
    );
    expect(mapped.loginMethods[1]?.thirdPartyId).toBe('acme');
  });

  it('a verified phone number is a passwordless login; an unverified one stays in metadata', () => {
    const verified = userOf(
      convertCognito(
        listUser({}, [
          ['phone_number', '+14155550123'],
          ['phone_number_verified', 'true'],
        ]),
        hook,
      ),
    );
    expect(verified.loginMethods.map((m) => [m.recipeId, m.phoneNumber, m.isPrimary])).toEqual([
      ['emailpassword', undefined, true],
      ['passwordless', '+14155550123', undefined],
    ]);
    const unverified = userOf(convertCognito(listUser({}, [['phone_number', '+14155550123']]), hook));
    expect(unverified.loginMethods.map((m) => m.recipeId)).toEqual(['emailpassword']);
    expect(unverified.userMetadata?.attributes).toMatchObject({ phone_number: '+14155550123' });
    // A phone-only user without an email signs in by SMS code, with or without the flag.
    const phoneOnly = convertCognito(
      {
        Username: 'p1',
        Attributes: [
          { Name: 'phone_number', Value: '+14155550199' },
          { Name: 'phone_number_verified', Value: 'true' },
        ],
        UserStatus: 'CONFIRMED',
      },
      base,
    );
    expect(userOf(phoneOnly).loginMethods).toEqual([{ recipeId: 'passwordless', phoneNumber: '+14155550199' }]);
  });

  it('keeps Enabled false, a status other than CONFIRMED and reports SMS MFA', () => {
    const result = convertCognito(
      listUser({
        Enabled: false,
        UserStatus: 'FORCE_CHANGE_PASSWORD',
        MFAOptions: [{ DeliveryMedium: 'SMS', AttributeName: 'phone_number' }],
      }),
      hook,
    );
    const user = userOf(result);
    expect(user.userMetadata).toMatchObject({ disabled: true, userStatus: 'FORCE_CHANGE_PASSWORD' });
    expect(result.ok && result.factorsLeftBehind).toEqual([
      "Cognito's SMS second factor cannot be carried (the core has no SMS second factor, and Cognito exports no TOTP secret); the user enrols a second factor again",
    ]);
  });

  it('reads the CLI v1 / API dates (Unix seconds with a fraction) and ISO text', () => {
    expect(cognitoTimeMs(1680674828.123)).toBe(1680674828123);
    expect(cognitoTimeMs('2023-04-05T06:07:08.123000+00:00')).toBe(Date.parse('2023-04-05T06:07:08.123Z'));
    expect(cognitoTimeMs(1680674828123)).toBe(1680674828123);
    expect(cognitoTimeMs('never')).toBeUndefined();
  });

  it('hand-picked bad users: each a clear reason', () => {
    const cases: Array<[unknown, string]> = [
      [[], 'the user is not a JSON object'],
      [{ Attributes: [] }, 'Username is missing'],
      [{ Username: 'u', Attributes: 'email=x' }, 'Attributes is not an array'],
      [{ Username: 'u', Attributes: [{ Value: 'x' }] }, 'Attributes[0] has no Name'],
      [
        { Username: 'u', Attributes: [{ Name: 'email', Value: 7 }] },
        'Attributes[0] (email) has a Value that is not text',
      ],
      [
        { Username: 'u', Attributes: [{ Name: 'identities', Value: '{not json' }], UserStatus: 'EXTERNAL_PROVIDER' },
        'the identities attribute is not JSON',
      ],
      [
        { Username: 'u', Attributes: [{ Name: 'identities', Value: '[{"userId":"1"}]' }] },
        'identities[0] has no providerName or userId',
      ],
      [
        { Username: 'u', Attributes: [{ Name: 'phone_number', Value: '555-0123' }] },
        'phone_number ***-**23 is not a valid international number',
      ],
      [
        { Username: 'u', Attributes: [{ Name: 'email', Value: 'u@x.io' }], UserStatus: 'EXTERNAL_PROVIDER' },
        'the federated user has no identities attribute (its identity provider and id are not in the export)',
      ],
      [
        { Username: 'u', Attributes: [], UserStatus: 'CONFIRMED' },
        'the user signs in with a password but has no email address (the core signs password users in by email)',
      ],
    ];
    for (const [record, reason] of cases) {
      const result = convertCognito(record, hook);
      expect(result.ok ? [] : result.reasons, JSON.stringify(record)).toEqual([reason]);
    }
  });

  it('hostile users never throw: a user (with its id) or reasons, never a value of another type', () => {
    const attribute = fc.record(
      {
        Name: fc.oneof(
          fc.constantFrom('sub', 'email', 'email_verified', 'phone_number', 'phone_number_verified', 'identities'),
          fc.string(),
          fc.anything(),
        ),
        Value: fc.oneof(fc.string(), fc.json(), fc.anything()),
      },
      { requiredKeys: [] },
    );
    const user = fc.oneof(
      fc.anything(),
      fc.record(
        {
          Username: fc.oneof(fc.string(), fc.integer(), fc.anything()),
          Attributes: fc.oneof(fc.array(attribute, { maxLength: 8 }), fc.anything()),
          UserCreateDate: fc.oneof(fc.double(), fc.string(), fc.anything()),
          Enabled: fc.anything(),
          UserStatus: fc.oneof(fc.constantFrom('CONFIRMED', 'EXTERNAL_PROVIDER', 'UNCONFIRMED'), fc.anything()),
          MFAOptions: fc.anything(),
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(user, fc.boolean(), (record, passwordHook) => {
        const result = convertCognito(record, { ...base, passwordHook });
        if (result.ok) {
          expect(typeof result.user.externalUserId).toBe('string');
          expect(result.user.loginMethods.length).toBeGreaterThan(0);
          for (const m of result.user.loginMethods) {
            if (m.passwordMigration === 'hook') expect(passwordHook).toBe(true);
            expect(m.passwordHash).toBeUndefined();
          }
        } else {
          expect(result.reasons.length).toBeGreaterThan(0);
          for (const reason of result.reasons) expect(typeof reason).toBe('string');
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('cognito: the user pool CSV', () => {
  it('maps a row of the get-csv-header columns to the list-users shape', () => {
    const row = {
      name: 'Ada L',
      given_name: 'Ada',
      family_name: '',
      email: 'ada@example.com',
      email_verified: 'TRUE',
      phone_number: '',
      phone_number_verified: 'false',
      'custom:joinedOn': '2020',
      'cognito:mfa_enabled': 'false',
      'cognito:username': 'ada',
    };
    expect(cognitoCsvRowToUser(row)).toEqual({
      Username: 'ada',
      Attributes: [
        { Name: 'name', Value: 'Ada L' },
        { Name: 'given_name', Value: 'Ada' },
        { Name: 'email', Value: 'ada@example.com' },
        { Name: 'email_verified', Value: 'TRUE' },
        { Name: 'phone_number_verified', Value: 'false' },
        { Name: 'custom:joinedOn', Value: '2020' },
      ],
    });
    const user = userOf(convertCognito(cognitoCsvRowToUser(row), hook));
    expect(user.externalUserId).toBe('ada');
    expect(user.loginMethods).toEqual([
      { recipeId: 'emailpassword', isVerified: true, email: 'ada@example.com', passwordMigration: 'hook' },
    ]);
    const mfa = convertCognito(cognitoCsvRowToUser({ ...row, 'cognito:mfa_enabled': 'true' }), hook);
    expect(mfa.ok && mfa.factorsLeftBehind.length).toBe(1);
  });

  it('hostile rows never throw', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.anything())),
        fc.boolean(),
        (row, passwordHook) => {
          const result = convertCognito(cognitoCsvRowToUser(row), { ...base, passwordHook });
          expect(result.ok || result.reasons.length > 0).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('cognito: reading the files as streams', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cli-cognito-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function read(file: string, passwordHook = true) {
    const source = await setupSource('cognito', file, { ...base, passwordHook });
    const out: Array<{ position: number; ok: boolean; id: string | undefined; reason?: string }> = [];
    try {
      let first = true;
      for await (const record of source.records()) {
        if ('error' in record) {
          out.push({ position: record.position, ok: false, id: undefined, reason: record.error });
          continue;
        }
        if (first) {
          const problem = source.checkFirst(record.value);
          if (problem) return { problem, out };
          first = false;
        }
        const c = source.convert(record.value);
        out.push({ position: record.position, ok: c.ok, id: c.sourceId, ...(c.ok ? {} : { reason: c.reasons[0] }) });
      }
    } finally {
      source.close();
    }
    return { problem: undefined, out, notes: source.notes, digests: source.inputDigests };
  }

  it('the list-users document (pretty-printed, with a pagination token), a JSON array and NDJSON', async () => {
    const users = [listUser(), listUser({ Username: 'bob' }, [['sub', 'other']])];
    users[1]!.Attributes = users[1]!.Attributes.filter((a) => a.Name !== 'sub');
    const doc = join(dir, 'users.json');
    writeFileSync(doc, JSON.stringify({ Users: users, PaginationToken: 'x' }, null, 4));
    const array = join(dir, 'users-array.json');
    writeFileSync(array, JSON.stringify(users));
    const lines = join(dir, 'users.ndjson');
    writeFileSync(lines, `${users.map((u) => JSON.stringify(u)).join('\n')}\n`);
    for (const file of [doc, array, lines]) {
      const { problem, out, digests } = await read(file);
      expect(problem, file).toBeUndefined();
      expect(out.map((r) => [r.position, r.ok, r.id])).toEqual([
        [1, true, SUB],
        [2, true, 'bob'],
      ]);
      expect(digests).toEqual(['password-hook']);
    }
    const without = await read(doc, false);
    expect(without.out.map((r) => r.reason)).toEqual([
      `Cognito exports no password hash: ${HOOK_HINT}`,
      `Cognito exports no password hash: ${HOOK_HINT}`,
    ]);
    expect(without.notes?.[0]).toMatch(/cannot be imported without --password-hook/);
  });

  it('the CSV with its header; another file is named as not Cognito', async () => {
    const csv = join(dir, 'users.csv');
    writeFileSync(
      csv,
      'name,given_name,email,email_verified,phone_number,phone_number_verified,cognito:mfa_enabled,cognito:username\n' +
        'Ada,Ada,ada@example.com,true,,false,false,ada\n' +
        '"Bob, Jr",Bob,bob@example.com,false,+14155550123,true,false,bob\n',
    );
    const { problem, out } = await read(csv);
    expect(problem).toBeUndefined();
    expect(out.map((r) => [r.ok, r.id])).toEqual([
      [true, 'ada'],
      [true, 'bob'],
    ]);
    const other = join(dir, 'other.csv');
    writeFileSync(other, 'id,email\n1,a@x.io\n');
    expect((await read(other)).problem).toBe('no "cognito:username" column: not a Cognito user CSV');
    const auth0 = join(dir, 'auth0.ndjson');
    writeFileSync(auth0, '{"user_id":"auth0|1"}\n');
    expect((await read(auth0)).problem).toBe('no "Username": not a user of aws cognito-idp list-users');
  });

  it('--password-hook with a source whose users always carry their hash is a usage error', async () => {
    const file = join(dir, 'wp.csv');
    writeFileSync(file, 'ID,user_email,user_pass\n1,a@x.io,$P$abc\n');
    await expect(setupSource('wordpress', file, { ...base, passwordHook: true })).rejects.toThrow(
      '--password-hook applies to auth0, firebase, keycloak, cognito: every user of a wordpress export that signs in with a password carries its hash',
    );
  });
});
