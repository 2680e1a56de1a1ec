/**
 * Passkeys (the WebAuthn recipe) through the real handlers against DynamoDB Local, with real
 * attestations and assertions from the software authenticator (test/helpers/webauthn-authenticator.ts):
 * every route's answers and the reference's statuses; the edge answers of a ceremony (wrong
 * challenge, replayed challenge, expired options, wrong origin or relying party, unknown passkey,
 * a counter that went backwards, a passkey of another app); options made single-use from CDI 5.5
 * and under concurrency; what is stored; webauthn users in the user object, lookups, listing,
 * account linking, email changes, recovery, and user, tenant and app removal.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftwareAuthenticator } from '../helpers/webauthn-authenticator.js';
import {
  type Caller,
  passkeySignIn,
  passkeySignUp,
  RP,
  registerOptions,
  signInOptions,
  webauthnPath,
} from '../helpers/webauthn-flows.js';
import { appItems, call, captureLogs, createApp, expectNoSecrets, keysOf, readItem } from './users-support.js';

const logs = captureLogs();
/** Every recovery token a test saw: none may reach a log line. */
const secrets: string[] = [];
afterAll(() => {
  logs.restore();
  expectNoSecrets(logs.lines, secrets);
});

const caller: Caller = (method, path, body, headers) =>
  call(method, path, { ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) });

const SDK_CDI = { 'cdi-version': '5.4' };
const authenticator = new SoftwareAuthenticator();
let appId: string;
let seq = 0;
const email = (label: string) => `${label}-${++seq}@example.com`;
const path = (rest: string, tenantId = 'public', app = appId) => `${webauthnPath(app, tenantId)}${rest}`;

async function signedUp(label: string, tenantId = 'public', app = appId, auth = authenticator) {
  const address = email(label);
  const { reply, credential } = await passkeySignUp(caller, auth, app, address, tenantId);
  expect(reply.json.status, reply.text).toBe('OK');
  return { email: address, credentialId: credential.id, userId: reply.json.user.id as string, json: reply.json };
}

const signIn = (credentialId: string, options: Parameters<typeof passkeySignIn>[4] = {}, auth = authenticator) =>
  passkeySignIn(caller, auth, appId, credentialId, { cdiVersion: '5.4', ...options });

const credentialItem = (credentialId: string, app = appId) =>
  readItem({ PK: `APP#${app}#WACRED#${credentialId}`, SK: 'CREDENTIAL' });

beforeAll(async () => {
  appId = await createApp({ account_linking_enabled: true }, ['t1'], 'wa');
});

