/**
 * The command's side of the password-migration hook: `--password-hook` turns the users of Auth0,
 * Firebase and Keycloak exports that carry no hash into login methods pending the hook (refused, with
 * the flag named, without it); the summary counts users by how they will sign in; the `--verify` file
 * reader (hand-picked and hostile files: a usage error naming the line, never a password) and the
 * causes it names.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { WireImportUser } from '../../bin/auth-core/src/contract.js';
import { CliError } from '../../bin/auth-core/src/errors.js';
import { countSignIn, type SignInCounts } from '../../bin/auth-core/src/migrate/read.js';
import { type MigrateSummary, summaryLines } from '../../bin/auth-core/src/migrate/summary.js';
import { likelyCause, parseVerifyFile, VerifyTargets } from '../../bin/auth-core/src/migrate/verify.js';
import { convertAuth0 } from '../../bin/auth-core/src/sources/auth0.js';
import type { Conversion } from '../../bin/auth-core/src/sources/conversion.js';
import { convertFirebase } from '../../bin/auth-core/src/sources/firebase.js';
import { convertKeycloak } from '../../bin/auth-core/src/sources/keycloak.js';

const base = { tenantId: 'public', providerMap: new Map<string, string>() };
const HINT =
  'give --password-hook to import it pending the password-migration hook (the old system then checks its password at first sign-in)';
const PENDING = { recipeId: 'emailpassword', passwordMigration: 'hook' } as const;

const methods = (result: Conversion) => {
  if (!result.ok) throw new Error(`refused: ${result.reasons.join('; ')}`);
  return result.user.loginMethods;
};

describe('--password-hook: users whose export carries no hash', () => {
  const auth0User = {
    user_id: 'auth0|abc',
    email: 'Ann@Example.com',
    email_verified: true,
    created_at: '2020-01-01T00:00:00.000Z',
    identities: [{ provider: 'auth0', user_id: 'abc', isSocial: false }],
  };
  const noHashes = { ...base, hashFor: () => undefined, hashesGiven: false };

  it('auth0 without --hashes: pending with the flag, refused naming the flag without it', () => {
    expect(methods(convertAuth0(auth0User, { ...noHashes, passwordHook: true }))).toEqual([
      {
        ...PENDING,
        isVerified: true,
        timeJoinedInMSSinceEpoch: Date.parse('2020-01-01T00:00:00.000Z'),
        email: 'ann@example.com',
      },
    ]);
    expect(convertAuth0(auth0User, noHashes)).toEqual({
      ok: false,
      sourceId: 'auth0|abc',
      reasons: [
        `database user auth0|abc has no password hash: give the password-hash export with --hashes, or ${HINT}`,
      ],
    });
    // A user with a social identity too: linked, the database identity pending.
    const linked = convertAuth0(
      {
        ...auth0User,
        identities: [...auth0User.identities, { provider: 'google-oauth2', user_id: 'g1', isSocial: true }],
      },
      { ...noHashes, passwordHook: true },
    );
    expect(methods(linked).map((m) => [m.recipeId, m.passwordMigration, m.isPrimary])).toEqual([
      ['emailpassword', 'hook', true],
      ['thirdparty', undefined, undefined],
    ]);
  });

  it('firebase: a password user without a hash (JSON, and a CSV row with an email only)', () => {
    const options = { ...base, hashConfig: { signerKey: 'c2lnbmVy', saltSeparator: 'Bw==', rounds: 8, memCost: 14 } };
    const record = {
      localId: 'fb1',
      email: 'fay@example.com',
      emailVerified: true,
      createdAt: '1600000000000',
      providerUserInfo: [{ providerId: 'password', rawId: 'fay@example.com' }],
    };
    expect(methods(convertFirebase(record, { ...options, passwordHook: true }))).toEqual([
      { ...PENDING, isVerified: true, timeJoinedInMSSinceEpoch: 1600000000000, email: 'fay@example.com' },
    ]);
    expect(convertFirebase(record, options)).toEqual({
      ok: false,
      sourceId: 'fb1',
      reasons: [
        `the export carries no password hash for the user (export with an account allowed to read hashes), or ${HINT}`,
      ],
    });
    // A Google-only user is not given a password it never had.
    const google = {
      localId: 'fb2',
      email: 'gil@example.com',
      providerUserInfo: [{ providerId: 'google.com', rawId: 'g2', email: 'gil@example.com' }],
    };
    expect(methods(convertFirebase(google, { ...options, passwordHook: true })).map((m) => m.recipeId)).toEqual([
      'thirdparty',
    ]);
    // An anonymous user stays refused.
    expect(convertFirebase({ localId: 'fb3' }, { ...options, passwordHook: true }).ok).toBe(false);
  });

  it('keycloak: no password credential (a user federation link, or nothing) → pending; an IdP-only user unchanged', () => {
    const options = { ...base, withRoles: false };
    const user = { id: 'kc1', username: 'kim', email: 'kim@example.com', emailVerified: false, credentials: [] };
    expect(methods(convertKeycloak({ ...user, federationLink: 'ldap' }, { ...options, passwordHook: true }))).toEqual([
      { ...PENDING, isVerified: false, email: 'kim@example.com' },
    ]);
    expect(methods(convertKeycloak(user, { ...options, passwordHook: true }))).toEqual([
      { ...PENDING, isVerified: false, email: 'kim@example.com' },
    ]);
    const idp = { ...user, federatedIdentities: [{ identityProvider: 'google', userId: 'g9' }] };
    expect(methods(convertKeycloak(idp, { ...options, passwordHook: true })).map((m) => m.recipeId)).toEqual([
      'thirdparty',
    ]);
    expect(convertKeycloak(user, options)).toEqual({
      ok: false,
      sourceId: 'kc1',
      reasons: [`the user has no password and no identity provider link; ${HINT}`],
    });
  });
});

describe('the summary counts users by how they will sign in', () => {
  const user = (...loginMethods: WireImportUser['loginMethods']): WireImportUser => ({ loginMethods });
  it('by hash family, pending the hook, without a password', () => {
    const counts: SignInCounts = { byHashFamily: {}, pendingHook: 0, withoutPassword: 0 };
    for (const u of [
      user({ recipeId: 'emailpassword', email: 'a@x.io', passwordHash: 'h', hashingAlgorithm: 'BCRYPT' }),
      user(
        { recipeId: 'thirdparty', email: 'b@x.io', thirdPartyId: 'google', thirdPartyUserId: '1' },
        { recipeId: 'emailpassword', email: 'b@x.io', passwordHash: 'h', hashingAlgorithm: 'FIREBASE_SCRYPT' },
      ),
      user({ recipeId: 'emailpassword', email: 'c@x.io', passwordMigration: 'hook' }),
      user({ recipeId: 'emailpassword', email: 'd@x.io', passwordMigration: 'hook' }),
      user({ recipeId: 'passwordless', phoneNumber: '+14155550123' }),
      user({ recipeId: 'emailpassword', email: 'e@x.io', passwordHash: 'h', hashingAlgorithm: 'BCRYPT' }),
    ])
      countSignIn(counts, u);
    expect(counts).toEqual({ byHashFamily: { BCRYPT: 2, FIREBASE_SCRYPT: 1 }, pendingHook: 2, withoutPassword: 1 });
    const summary = {
      source: 'auth0',
      appId: 'shop',
      tenantId: 'public',
      dryRun: false,
      records: 6,
      converted: 6,
      refused: { convert: 0, check: 0, import: 0 },
      staged: 6,
      resumedChunks: 0,
      imported: 6,
      failed: 0,
      wouldImport: null,
      coreChecked: null,
      missingRoles: [],
      secondFactors: { carriedAsTotp: 0, notCarried: 0 },
      metadataKeysDropped: { keys: 0, users: 0 },
      signIn: counts,
      verify: {
        file: 'canaries.csv',
        checked: 3,
        signedIn: 1,
        failures: [
          {
            email: 'b@x.io',
            hashFamily: 'FIREBASE_SCRYPT',
            answer: 'WRONG_CREDENTIALS_ERROR',
            likelyCause: 'a wrong key',
          },
          { email: 'c@x.io', hashFamily: 'pending', answer: '503', likelyCause: 'the hook is unavailable' },
        ],
      },
      warnings: [],
      report: 'r.ndjson',
      reportLines: 0,
      leftBehindLines: 0,
      state: 's.ndjson',
      elapsedSeconds: 1,
      exitCode: 1,
    } satisfies MigrateSummary;
    const lines = summaryLines(summary);
    expect(lines).toContain(
      'How the converted users will sign in: 3 with their password hash (BCRYPT 2, FIREBASE_SCRYPT 1), 2 pending the password-migration hook, 1 without a password (social or passwordless).',
    );
    expect(lines).toContain('Sign-in check (canaries.csv): 1 of 3 sign in.');
    expect(lines).toContain('  b@x.io (FIREBASE_SCRYPT): WRONG_CREDENTIALS_ERROR; likely cause: a wrong key');
    expect(lines).toContain('  c@x.io (pending the hook): 503; likely cause: the hook is unavailable');
  });
});

describe('--verify: the file of accounts', () => {
  const usage = (content: string) => {
    try {
      parseVerifyFile(content, 'v.txt');
    } catch (error) {
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).exitCode).toBe(2);
      return (error as Error).message;
    }
    throw new Error('accepted');
  };

  it('reads a CSV with a header (any column order, extra columns, quoted commas) and NDJSON', () => {
    expect(
      parseVerifyFile('\uFEFFpassword,note,Email\r\n"pa,ss ",x, Ann@Example.com\r\nsecret2,,bo@x.io\n', 'v.csv'),
    ).toEqual([
      { email: 'ann@example.com', password: 'pa,ss ' },
      { email: 'bo@x.io', password: 'secret2' },
    ]);
    expect(
      parseVerifyFile('{"email":"a@x.io","password":"p1"}\n\n{"password":"p 2","email":"B@x.io"}\n', 'v.ndjson'),
    ).toEqual([
      { email: 'a@x.io', password: 'p1' },
      { email: 'b@x.io', password: 'p 2' },
    ]);
  });

  it('hand-picked bad files: a usage error naming the line, never the password', () => {
    expect(usage('')).toBe(
      '--verify v.txt needs a header naming the columns email and password (a CSV), or one {"email","password"} object per line (NDJSON)',
    );
    expect(usage('email,password\n')).toBe('--verify v.txt holds no accounts');
    expect(usage('email,pass\na@x.io,hunter22\n')).toMatch(/needs a header naming the columns email and password/);
    expect(usage('email,password\na@x.io,\n')).toBe('--verify v.txt: row 2 has no password');
    expect(usage('email,password\n,hunter22\n')).toBe('--verify v.txt: row 2 has no email');
    expect(usage('{"email":"a@x.io","password":"hunter22"}\n{"email":"a@x.io","password":"hunter23"}\n')).toBe(
      '--verify v.txt: account 2 repeats an email given before',
    );
    expect(usage('{"email":"a@x.io","password":"hunter22"}\n{"email":"b@x.io","password":hunter23}\n')).toBe(
      '--verify v.txt: line 2 is not valid JSON',
    );
    expect(usage('{"email":"a@x.io","password":"hunter22"}\n[1]\n')).toBe(
      '--verify v.txt: line 2 is not a JSON object',
    );
    expect(usage('{"email":"a@x.io","password":12345678}\n')).toBe('--verify v.txt: line 1 has no password');
    expect(usage(`email,password\n${Array.from({ length: 1001 }, (_, i) => `u${i}@x.io,pw${i}`).join('\n')}\n`)).toBe(
      '--verify v.txt holds 1001 accounts: at most 1000 are checked',
    );
  });

  it('hostile files: accounts or a usage error, and no message ever holds a password of the file', () => {
    const password = fc.string({ minLength: 6, maxLength: 20 }).map((p) => `pw-${p}-SECRET`);
    const line = fc.oneof(
      fc.record({ email: fc.oneof(fc.emailAddress(), fc.string()), password }).map((r) => JSON.stringify(r)),
      fc.record({ email: fc.anything(), password: fc.oneof(password, fc.anything()) }).map((r) => JSON.stringify(r)),
      password,
      fc.tuple(fc.emailAddress(), password).map(([e, p]) => `${e},${p}`),
      fc.string(),
    );
    const file = fc.tuple(
      fc.constantFrom('', 'email,password\n', 'password,email\n', '"email","password"\r\n'),
      fc.array(line, { maxLength: 6 }),
    );
    fc.assert(
      fc.property(file, ([header, lines]) => {
        const content = `${header}${lines.join('\n')}`;
        try {
          const accounts = parseVerifyFile(content, 'v.txt');
          for (const a of accounts) {
            expect(a.email).not.toBe('');
            expect(a.password).not.toBe('');
          }
        } catch (error) {
          expect(error).toBeInstanceOf(CliError);
          expect((error as Error).message).not.toMatch(/SECRET/);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('--verify: what a failure is put down to', () => {
  it('names the hash family and the likely cause', () => {
    expect(likelyCause('FIREBASE_SCRYPT', 'WRONG_CREDENTIALS_ERROR', true)).toMatch(/^a wrong Firebase signer key/);
    expect(likelyCause('SHA256', 'WRONG_CREDENTIALS_ERROR', true)).toMatch(/^the salt on the wrong side/);
    expect(likelyCause('MD5', 'WRONG_CREDENTIALS_ERROR', true)).toMatch(/^the salt on the wrong side/);
    expect(likelyCause('pending', 'WRONG_CREDENTIALS_ERROR', true)).toMatch(/^pending, the hook said no/);
    expect(likelyCause('pending', '503', true)).toMatch(/^pending, the hook is unavailable \(the core answered 503\)/);
    expect(likelyCause('BCRYPT', 'WRONG_CREDENTIALS_ERROR', true)).toMatch(/^the BCRYPT hash does not match/);
    expect(likelyCause('none', 'WRONG_CREDENTIALS_ERROR', true)).toMatch(/imported without a password/);
    expect(likelyCause(null, 'WRONG_CREDENTIALS_ERROR', false)).toMatch(/^no user of the export has this email/);
    expect(likelyCause('BCRYPT', 'WRONG_CREDENTIALS_ERROR', false)).toMatch(/it was not imported \(see the report\)/);
  });

  it('notes the family each verify email was converted with', () => {
    const targets = new VerifyTargets(new Set(['a@x.io', 'b@x.io', 'c@x.io']));
    targets.note({
      loginMethods: [
        { recipeId: 'thirdparty', email: 'a@x.io', thirdPartyId: 'google', thirdPartyUserId: '1' },
        { recipeId: 'emailpassword', email: 'a@x.io', passwordHash: 'h', hashingAlgorithm: 'SHA1' },
      ],
    });
    targets.note({ loginMethods: [{ recipeId: 'emailpassword', email: 'b@x.io', passwordMigration: 'hook' }] });
    targets.note({ loginMethods: [{ recipeId: 'passwordless', email: 'c@x.io' }] });
    targets.note({ loginMethods: [{ recipeId: 'emailpassword', email: 'z@x.io', passwordMigration: 'hook' }] });
    expect(['a@x.io', 'b@x.io', 'c@x.io', 'z@x.io'].map((e) => targets.familyOf(e))).toEqual([
      'SHA1',
      'pending',
      'none',
      undefined,
    ]);
  });
});