describe('registration and sign-in options', () => {
  it('answers registration options as the reference does, with its defaults', async () => {
    const before = Date.now();
    const reply = await call('POST', path('/options/register'), {
      body: { email: '  Ada@Example.COM ', relyingPartyId: RP.id, relyingPartyName: RP.name, origin: RP.origin },
    });
    expect(reply.status, reply.text).toBe(200);
    const options = reply.json;
    expect(Object.keys(options).sort()).toEqual(
      [
        'attestation',
        'authenticatorSelection',
        'challenge',
        'createdAt',
        'email',
        'excludeCredentials',
        'expiresAt',
        'pubKeyCredParams',
        'rp',
        'status',
        'timeout',
        'user',
        'webauthnGeneratedOptionsId',
      ].sort(),
    );
    expect(options).toMatchObject({
      status: 'OK',
      rp: { id: RP.id, name: RP.name },
      email: 'ada@example.com',
      timeout: 6000,
      attestation: 'none',
      excludeCredentials: [],
      pubKeyCredParams: [
        { alg: -8, type: 'public-key' },
        { alg: -7, type: 'public-key' },
        { alg: -257, type: 'public-key' },
      ],
      authenticatorSelection: { requireResidentKey: true, residentKey: 'required', userVerification: 'preferred' },
    });
    expect(options.webauthnGeneratedOptionsId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Buffer.from(options.challenge, 'base64url')).toHaveLength(32);
    expect(options.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(options.createdAt).toBeGreaterThanOrEqual(before);
    expect(options.expiresAt).toBe(options.createdAt + 6000);
    // No user has the email yet: the user handle is the options' own id.
    expect(options.user).toEqual({
      id: Buffer.from(options.webauthnGeneratedOptionsId).toString('base64url'),
      name: 'ada@example.com',
      displayName: 'ada@example.com',
    });
  });

  it('takes the caller’s settings, and names an existing user of the email as the user handle', async () => {
    const user = await signedUp('handle');
    const options = await registerOptions(caller, appId, user.email, 'public', {
      displayName: 'Ada L.',
      attestation: 'direct',
      residentKey: 'preferred',
      userVerification: 'required',
      userPresence: true,
      supportedAlgorithmIDs: [-7],
      timeout: '1500',
    });
    expect(options.user).toEqual({
      id: Buffer.from(user.userId).toString('base64url'),
      name: user.email,
      displayName: 'Ada L.',
    });
    expect(options).toMatchObject({
      timeout: 1500,
      attestation: 'direct',
      pubKeyCredParams: [{ alg: -7, type: 'public-key' }],
      authenticatorSelection: { requireResidentKey: false, residentKey: 'preferred', userVerification: 'required' },
    });
  });

  it('answers sign-in options as the reference does', async () => {
    const reply = await call('POST', path('/options/signin', 't1'), {
      body: { relyingPartyId: RP.id, relyingPartyName: RP.name, origin: RP.origin, userPresence: true },
    });
    expect(reply.status, reply.text).toBe(200);
    expect(Object.keys(reply.json).sort()).toEqual(
      [
        'challenge',
        'createdAt',
        'expiresAt',
        'relyingPartyId',
        'status',
        'timeout',
        'userPresence',
        'userVerification',
        'webauthnGeneratedOptionsId',
      ].sort(),
    );
    expect(reply.json).toMatchObject({
      status: 'OK',
      relyingPartyId: RP.id,
      timeout: 6000,
      userVerification: 'preferred',
      userPresence: true,
    });
  });

  it('refuses settings the reference refuses, with its reasons (200 INVALID_OPTIONS_ERROR)', async () => {
    const base = { email: 'x@example.com', relyingPartyId: RP.id, relyingPartyName: RP.name, origin: RP.origin };
    const cases: [Record<string, unknown>, string][] = [
      [{ origin: 'https://evil.test' }, 'Origin does not match RelyingParty Id'],
      [{ origin: 'not a url' }, 'Origin has to be a valid url!'],
      [{ timeout: -1 }, 'Timeout must be a positive value'],
      [
        { userVerification: 'sometimes' },
        "Invalid value 'sometimes' for userVerification. Must be one of: required, discouraged, preferred",
      ],
      [
        { attestation: 'always' },
        "Invalid value 'always' for attestation. Must be one of: none, indirect, direct, enterprise",
      ],
      [
        { residentKey: 'maybe' },
        "Invalid value 'maybe' for residentKey. Must be one of: required, discouraged, preferred",
      ],
      [{ supportedAlgorithmIDs: ['ES256'] }, `Invalid value '"ES256"' in supportedAlgorithmIds`],
      [{ origin: 'android:apk-key-hash:' }, 'Android origin must contain a valid base64 hash'],
      [{ origin: 'android:apk-key-hash:abc' }, 'Android origin hash must be 43 characters (base64url SHA-256)'],
    ];
    for (const [change, reason] of cases) {
      const reply = await call('POST', path('/options/register'), { body: { ...base, ...change } });
      expect(reply.status, reply.text).toBe(200);
      expect(reply.json, JSON.stringify(change)).toEqual({ status: 'INVALID_OPTIONS_ERROR', reason });
    }
    const android = await call('POST', path('/options/register'), {
      body: { ...base, origin: `android:apk-key-hash:${Buffer.alloc(32, 7).toString('base64url')}` },
    });
    expect(android.json.status, android.text).toBe('OK');
    const signIn = await call('POST', path('/options/signin'), {
      body: { relyingPartyId: RP.id, relyingPartyName: RP.name, origin: 'https://example.org' },
    });
    expect(signIn.json).toEqual({ status: 'INVALID_OPTIONS_ERROR', reason: 'Origin does not match RelyingParty Id' });
  });

  it('refuses malformed fields with 400 and the reference’s messages, and an unknown tenant', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['/options/register', { relyingPartyId: RP.id }, "Field name 'email' is invalid in JSON input"],
      [
        '/options/register',
        { email: 'a@b.c', relyingPartyId: RP.id },
        "Field name 'relyingPartyName' is invalid in JSON input",
      ],
      [
        '/options/register',
        { email: 'a@b.c', relyingPartyName: 'n', relyingPartyId: RP.id, origin: RP.origin, timeout: 'soon' },
        "Field name 'timeout' is invalid in JSON input",
      ],
      [
        '/options/register',
        { email: 'a@b.c', relyingPartyName: 'n', relyingPartyId: RP.id, origin: RP.origin, supportedAlgorithmIDs: -7 },
        "Field name 'supportedAlgorithmIDs' is invalid in JSON input",
      ],
      ['/options/signin', { relyingPartyName: 'n' }, "Field name 'relyingPartyId' is invalid in JSON input"],
      ['/signup', { credential: {} }, "Field name 'webauthnGeneratedOptionsId' is invalid in JSON input"],
      [
        '/signin',
        { webauthnGeneratedOptionsId: 'x', credential: 'nope' },
        "Field name 'credential' is invalid in JSON input",
      ],
    ];
    for (const [route, body, message] of cases) {
      const reply = await call('POST', path(route), { body });
      expect(reply.status, `${route} ${reply.text}`).toBe(400);
      expect(reply.text).toBe(message);
    }
    const missing = await call('GET', path('/options'));
    expect([missing.status, missing.text]).toEqual([
      400,
      "Field name 'webauthnGeneratedOptionsId' is missing in GET request",
    ]);
    const unknownTenant = await call('POST', path('/options/signin', 'nope'), {
      body: { relyingPartyId: RP.id, relyingPartyName: RP.name, origin: RP.origin },
    });
    expect(unknownTenant.status).toBe(400);
    expect(unknownTenant.text).toContain('AppId or tenantId not found');
  });

  it('reads options back in their tenant only, and removes them once (DELETE with query parameters)', async () => {
    const options = await registerOptions(caller, appId, 'reader@example.com', 't1', { timeout: 30_000 });
    const id = options.webauthnGeneratedOptionsId;
    const got = await call('GET', `${path('/options', 't1')}?webauthnGeneratedOptionsId=${id}`);
    expect(got.json).toEqual({
      status: 'OK',
      webauthnGeneratedOptionsId: id,
      relyingPartyId: RP.id,
      relyingPartyName: RP.name,
      challenge: options.challenge,
      timeout: 30_000,
      origin: RP.origin,
      email: 'reader@example.com',
      createdAt: options.createdAt,
      expiresAt: options.expiresAt,
      userVerification: 'preferred',
      userPresence: false,
    });
    const signInId = (await signInOptions(caller, appId)).webauthnGeneratedOptionsId;
    const signInGot = await call('GET', `${path('/options')}?webauthnGeneratedOptionsId=${signInId}`);
    expect(signInGot.json.email).toBeNull();
    expect((await call('GET', `${path('/options')}?webauthnGeneratedOptionsId=${id}`)).json).toEqual({
      status: 'OPTIONS_NOT_FOUND_ERROR',
    });
    expect((await call('DELETE', `${path('/options/remove')}?webauthnGeneratedOptionsId=${id}`)).json).toEqual({
      status: 'OPTIONS_NOT_FOUND_ERROR',
    });
    expect((await call('DELETE', `${path('/options/remove', 't1')}?webauthnGeneratedOptionsId=${id}`)).json).toEqual({
      status: 'OK',
    });
    expect((await call('DELETE', `${path('/options/remove', 't1')}?webauthnGeneratedOptionsId=${id}`)).json).toEqual({
      status: 'OPTIONS_NOT_FOUND_ERROR',
    });
    expect((await call('GET', `${path('/options', 't1')}?webauthnGeneratedOptionsId=${id}`)).json.status).toBe(
      'OPTIONS_NOT_FOUND_ERROR',
    );
  });
});

describe('sign-up', () => {
  it('creates a webauthn user with its first passkey, and stores the public key and counter only', async () => {
    const address = email('new');
    const { reply, credential, options } = await passkeySignUp(caller, authenticator, appId, address);
    expect(reply.status, reply.text).toBe(200);
    const body = reply.json;
    expect(Object.keys(body).sort()).toEqual(
      ['recipeUserId', 'relyingPartyId', 'relyingPartyName', 'status', 'user', 'webauthnCredentialId'].sort(),
    );
    expect(body).toMatchObject({
      status: 'OK',
      webauthnCredentialId: credential.id,
      relyingPartyId: RP.id,
      relyingPartyName: RP.name,
    });
    expect(body.user).toEqual({
      id: body.recipeUserId,
      isPrimaryUser: false,
      tenantIds: ['public'],
      timeJoined: body.user.timeJoined,
      emails: [address],
      phoneNumbers: [],
      thirdParty: [],
      webauthn: { credentialIds: [credential.id] },
      loginMethods: [
        {
          recipeId: 'webauthn',
          recipeUserId: body.recipeUserId,
          tenantIds: ['public'],
          email: address,
          webauthn: { credentialIds: [credential.id] },
          verified: false,
          timeJoined: body.user.timeJoined,
        },
      ],
    });
    expect(body.user.timeJoined).toBeGreaterThanOrEqual(options.createdAt);
    const item = await credentialItem(credential.id);
    expect(item).toMatchObject({
      entityType: 'WEBAUTHN_CREDENTIAL',
      credentialId: credential.id,
      recipeUserId: body.recipeUserId,
      relyingPartyId: RP.id,
      counter: 0,
      transports: ['internal'],
    });
    // The COSE public key (kty EC2, alg ES256) and nothing of the private key.
    expect(Buffer.from(item?.publicKey, 'base64url').subarray(0, 1)[0]).toBe(0xa5);
    expect((await call('GET', `/appid-${appId}/user/id?userId=${body.recipeUserId}`)).json.user).toEqual(body.user);
  });

  it('answers the reference’s statuses for what cannot sign up', async () => {
    const taken = await signedUp('taken');
    const again = await passkeySignUp(caller, new SoftwareAuthenticator(), appId, taken.email);
    expect(again.reply.json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });

    const unknown = await call('POST', path('/signup'), {
      body: { webauthnGeneratedOptionsId: 'no-such-options', credential: { id: 'AAAA', type: 'public-key' } },
    });
    expect(unknown.json).toEqual({ status: 'OPTIONS_NOT_FOUND_ERROR' });

    const options = await registerOptions(caller, appId, email('shapes'));
    const good = authenticator.create(options, RP.origin);
    const send = (credential: unknown) =>
      call('POST', path('/signup'), {
        body: { webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId, credential },
      });
    const reasons: [unknown, string][] = [
      [{ ...good, id: undefined }, 'credential id is missing!'],
      [{ ...good, id: '' }, 'credential id is empty!'],
      [{ ...good, id: 'not base64url!' }, 'Credential ID has to be base64 url encoded'],
      [{ ...good, type: undefined }, 'credential type is missing!'],
      [{ ...good, type: 'password' }, "not supported credential type: 'password'"],
    ];
    for (const [credential, reason] of reasons) {
      expect((await send(credential)).json).toEqual({ status: 'INVALID_CREDENTIALS_ERROR', reason });
    }
    const garbled = await send({ ...good, response: { ...good.response, attestationObject: 'AAAA' } });
    expect(garbled.json.status).toBe('INVALID_CREDENTIALS_ERROR');
    expect(garbled.json.reason).toMatch(/^attestationObject could not be decoded/);

    const signInOptionsId = (await signInOptions(caller, appId)).webauthnGeneratedOptionsId;
    const forSignIn = authenticator.create(
      { challenge: (await signInOptions(caller, appId)).challenge, rp: { id: RP.id } },
      RP.origin,
    );
    const withSignInOptions = await call('POST', path('/signup'), {
      body: { webauthnGeneratedOptionsId: signInOptionsId, credential: forSignIn },
    });
    expect(withSignInOptions.json.status).toBe('INVALID_AUTHENTICATOR_ERROR'); // its challenge is another's
  });

  it('refuses a wrong challenge, origin, relying party, or missing user presence (INVALID_AUTHENTICATOR_ERROR)', async () => {
    const bends = [
      [{ challenge: Buffer.alloc(32, 1).toString('base64url') }, /challenge/],
      [{ origin: 'https://evil.example.com' }, /origin/],
      [{ rpId: 'evil.example.com' }, /RP ID/],
      [{ clientDataType: 'webauthn.get' }, /type/],
    ] as const;
    for (const [bend, reason] of bends) {
      const { reply } = await passkeySignUp(caller, authenticator, appId, email('bent'), 'public', bend);
      expect(reply.json.status, reply.text).toBe('INVALID_AUTHENTICATOR_ERROR');
      expect(reply.json.reason).toMatch(reason);
    }
    // Options that ask for user presence refuse an attestation without it; by default the reference does not ask.
    const strict = await registerOptions(caller, appId, email('present'), 'public', { userPresence: true });
    const absent = authenticator.create(strict, RP.origin, { flags: 0x40 });
    const refused = await call('POST', path('/signup'), {
      body: { webauthnGeneratedOptionsId: strict.webauthnGeneratedOptionsId, credential: absent },
    });
    expect(refused.json.status).toBe('INVALID_AUTHENTICATOR_ERROR');
    const lax = await registerOptions(caller, appId, email('lax'));
    const accepted = await call('POST', path('/signup'), {
      body: {
        webauthnGeneratedOptionsId: lax.webauthnGeneratedOptionsId,
        credential: authenticator.create(lax, RP.origin, { flags: 0x40 }),
      },
    });
    expect(accepted.json.status, accepted.text).toBe('OK');
  });

  it('refuses expired options with INVALID_OPTIONS_ERROR', async () => {
    const options = await registerOptions(caller, appId, email('late'), 'public', { timeout: 0 });
    await sleep(5);
    const reply = await call('POST', path('/signup'), {
      body: {
        webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId,
        credential: authenticator.create(options, RP.origin),
      },
    });
    expect(reply.json).toEqual({ status: 'INVALID_OPTIONS_ERROR', reason: 'Options expired' });
  });

  it('keeps a passkey unique in the app: a replayed attestation signs nobody up twice', async () => {
    const first = await passkeySignUp(caller, authenticator, appId, email('replay'));
    expect(first.reply.json.status).toBe('OK');
    const body = { webauthnGeneratedOptionsId: first.options.webauthnGeneratedOptionsId, credential: first.credential };
    expect((await call('POST', path('/signup'), { body })).json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    // In another tenant the email is free, but the passkey is the app's already.
    expect((await call('POST', path('/signup', 't1'), { body })).json).toEqual({
      status: 'INVALID_CREDENTIALS_ERROR',
      reason: 'This credential is registered already',
    });
    const users = await call(
      'GET',
      `/appid-${appId}/t1/users/by-accountinfo?email=${first.reply.json.user.emails[0]}&doUnionOfAccountInfo=false`,
    );
    expect(users.json.users).toEqual([]);
  });

  it('of ten concurrent sign-ups with one email, exactly one creates a user', async () => {
    const address = email('race');
    const auths = Array.from({ length: 10 }, () => new SoftwareAuthenticator());
    const replies = await Promise.all(auths.map((a) => passkeySignUp(caller, a, appId, address)));
    const statuses = replies.map((r) => r.reply.json.status).sort();
    expect(statuses).toEqual(['OK', ...Array(9).fill('EMAIL_ALREADY_EXISTS_ERROR')].sort());
    const found = await call(
      'GET',
      `/appid-${appId}/public/users/by-accountinfo?email=${address}&doUnionOfAccountInfo=false`,
    );
    expect(found.json.users).toHaveLength(1);
    const winner = replies.find((r) => r.reply.json.status === 'OK');
    const losers = replies.filter((r) => r !== winner);
    for (const loser of losers) expect(await credentialItem(loser.credential.id)).toBeUndefined();
  });
});

describe('sign-in', () => {
  it('signs in the passkey’s user, and stores the authenticator’s new counter', async () => {
    const user = await signedUp('signin');
    const { reply } = await signIn(user.credentialId);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json).toEqual({ status: 'OK', user: user.json.user, recipeUserId: user.userId });
    expect((await credentialItem(user.credentialId))?.counter).toBe(1);
    const again = await signIn(user.credentialId);
    expect(again.reply.json.status).toBe('OK');
    expect((await credentialItem(user.credentialId))?.counter).toBe(2);
  });

  it('refuses a replayed assertion: on CDI 5.4 by its counter, from CDI 5.5 because its options are used up', async () => {
    const user = await signedUp('replay-in');
    const first = await signIn(user.credentialId);
    expect(first.reply.json.status).toBe('OK');
    const replay = await call('POST', path('/signin'), { body: first.body, headers: SDK_CDI });
    expect(replay.json.status).toBe('INVALID_AUTHENTICATOR_ERROR');
    expect(replay.json.reason).toBe('Response counter value 1 was lower than expected 1');
    // CDI 5.4 keeps the options (the SDK reads them again after a sign-in).
    const id = first.body.webauthnGeneratedOptionsId;
    expect((await call('GET', `${path('/options')}?webauthnGeneratedOptionsId=${id}`)).json.status).toBe('OK');

    const latest = await signIn(user.credentialId, { cdiVersion: '5.5' });
    expect(latest.reply.json.status).toBe('OK');
    const replayed = await call('POST', path('/signin'), { body: latest.body, headers: { 'cdi-version': '5.5' } });
    expect(replayed.json).toEqual({ status: 'OPTIONS_NOT_FOUND_ERROR' });
    const gone = await call(
      'GET',
      `${path('/options')}?webauthnGeneratedOptionsId=${latest.body.webauthnGeneratedOptionsId}`,
    );
    expect(gone.json.status).toBe('OPTIONS_NOT_FOUND_ERROR');
  });

  it('a failed sign-in uses nothing up: the options still sign in with the right assertion', async () => {
    const user = await signedUp('fail-first');
    const options = await signInOptions(caller, appId);
    const good = authenticator.get(user.credentialId, options, RP.origin);
    const broken = {
      ...good,
      response: {
        ...good.response,
        signature: authenticator.get(user.credentialId, options, RP.origin, { breakSignature: true, counter: 99 })
          .response.signature,
      },
    };
    const headers = { 'cdi-version': '5.5' };
    const refused = await call('POST', path('/signin'), {
      body: { webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId, credential: broken },
      headers,
    });
    expect(refused.json.status).toBe('INVALID_AUTHENTICATOR_ERROR');
    const accepted = await call('POST', path('/signin'), {
      body: { webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId, credential: good },
      headers,
    });
    expect(accepted.json.status, accepted.text).toBe('OK');
  });

  it('with one set of options on CDI 5.5, exactly one of ten concurrent sign-ins succeeds', async () => {
    const syncing = new SoftwareAuthenticator({ counterStep: 0 });
    const user = await signedUp('concurrent', 'public', appId, syncing);
    const options = await signInOptions(caller, appId);
    const assertion = syncing.get(user.credentialId, options, RP.origin);
    const body = { webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId, credential: assertion };
    const replies = await Promise.all(
      Array.from({ length: 10 }, () => call('POST', path('/signin'), { body, headers: { 'cdi-version': '5.5' } })),
    );
    const statuses = replies.map((r) => r.json?.status ?? r.status);
    expect(statuses.filter((s) => s === 'OK')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'OPTIONS_NOT_FOUND_ERROR')).toHaveLength(9);
  });

  it('with a counting authenticator on CDI 5.4, one assertion sent ten times at once signs in once', async () => {
    const user = await signedUp('counted');
    const { body } = await signIn(user.credentialId);
    const fresh = await signInOptions(caller, appId);
    const next = authenticator.get(user.credentialId, fresh, RP.origin);
    const nextBody = { webauthnGeneratedOptionsId: fresh.webauthnGeneratedOptionsId, credential: next };
    const replies = await Promise.all(
      Array.from({ length: 10 }, () => call('POST', path('/signin'), { body: nextBody, headers: SDK_CDI })),
    );
    const statuses = replies.map((r) => r.json?.status ?? r.status);
    expect(statuses.filter((s) => s === 'OK')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'INVALID_AUTHENTICATOR_ERROR')).toHaveLength(9);
    expect((await credentialItem(user.credentialId))?.counter).toBe(2);
    expect(body.credential.id).toBe(user.credentialId);
  });

  it('an authenticator that keeps no counter signs in again and again (the reference’s rule)', async () => {
    const syncing = new SoftwareAuthenticator({ counterStep: 0 });
    const user = await signedUp('synced', 'public', appId, syncing);
    for (let i = 0; i < 3; i++) expect((await signIn(user.credentialId, {}, syncing)).reply.json.status).toBe('OK');
    expect((await credentialItem(user.credentialId))?.counter).toBe(0);
  });

  it('refuses a counter that went backwards, and one that stopped', async () => {
    const user = await signedUp('backwards');
    for (let i = 0; i < 3; i++) expect((await signIn(user.credentialId)).reply.json.status).toBe('OK');
    const cloned = await signIn(user.credentialId, { bend: { counter: 2 } });
    expect(cloned.reply.json).toEqual({
      status: 'INVALID_AUTHENTICATOR_ERROR',
      reason: 'Response counter value 2 was lower than expected 3',
    });
    const stopped = await signIn(user.credentialId, { bend: { counter: 0 } });
    expect(stopped.reply.json.status).toBe('INVALID_AUTHENTICATOR_ERROR');
    expect((await credentialItem(user.credentialId))?.counter).toBe(3);
  });

  it('refuses a wrong challenge, origin, relying party and a broken signature', async () => {
    const user = await signedUp('bent-in');
    const bends = [
      [{ challenge: Buffer.alloc(32, 2).toString('base64url') }, /challenge/],
      [{ origin: 'https://evil.example.com' }, /origin/],
      [{ rpId: 'example.org' }, /RP ID/],
      [{ breakSignature: true }, /signature/],
    ] as const;
    for (const [bend, reason] of bends) {
      const { reply } = await signIn(user.credentialId, { bend });
      expect(reply.json.status, reply.text).toBe('INVALID_AUTHENTICATOR_ERROR');
      expect(reply.json.reason).toMatch(reason);
    }
    const uv = await signInOptions(caller, appId, 'public', { userVerification: 'required' });
    const unverified = authenticator.get(user.credentialId, uv, RP.origin, { flags: 0x01 });
    const refused = await call('POST', path('/signin'), {
      body: { webauthnGeneratedOptionsId: uv.webauthnGeneratedOptionsId, credential: unverified },
    });
    expect(refused.json.status).toBe('INVALID_AUTHENTICATOR_ERROR');
  });

  it('refuses expired options, unknown options and unknown passkeys, and a passkey of another app', async () => {
    const user = await signedUp('edges-in');
    const late = await signInOptions(caller, appId, 'public', { timeout: 0 });
    await sleep(5);
    const expired = await call('POST', path('/signin'), {
      body: {
        webauthnGeneratedOptionsId: late.webauthnGeneratedOptionsId,
        credential: authenticator.get(user.credentialId, late, RP.origin),
      },
    });
    expect(expired.json).toEqual({ status: 'INVALID_OPTIONS_ERROR', reason: 'Options expired' });

    const options = await signInOptions(caller, appId);
    const assertion = authenticator.get(user.credentialId, options, RP.origin);
    const noOptions = await call('POST', path('/signin'), {
      body: { webauthnGeneratedOptionsId: 'missing', credential: assertion },
    });
    expect(noOptions.json).toEqual({ status: 'OPTIONS_NOT_FOUND_ERROR' });
    const stranger = new SoftwareAuthenticator();
    stranger.create({ challenge: options.challenge, rp: { id: RP.id } }, RP.origin);
    const [strangerId] = [...stranger.passkeys.keys()];
    const unknown = await call('POST', path('/signin'), {
      body: {
        webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId,
        credential: stranger.get(strangerId as string, options, RP.origin),
      },
    });
    expect(unknown.json).toEqual({ status: 'CREDENTIAL_NOT_FOUND_ERROR' });

    // The same passkey presented to another app: that app holds no such passkey.
    const otherApp = await createApp({}, [], 'wa-other');
    const elsewhere = await passkeySignIn(caller, authenticator, otherApp, user.credentialId, { cdiVersion: '5.4' });
    expect(elsewhere.reply.json).toEqual({ status: 'CREDENTIAL_NOT_FOUND_ERROR' });
    expect(await credentialItem(user.credentialId, otherApp)).toBeUndefined();
  });

  it('signs a user of another tenant in with options of this tenant, as the reference does', async () => {
    const user = await signedUp('tenant', 't1');
    const { reply } = await signIn(user.credentialId, { tenantId: 'public' });
    expect(reply.json.status, reply.text).toBe('OK');
    expect(reply.json.user.tenantIds).toEqual(['t1']);
  });
});

describe('passkeys of a user', () => {
  it('registers a second passkey, lists, reads and removes them; a removed passkey no longer signs in', async () => {
    const user = await signedUp('devices');
    const laptop = new SoftwareAuthenticator();
    const options = await registerOptions(caller, appId, user.email);
    const second = laptop.create(options, RP.origin);
    const registered = await call('POST', `/appid-${appId}/recipe/webauthn/user/credential/register`, {
      body: {
        recipeUserId: user.userId,
        webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId,
        credential: second,
      },
    });
    expect(registered.json).toEqual({
      status: 'OK',
      webauthnCredentialId: second.id,
      recipeUserId: user.userId,
      email: user.email,
      relyingPartyId: RP.id,
      relyingPartyName: RP.name,
    });
    const again = await call('POST', `/appid-${appId}/recipe/webauthn/user/credential/register`, {
      body: {
        recipeUserId: user.userId,
        webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId,
        credential: second,
      },
    });
    expect(again.json).toEqual({ status: 'CREDENTIAL_ALREADY_EXISTS_ERROR' });

    const list = await call('GET', `/appid-${appId}/recipe/webauthn/user/credential/list?recipeUserId=${user.userId}`);
    expect(list.json.status).toBe('OK');
    expect(list.json.credentials.map((c: any) => c.webauthnCredentialId)).toEqual([user.credentialId, second.id]);
    expect(list.json.credentials[1]).toEqual({
      webauthnCredentialId: second.id,
      recipeUserId: user.userId,
      relyingPartyId: RP.id,
      createdAt: expect.any(Number),
    });
    const fetched = await call(
      'GET',
      `/appid-${appId}/recipe/webauthn/user/credential?recipeUserId=${user.userId}&webauthnCredentialId=${second.id}`,
    );
    expect(fetched.json).toEqual({
      status: 'OK',
      webauthnCredentialId: second.id,
      recipeUserId: user.userId,
      relyingPartyId: RP.id,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    const userNow = (await call('GET', `/appid-${appId}/user/id?userId=${user.userId}`)).json.user;
    expect(userNow.webauthn.credentialIds).toEqual([user.credentialId, second.id]);
    expect((await signIn(second.id, {}, laptop)).reply.json.status).toBe('OK');

    const removePath = (id: string) =>
      `/appid-${appId}/recipe/webauthn/user/credential/remove?recipeUserId=${user.userId}&webauthnCredentialId=${id}`;
    expect((await call('DELETE', removePath(user.credentialId))).json).toEqual({ status: 'OK' });
    expect((await call('DELETE', removePath(user.credentialId))).json).toEqual({
      status: 'CREDENTIAL_NOT_FOUND_ERROR',
    });
    expect((await signIn(user.credentialId)).reply.json).toEqual({ status: 'CREDENTIAL_NOT_FOUND_ERROR' });
    expect((await signIn(second.id, {}, laptop)).reply.json.status).toBe('OK');
    const after = await call('GET', `/appid-${appId}/recipe/webauthn/user/credential/list?recipeUserId=${user.userId}`);
    expect(after.json.credentials.map((c: any) => c.webauthnCredentialId)).toEqual([second.id]);
    expect(await credentialItem(user.credentialId)).toBeUndefined();
  });

  it('refuses a further passkey on what refuses a sign-up: unknown, expired or another app’s options, a wrong challenge or origin', async () => {
    const user = await signedUp('further');
    const registerPath = (app = appId) => `/appid-${app}/recipe/webauthn/user/credential/register`;
    const register = (options: { webauthnGeneratedOptionsId: string }, credential: unknown, app = appId) =>
      call('POST', registerPath(app), {
        body: { recipeUserId: user.userId, webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId, credential },
      });
    const device = new SoftwareAuthenticator();

    const live = await registerOptions(caller, appId, user.email);
    expect((await register({ webauthnGeneratedOptionsId: 'missing' }, device.create(live, RP.origin))).json).toEqual({
      status: 'OPTIONS_NOT_FOUND_ERROR',
    });
    const late = await registerOptions(caller, appId, user.email, 'public', { timeout: 0 });
    await sleep(5);
    expect((await register(late, device.create(late, RP.origin))).json).toEqual({
      status: 'INVALID_OPTIONS_ERROR',
      reason: 'Options expired',
    });
    const bends = [
      [{ challenge: Buffer.alloc(32, 3).toString('base64url') }, /challenge/],
      [{ origin: 'https://evil.example.com' }, /origin/],
      [{ rpId: 'example.org' }, /RP ID/],
    ] as const;
    for (const [bend, reason] of bends) {
      const reply = await register(live, device.create(live, RP.origin, bend));
      expect(reply.json.status, reply.text).toBe('INVALID_AUTHENTICATOR_ERROR');
      expect(reply.json.reason).toMatch(reason);
    }
    // Options of another app are not this app's; nor is this app's user that app's.
    const otherApp = await createApp({}, [], 'wa-register');
    const foreign = await registerOptions(caller, otherApp, user.email);
    expect((await register(foreign, device.create(foreign, RP.origin))).json).toEqual({
      status: 'OPTIONS_NOT_FOUND_ERROR',
    });
    expect((await register(foreign, device.create(foreign, RP.origin), otherApp)).json).toEqual({
      status: 'UNKNOWN_USER_ID_ERROR',
    });
    // Nothing refused was stored: the user still has its one passkey.
    const list = await call('GET', `/appid-${appId}/recipe/webauthn/user/credential/list?recipeUserId=${user.userId}`);
    expect(list.json.credentials.map((c: any) => c.webauthnCredentialId)).toEqual([user.credentialId]);
    for (const id of device.passkeys.keys()) {
      expect(await credentialItem(id)).toBeUndefined();
      expect(await credentialItem(id, otherApp)).toBeUndefined();
    }
    // A passkey of this app is no passkey of the other, whichever route asks.
    const query = `recipeUserId=${user.userId}&webauthnCredentialId=${user.credentialId}`;
    expect((await call('GET', `/appid-${otherApp}/recipe/webauthn/user/credential?${query}`)).json).toEqual({
      status: 'CREDENTIAL_NOT_FOUND_ERROR',
    });
    expect((await call('DELETE', `/appid-${otherApp}/recipe/webauthn/user/credential/remove?${query}`)).json).toEqual({
      status: 'CREDENTIAL_NOT_FOUND_ERROR',
    });
    expect(await credentialItem(user.credentialId)).toBeDefined();
  });

  it('answers unknown users and passkeys as the reference does, and follows external ids', async () => {
    const user = await signedUp('mapped');
    const map = await call('POST', `/appid-${appId}/recipe/userid/map`, {
      body: { superTokensUserId: user.userId, externalUserId: `ext-${user.userId}` },
    });
    expect(map.json.status, map.text).toBe('OK');
    const external = `ext-${user.userId}`;
    const list = await call('GET', `/appid-${appId}/recipe/webauthn/user/credential/list?recipeUserId=${external}`);
    expect(list.json.credentials).toEqual([
      {
        webauthnCredentialId: user.credentialId,
        recipeUserId: external,
        relyingPartyId: RP.id,
        createdAt: expect.any(Number),
      },
    ]);
    const signedIn = await signIn(user.credentialId);
    expect(signedIn.reply.json.recipeUserId).toBe(external);
    expect(signedIn.reply.json.user.id).toBe(external);

    expect(
      (await call('GET', `/appid-${appId}/recipe/webauthn/user/credential/list?recipeUserId=nobody`)).json,
    ).toEqual({
      status: 'OK',
      credentials: [],
    });
    const other = await signedUp('not-theirs');
    const notTheirs = await call(
      'GET',
      `/appid-${appId}/recipe/webauthn/user/credential?recipeUserId=${user.userId}&webauthnCredentialId=${other.credentialId}`,
    );
    expect(notTheirs.json).toEqual({ status: 'CREDENTIAL_NOT_FOUND_ERROR' });
    const weird = await call(
      'GET',
      `/appid-${appId}/recipe/webauthn/user/credential?recipeUserId=${user.userId}&webauthnCredentialId=${encodeURIComponent('#$%')}`,
    );
    expect(weird.json).toEqual({ status: 'CREDENTIAL_NOT_FOUND_ERROR' });
    const options = await registerOptions(caller, appId, 'someone@example.com');
    const unknownUser = await call('POST', `/appid-${appId}/recipe/webauthn/user/credential/register`, {
      body: {
        recipeUserId: 'nobody',
        webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId,
        credential: new SoftwareAuthenticator().create(options, RP.origin),
      },
    });
    expect(unknownUser.json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    const missing = await call('GET', `/appid-${appId}/recipe/webauthn/user/credential?recipeUserId=x`);
    expect([missing.status, missing.text]).toEqual([
      400,
      "Field name 'webauthnCredentialId' is missing in GET request",
    ]);
  });
});

describe('webauthn users among the others', () => {
  it('are found by email, by passkey, listed and counted under the webauthn recipe', async () => {
    const app = await createApp({}, [], 'wa-list');
    const { reply } = await passkeySignUp(caller, authenticator, app, 'listed@example.com');
    const user = reply.json.user;
    const credentialId = reply.json.webauthnCredentialId;
    await call('POST', `/appid-${app}/public/recipe/signup`, {
      body: { email: 'other@example.com', password: 'pw-123456' },
    });
    const byEmail = await call(
      'GET',
      `/appid-${app}/public/users/by-accountinfo?email=LISTED@example.com&doUnionOfAccountInfo=false`,
    );
    expect(byEmail.json.users).toEqual([user]);
    const byPasskey = await call(
      'GET',
      `/appid-${app}/public/users/by-accountinfo?webauthnCredentialId=${credentialId}&doUnionOfAccountInfo=false`,
    );
    expect(byPasskey.json.users).toEqual([user]);
    const both = await call(
      'GET',
      `/appid-${app}/public/users/by-accountinfo?email=other@example.com&webauthnCredentialId=${credentialId}&doUnionOfAccountInfo=false`,
    );
    expect(both.json.users).toEqual([]);
    const either = await call(
      'GET',
      `/appid-${app}/public/users/by-accountinfo?email=other@example.com&webauthnCredentialId=${credentialId}&doUnionOfAccountInfo=true`,
    );
    expect(either.json.users).toHaveLength(2);
    const bad = await call(
      'GET',
      `/appid-${app}/public/users/by-accountinfo?webauthnCredentialId=${encodeURIComponent('a#b')}&doUnionOfAccountInfo=false`,
    );
    expect(bad.json.users).toEqual([]);

    const listed = await call('GET', `/appid-${app}/public/users?includeRecipeIds=webauthn`);
    expect(listed.json.users).toEqual([user]);
    expect((await call('GET', `/appid-${app}/public/users`)).json.users).toHaveLength(2);
    expect((await call('GET', `/appid-${app}/public/users/count?includeRecipeIds=webauthn`)).json.count).toBe(1);
    expect((await call('GET', `/appid-${app}/public/users/count`)).json.count).toBe(2);
  });

  it('link with the users of their email: the passkey then signs the primary user in', async () => {
    const address = email('linked');
    const ep = await call('POST', `/appid-${appId}/public/recipe/signup`, {
      body: { email: address, password: 'pw-123456' },
    });
    const primaryId = ep.json.user.id as string;
    expect(
      (await call('POST', `/appid-${appId}/recipe/accountlinking/user/primary`, { body: { recipeUserId: primaryId } }))
        .json.status,
    ).toBe('OK');
    const passkeyUser = await signedUp('ignored');
    // A webauthn user of another email links under it too; one of the same email is checked against the primary's reservation.
    const sameEmail = await passkeySignUp(caller, authenticator, appId, address);
    expect(sameEmail.reply.json.status, sameEmail.reply.text).toBe('OK');
    const recipeUserId = sameEmail.reply.json.recipeUserId as string;
    const check = await call(
      'GET',
      `/appid-${appId}/recipe/accountlinking/user/link/check?recipeUserId=${recipeUserId}&primaryUserId=${primaryId}`,
    );
    expect(check.json.status, check.text).toBe('OK');
    const linked = await call('POST', `/appid-${appId}/recipe/accountlinking/user/link`, {
      body: { recipeUserId, primaryUserId: primaryId },
    });
    expect(linked.json.status, linked.text).toBe('OK');
    const { reply } = await signIn(sameEmail.credential.id);
    expect(reply.json.status).toBe('OK');
    expect(reply.json.user.id).toBe(primaryId);
    expect(reply.json.recipeUserId).toBe(recipeUserId);
    expect(reply.json.user.loginMethods.map((lm: any) => lm.recipeId)).toEqual(['emailpassword', 'webauthn']);
    expect(reply.json.user.webauthn).toEqual({ credentialIds: [sameEmail.credential.id] });
    // Another webauthn user with the primary user's email cannot become primary itself.
    const canPrimary = await call(
      'GET',
      `/appid-${appId}/recipe/accountlinking/user/primary/check?recipeUserId=${passkeyUser.userId}`,
    );
    expect(canPrimary.json.status).toBe('OK');
  });

  it('change their email with the reference’s answers', async () => {
    const user = await signedUp('mail');
    const other = await signedUp('mail-other');
    const put = (body: Record<string, unknown>, tenantId = 'public') =>
      call('PUT', path('/user/email', tenantId), { body });
    expect((await put({ recipeUserId: user.userId, email: other.email })).json).toEqual({
      status: 'EMAIL_ALREADY_EXISTS_ERROR',
    });
    expect((await put({ recipeUserId: 'nobody', email: 'x@example.com' })).json).toEqual({
      status: 'UNKNOWN_USER_ID_ERROR',
    });
    const ep = await call('POST', `/appid-${appId}/public/recipe/signup`, {
      body: { email: email('ep'), password: 'pw-123456' },
    });
    expect((await put({ recipeUserId: ep.json.user.id, email: 'x@example.com' })).json).toEqual({
      status: 'UNKNOWN_USER_ID_ERROR',
    });
    // An email/password user's email is no webauthn user's.
    expect((await put({ recipeUserId: user.userId, email: ep.json.user.emails[0] })).json).toEqual({ status: 'OK' });
    expect((await put({ recipeUserId: other.userId, email: ep.json.user.emails[0] })).json).toEqual({
      status: 'EMAIL_ALREADY_EXISTS_ERROR',
    });
    const moved = ' New.Mail@Example.com ';
    expect((await put({ recipeUserId: user.userId, email: moved })).json).toEqual({ status: 'OK' });
    const now = (await call('GET', `/appid-${appId}/user/id?userId=${user.userId}`)).json.user;
    expect(now.emails).toEqual(['new.mail@example.com']);
    expect(now.loginMethods[0]).toMatchObject({ email: 'new.mail@example.com', verified: false });
    // The email it left is free again.
    expect((await put({ recipeUserId: other.userId, email: ep.json.user.emails[0] })).json).toEqual({ status: 'OK' });
    const missing = await put({ recipeUserId: user.userId });
    expect([missing.status, missing.text]).toEqual([400, "Field name 'email' is invalid in JSON input"]);

    // A primary user's new email held by another primary user.
    const holder = await call('POST', `/appid-${appId}/public/recipe/signup`, {
      body: { email: email('holder'), password: 'pw-123456' },
    });
    await call('POST', `/appid-${appId}/recipe/accountlinking/user/primary`, {
      body: { recipeUserId: holder.json.user.id },
    });
    await call('POST', `/appid-${appId}/recipe/accountlinking/user/primary`, { body: { recipeUserId: other.userId } });
    expect((await put({ recipeUserId: other.userId, email: holder.json.user.emails[0] })).json).toEqual({
      status: 'USER_WITH_EMAIL_ALREADY_EXISTS_ERROR',
    });
  });
});

describe('account recovery', () => {
  const recover = (body: Record<string, unknown>, tenantId = 'public', app = appId) =>
    call('POST', `${webauthnPath(app, tenantId)}/user/recover/token`, { body });

  it('makes a token, shows its user, uses it up once, and keeps only its hash', async () => {
    const user = await signedUp('recover');
    const made = await recover({ email: user.email.toUpperCase(), userId: user.userId });
    expect(made.json.status, made.text).toBe('OK');
    const token = made.json.token as string;
    secrets.push(token);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const shown = await call('GET', `${path('/user/recover')}?token=${token}`);
    expect(shown.json).toEqual({
      status: 'OK',
      recipeUserId: user.userId,
      user: (await call('GET', `/appid-${appId}/user/id?userId=${user.userId}`)).json.user,
    });
    expect((await call('GET', `${path('/user/recover', 't1')}?token=${token}`)).json).toEqual({
      status: 'RECOVER_ACCOUNT_TOKEN_INVALID_ERROR',
    });
    const items = await appItems(appId);
    for (const item of items) expect(JSON.stringify(item)).not.toContain(token);

    const second = (await recover({ email: user.email, userId: user.userId })).json.token as string;
    secrets.push(second);
    const consumed = await call('POST', path('/user/recover/token/consume'), { body: { token } });
    expect(consumed.json).toEqual({ status: 'OK', userId: user.userId, email: user.email });
    for (const used of [token, second]) {
      expect((await call('POST', path('/user/recover/token/consume'), { body: { token: used } })).json).toEqual({
        status: 'RECOVER_ACCOUNT_TOKEN_INVALID_ERROR',
      });
    }
  });

  it('answers unknown users, other tenants, expired tokens and bad input as the reference does', async () => {
    expect((await recover({ email: 'a@example.com', userId: 'nobody' })).json).toEqual({
      status: 'UNKNOWN_USER_ID_ERROR',
    });
    const missing = await recover({ email: 'a@example.com' });
    expect([missing.status, missing.text]).toEqual([400, "Field name 'userId' is invalid in JSON input"]);
    // Read before the tenant is looked up, as in the reference.
    const early = await recover({ email: 'a@example.com' }, 'no-such-tenant');
    expect(early.status).toBe(400);
    expect(early.text).toBe("Field name 'userId' is invalid in JSON input");
    const noToken = await call('GET', path('/user/recover'));
    expect([noToken.status, noToken.text]).toEqual([400, "Field name 'token' is missing in GET request"]);

    const shortLived = await createApp({ webauthn_recover_account_token_lifetime: 1 }, [], 'wa-rec');
    const { reply } = await passkeySignUp(caller, authenticator, shortLived, 'short@example.com');
    const made = await recover({ email: 'short@example.com', userId: reply.json.recipeUserId }, 'public', shortLived);
    secrets.push(made.json.token);
    await sleep(5);
    expect((await call('GET', `${webauthnPath(shortLived)}/user/recover?token=${made.json.token}`)).json.status).toBe(
      'RECOVER_ACCOUNT_TOKEN_INVALID_ERROR',
    );
    expect(
      (
        await call('POST', `${webauthnPath(shortLived)}/user/recover/token/consume`, {
          body: { token: made.json.token },
        })
      ).json.status,
    ).toBe('RECOVER_ACCOUNT_TOKEN_INVALID_ERROR');
    const zero = await call('PUT', '/recipe/multitenancy/app/v2', {
      body: { appId: shortLived, coreConfig: { webauthn_recover_account_token_lifetime: 0 } },
    });
    expect([zero.status, zero.text]).toEqual([
      400,
      'Invalid core config: Provided webauthn_recover_account_token_lifetime must be > 0',
    ]);
  });

  it('gives no recipe user id for a user without a webauthn login method in the tenant', async () => {
    const ep = await call('POST', `/appid-${appId}/public/recipe/signup`, {
      body: { email: email('epr'), password: 'pw-123456' },
    });
    const made = await recover({ email: ep.json.user.emails[0], userId: ep.json.user.id });
    secrets.push(made.json.token);
    const shown = await call('GET', `${path('/user/recover')}?token=${made.json.token}`);
    expect(shown.json).toMatchObject({ status: 'OK', recipeUserId: null, user: { id: ep.json.user.id } });
  });
});

describe('removal', () => {
  it('a removed user takes its passkeys with it', async () => {
    const user = await signedUp('removed');
    const removed = await call('POST', `/appid-${appId}/user/remove`, { body: { userId: user.userId } });
    expect(removed.json.status).toBe('OK');
    expect(await credentialItem(user.credentialId)).toBeUndefined();
    expect((await signIn(user.credentialId)).reply.json).toEqual({ status: 'CREDENTIAL_NOT_FOUND_ERROR' });
    const again = await passkeySignUp(caller, new SoftwareAuthenticator(), appId, user.email);
    expect(again.reply.json.status).toBe('OK');
  });

  it('a removed tenant takes its options; a removed app leaves nothing behind', async () => {
    const app = await createApp({}, ['gone'], 'wa-purge');
    const options = await registerOptions(caller, app, 'purge@example.com', 'gone');
    await passkeySignUp(caller, authenticator, app, 'kept@example.com');
    const removedTenant = await call('POST', `/appid-${app}/recipe/multitenancy/tenant/remove`, {
      body: { tenantId: 'gone' },
    });
    expect(removedTenant.json.status, removedTenant.text).toBe('OK');
    const left = keysOf(await appItems(app));
    expect(left.some((k) => k.includes(options.webauthnGeneratedOptionsId))).toBe(false);
    expect(left.some((k) => k.includes('#WACRED#'))).toBe(true);

    const removedApp = await call('POST', '/recipe/multitenancy/app/remove', { body: { appId: app } });
    expect(removedApp.json.status, removedApp.text).toBe('OK');
    expect(await appItems(app)).toEqual([]);
  });
});

describe('the app’s table', () => {
  it('an app holding passkeys cannot move to another table', async () => {
    const app = await createApp({}, [], 'wa-move');
    await passkeySignUp(caller, authenticator, app, 'mover@example.com');
    const user = (await call('GET', `/appid-${app}/public/users`)).json.users[0];
    await call('POST', `/appid-${app}/user/remove`, { body: { userId: user.id } });
    const moved = await call('PUT', '/recipe/multitenancy/app/v2', {
      body: { appId: app, coreConfig: { dynamodb_table_name: 'elsewhere' } },
    });
    expect(moved.status).toBe(400);
    expect(moved.text).toContain('passkeys and WebAuthn options');
  });
});

describe('hostile bodies', () => {
  const answered = (reply: { status: number; json: any; text: string }) => {
    expect([200, 400], reply.text).toContain(reply.status);
    if (reply.status === 200) expect(typeof reply.json?.status, reply.text).toBe('string');
  };

  it('any JSON body of any route is a 200 with a status or a 400, never a 500', async () => {
    const routes: [string, string][] = [
      ['POST', path('/options/register')],
      ['POST', path('/options/signin')],
      ['POST', path('/signup')],
      ['POST', path('/signin')],
      ['POST', `/appid-${appId}/recipe/webauthn/user/credential/register`],
      ['PUT', path('/user/email')],
      ['POST', path('/user/recover/token')],
      ['POST', path('/user/recover/token/consume')],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.dictionary(fc.string(), fc.jsonValue()),
        async ([method, url], body) => {
          answered(await call(method, url, { body }));
        },
      ),
      { numRuns: 120 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/options', '/options/remove', '/user/recover'),
        fc.string(),
        async (route, value) => {
          const method = route === '/options/remove' ? 'DELETE' : 'GET';
          const key = route === '/user/recover' ? 'token' : 'webauthnGeneratedOptionsId';
          answered(await call(method, `${path(route)}?${key}=${encodeURIComponent(value)}`));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('any JSON as the credential of live options, or in any field of a real one, gets a ceremony status', async () => {
    const user = await signedUp('hostile');
    const registration = await registerOptions(caller, appId, email('hostile-new'));
    const further = await registerOptions(caller, appId, user.email);
    const signInOpts = await signInOptions(caller, appId);
    const attestation = authenticator.create(registration, RP.origin);
    const furtherAttestation = new SoftwareAuthenticator().create(further, RP.origin);
    const assertion = authenticator.get(user.credentialId, signInOpts, RP.origin);
    const ceremonies = {
      signUp: { url: path('/signup'), options: registration, credential: attestation, extra: {} },
      signIn: { url: path('/signin'), options: signInOpts, credential: assertion, extra: {} },
      register: {
        url: `/appid-${appId}/recipe/webauthn/user/credential/register`,
        options: further,
        credential: furtherAttestation,
        extra: { recipeUserId: user.userId },
      },
    } as const;
    const ceremony = new Set([
      'INVALID_CREDENTIALS_ERROR',
      'INVALID_AUTHENTICATOR_ERROR',
      'INVALID_OPTIONS_ERROR',
      'CREDENTIAL_NOT_FOUND_ERROR',
      // A field the ceremony does not read left it valid: it signed up (then the email is taken),
      // in, or registered the further passkey (then it exists already).
      'OK',
      'EMAIL_ALREADY_EXISTS_ERROR',
      'CREDENTIAL_ALREADY_EXISTS_ERROR',
    ]);
    const fields = [
      'id',
      'rawId',
      'type',
      'response',
      'clientDataJSON',
      'attestationObject',
      'authenticatorData',
      'signature',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...(Object.keys(ceremonies) as (keyof typeof ceremonies)[])),
        fc.constantFrom(...fields),
        fc.jsonValue(),
        async (name, field, value) => {
          const { url, options, credential: real, extra } = ceremonies[name];
          const credential = structuredClone(real) as unknown as Record<string, any>;
          if (field in credential) credential[field] = value;
          else credential.response[field] = value;
          const reply = await call('POST', url, {
            body: { ...extra, webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId, credential },
            headers: SDK_CDI,
          });
          expect(reply.status, reply.text).toBe(200);
          expect(ceremony.has(reply.json.status), reply.text).toBe(true);
        },
      ),
      { numRuns: 80 },
    );
  });
});
