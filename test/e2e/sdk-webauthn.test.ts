/**
 * Passkeys through the unmodified supertokens-node against `npm start` over HTTP, with the
 * software authenticator of test/helpers/webauthn-authenticator.ts playing the browser's:
 *
 * - the `WebAuthn` recipe's functions (`registerOptions`, `signUp`, `signInOptions`, `signIn`,
 *   `getGeneratedOptions`, the credential, email and recovery functions) called in this process,
 *   answering what the SDK reads;
 * - the SDK's API layer through a real Express app (test/e2e/fixtures/sdk-app-server.ts with
 *   `webauthn`): a user signs up with a passkey and gets a session, signs out and back in, adds a
 *   second device that signs in too, removes the first (which then no longer does), and recovers the
 *   account with the link the backend mails — each a request a browser's page would make.
 */
import { randomBytes } from 'node:crypto';
import supertokens from 'supertokens-node';
import Session from 'supertokens-node/recipe/session';
import WebAuthn from 'supertokens-node/recipe/webauthn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalProcess } from '../helpers/local-process.js';
import { type AssertionJSON, type RegistrationJSON, SoftwareAuthenticator } from '../helpers/webauthn-authenticator.js';
import { RP } from '../helpers/webauthn-flows.js';
import { coreCaller } from './migrate-helpers.js';
import { AppServer, Browser, expectNoSecretInLogs, startRuntime, stopRuntime } from './sdk-app-helpers.js';

const API_KEY = `passkeys-e2e-${randomBytes(12).toString('hex')}`;
const APP_ID = `passkeys-${randomBytes(4).toString('hex')}`;
const WEB_APP_ID = `passkeys-web-${randomBytes(4).toString('hex')}`;

let runtime: LocalProcess | undefined;
let server: AppServer | undefined;
const core = coreCaller(() => runtime!, API_KEY);
const secrets: string[] = [];

beforeAll(async () => {
  runtime = await startRuntime(API_KEY);
  for (const appId of [APP_ID, WEB_APP_ID]) {
    const app = await core('PUT', '/recipe/multitenancy/app/v2', { appId });
    expect(app.status, app.text).toBe(200);
  }
  supertokens.init({
    appInfo: { appName: 'passkeys-e2e', apiDomain: 'https://api.example.com', websiteDomain: RP.origin },
    supertokens: { connectionURI: `${runtime.url}/appid-${APP_ID}`, apiKey: API_KEY },
    telemetry: false,
    recipeList: [WebAuthn.init(), Session.init()],
  });
  server = await AppServer.start(runtime, WEB_APP_ID, API_KEY, { recipes: 'emailpassword,session,webauthn' });
}, 120_000);

afterAll(async () => {
  server?.stop();
  if (runtime && secrets.length > 0) expectNoSecretInLogs(runtime, secrets);
  await stopRuntime(runtime);
});

const ceremony = { relyingPartyId: RP.id, relyingPartyName: RP.name, origin: RP.origin } as const;
const defaults = {
  residentKey: undefined,
  userVerification: undefined,
  userPresence: undefined,
  attestation: undefined,
  supportedAlgorithmIds: undefined,
  timeout: 60_000,
} as const;

describe('the WebAuthn recipe functions', () => {
  const authenticator = new SoftwareAuthenticator();

  async function signedUp(email: string) {
    const options = await WebAuthn.registerOptions({
      ...ceremony,
      ...defaults,
      email,
      displayName: undefined,
      tenantId: 'public',
    });
    expect(options.status).toBe('OK');
    if (options.status !== 'OK') throw new Error('no options');
    const credential = authenticator.create(options, RP.origin);
    const signedUp = await WebAuthn.signUp({
      webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId,
      credential: credential as never,
      session: undefined,
      shouldTryLinkingWithSessionUser: false,
      tenantId: 'public',
    });
    return { options, credential, signedUp };
  }

  async function signedIn(credentialId: string, auth = authenticator) {
    const options = await WebAuthn.signInOptions({
      ...ceremony,
      userVerification: undefined,
      userPresence: undefined,
      timeout: 60_000,
      tenantId: 'public',
    });
    if (options.status !== 'OK') throw new Error('no options');
    const credential = auth.get(credentialId, { challenge: options.challenge, relyingPartyId: RP.id }, RP.origin);
    return {
      options,
      result: await WebAuthn.signIn({
        webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId,
        credential: credential as never,
        session: undefined,
        shouldTryLinkingWithSessionUser: false,
        tenantId: 'public',
      }),
    };
  }

  it('signs up with a passkey, signs in with it, and the SDK reads the user it expects', async () => {
    const { options, credential, signedUp: up } = await signedUp('ada.passkey@example.com');
    expect(options.rp).toEqual({ id: RP.id, name: RP.name });
    expect(options.user.name).toBe('ada.passkey@example.com');
    expect(up.status).toBe('OK');
    if (up.status !== 'OK') return;
    expect(up.user.loginMethods).toHaveLength(1);
    expect(up.user.loginMethods[0]?.recipeId).toBe('webauthn');
    expect(up.user.loginMethods[0]?.webauthn?.credentialIds).toEqual([credential.id]);
    expect(up.user.webauthn.credentialIds).toEqual([credential.id]);
    expect(up.recipeUserId.getAsString()).toBe(up.user.loginMethods[0]?.recipeUserId.getAsString());

    const { result } = await signedIn(credential.id);
    expect(result.status).toBe('OK');
    if (result.status !== 'OK') return;
    expect(result.user.id).toBe(up.user.id);
    expect(result.recipeUserId.getAsString()).toBe(up.recipeUserId.getAsString());

    const found = await supertokens.listUsersByAccountInfo('public', { webauthn: { credentialId: credential.id } });
    expect(found.map((u) => u.id)).toEqual([up.user.id]);
    const byEmail = await supertokens.listUsersByAccountInfo('public', { email: 'ADA.passkey@example.com' });
    expect(byEmail.map((u) => u.id)).toEqual([up.user.id]);
  });

  it('answers the errors the SDK expects', async () => {
    const { credential, signedUp: first } = await signedUp('taken.passkey@example.com');
    expect(first.status).toBe('OK');
    const again = await signedUp('taken.passkey@example.com');
    expect(again.signedUp.status).toBe('EMAIL_ALREADY_EXISTS_ERROR');
    const { options } = await signedIn(credential.id);
    // A replay of an assertion: the counter says no.
    const replay = authenticator.get(
      credential.id,
      { challenge: options.challenge, relyingPartyId: RP.id },
      RP.origin,
      {
        counter: 1,
      },
    );
    const refused = await WebAuthn.verifyCredentials({
      webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId,
      credential: replay as never,
      tenantId: 'public',
    });
    expect(refused.status).toBe('INVALID_AUTHENTICATOR_ERROR');
    const unknown = await WebAuthn.verifyCredentials({
      webauthnGeneratedOptionsId: 'no-such-options',
      credential: replay as never,
      tenantId: 'public',
    });
    expect(unknown.status).toBe('OPTIONS_NOT_FOUND_ERROR');
    const invalid = await WebAuthn.signInOptions({
      ...ceremony,
      origin: 'https://elsewhere.test',
      userVerification: undefined,
      userPresence: undefined,
      timeout: undefined,
      tenantId: 'public',
    });
    expect(invalid).toEqual({ status: 'INVALID_OPTIONS_ERROR', reason: 'Origin does not match RelyingParty Id' });
  });

  it('keeps options the SDK reads again after a sign-in, and removes them on request', async () => {
    const { credential } = await signedUp('options.passkey@example.com');
    const { options, result } = await signedIn(credential.id);
    expect(result.status).toBe('OK');
    const read = await WebAuthn.getGeneratedOptions({
      webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId,
      tenantId: 'public',
    });
    expect(read).toMatchObject({
      status: 'OK',
      relyingPartyId: RP.id,
      origin: RP.origin,
      challenge: options.challenge,
    });
    expect(
      await WebAuthn.removeGeneratedOptions({
        webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId,
        tenantId: 'public',
      }),
    ).toEqual({ status: 'OK' });
    expect(
      (
        await WebAuthn.getGeneratedOptions({
          webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId,
          tenantId: 'public',
        })
      ).status,
    ).toBe('OPTIONS_NOT_FOUND_ERROR');
  });

  it('registers, lists, reads and removes passkeys; changes the email; recovers the account', async () => {
    const { signedUp: up, credential } = await signedUp('devices.passkey@example.com');
    if (up.status !== 'OK') throw new Error('sign-up failed');
    const recipeUserId = up.recipeUserId.getAsString();
    const laptop = new SoftwareAuthenticator();
    const options = await WebAuthn.registerOptions({
      ...ceremony,
      ...defaults,
      email: 'devices.passkey@example.com',
      displayName: undefined,
      tenantId: 'public',
    });
    if (options.status !== 'OK') throw new Error('no options');
    const second = laptop.create(options, RP.origin);
    const registered = await WebAuthn.registerCredential({
      recipeUserId,
      webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId,
      credential: second as never,
    });
    expect(registered.status).toBe('OK');
    const listed = await WebAuthn.listCredentials({ recipeUserId });
    expect(listed.credentials.map((c) => c.webauthnCredentialId)).toEqual([credential.id, second.id]);
    const got = await WebAuthn.getCredential({ recipeUserId, webauthnCredentialId: second.id });
    expect(got).toMatchObject({ status: 'OK', webauthnCredentialId: second.id, relyingPartyId: RP.id });
    if (got.status === 'OK') expect(got.recipeUserId.getAsString()).toBe(recipeUserId);
    expect((await signedIn(second.id, laptop)).result.status).toBe('OK');
    expect(await WebAuthn.removeCredential({ recipeUserId, webauthnCredentialId: credential.id })).toEqual({
      status: 'OK',
    });
    expect((await signedIn(credential.id)).result.status).toBe('CREDENTIAL_NOT_FOUND_ERROR');

    expect(
      await WebAuthn.updateUserEmail({ recipeUserId, email: 'moved.passkey@example.com', tenantId: 'public' }),
    ).toEqual({ status: 'OK' });
    expect((await supertokens.getUser(recipeUserId))?.emails).toEqual(['moved.passkey@example.com']);

    const token = await WebAuthn.generateRecoverAccountToken({
      tenantId: 'public',
      userId: recipeUserId,
      email: 'moved.passkey@example.com',
    });
    expect(token.status).toBe('OK');
    if (token.status !== 'OK') return;
    secrets.push(token.token);
    const owner = await WebAuthn.getUserFromRecoverAccountToken({ token: token.token, tenantId: 'public' });
    expect(owner.status).toBe('OK');
    if (owner.status === 'OK') expect(owner.recipeUserId?.getAsString()).toBe(recipeUserId);
    const consumed = await WebAuthn.consumeRecoverAccountToken({ token: token.token, tenantId: 'public' });
    expect(consumed).toEqual({ status: 'OK', userId: recipeUserId, email: 'moved.passkey@example.com' });
    expect((await WebAuthn.consumeRecoverAccountToken({ token: token.token, tenantId: 'public' })).status).toBe(
      'RECOVER_ACCOUNT_TOKEN_INVALID_ERROR',
    );
  });
});

describe('the SDK’s API layer in a real app', () => {
  /** The browser's side: the site's origin and relying party, as the app's SDK config makes them. */
  const site = () => {
    const port = new URL(server!.url).port;
    return { origin: `http://localhost:${port}`, rpId: 'localhost' };
  };

  async function signUpWithPasskey(browser: Browser, authenticator: SoftwareAuthenticator, email: string) {
    const options = await browser.request('POST', '/auth/webauthn/options/register', { email });
    expect(options.json.status, JSON.stringify(options.json)).toBe('OK');
    expect(options.json.rp.id).toBe('localhost');
    const credential: RegistrationJSON = authenticator.create(options.json, site().origin);
    return browser.request('POST', '/auth/webauthn/signup', {
      webauthnGeneratedOptionsId: options.json.webauthnGeneratedOptionsId,
      credential,
      shouldTryLinkingWithSessionUser: false,
    });
  }

  async function signInWithPasskey(browser: Browser, authenticator: SoftwareAuthenticator, credentialId: string) {
    const options = await browser.request('POST', '/auth/webauthn/options/signin', {});
    expect(options.json.status, JSON.stringify(options.json)).toBe('OK');
    const credential: AssertionJSON = authenticator.get(
      credentialId,
      { challenge: options.json.challenge, relyingPartyId: options.json.rpId },
      site().origin,
    );
    return browser.request('POST', '/auth/webauthn/signin', {
      webauthnGeneratedOptionsId: options.json.webauthnGeneratedOptionsId,
      credential,
      shouldTryLinkingWithSessionUser: false,
    });
  }

  it('signs up with a passkey, signs out, signs back in; a second device too; a removed one no longer', async () => {
    const phone = new SoftwareAuthenticator();
    const browser = new Browser(server!);
    const email = `web-${randomBytes(3).toString('hex')}@example.com`;
    const up = await signUpWithPasskey(browser, phone, email);
    expect(up.json.status, JSON.stringify(up.json)).toBe('OK');
    const me = await browser.me();
    expect(me.status).toBe(200);
    expect(me.json.userId).toBe(up.json.user.id);
    const [phoneKey] = [...phone.passkeys.keys()] as [string];

    expect((await browser.request('POST', '/auth/signout')).status).toBe(200);
    expect((await browser.me()).status).toBe(401);

    const back = await signInWithPasskey(browser, phone, phoneKey);
    expect(back.json.status, JSON.stringify(back.json)).toBe('OK');
    expect(back.json.user.id).toBe(up.json.user.id);
    expect((await browser.me()).json.userId).toBe(up.json.user.id);

    // A second device, registered from the signed-in session.
    const laptop = new SoftwareAuthenticator();
    const options = await browser.request('POST', '/auth/webauthn/options/register', { email });
    const second = laptop.create(options.json, site().origin);
    const added = await browser.request('POST', '/auth/webauthn/credential', {
      webauthnGeneratedOptionsId: options.json.webauthnGeneratedOptionsId,
      credential: second,
      recipeUserId: up.json.user.loginMethods[0].recipeUserId,
    });
    expect(added.json, JSON.stringify(added.json)).toEqual({ status: 'OK' });
    const listed = await browser.request('GET', '/auth/webauthn/credential/list');
    expect(listed.json.credentials.map((c: { webauthnCredentialId: string }) => c.webauthnCredentialId).sort()).toEqual(
      [phoneKey, second.id].sort(),
    );
    const onLaptop = new Browser(server!);
    expect((await signInWithPasskey(onLaptop, laptop, second.id)).json.status).toBe('OK');
    expect((await onLaptop.me()).json.userId).toBe(up.json.user.id);

    const removed = await browser.request('POST', '/auth/webauthn/credential/remove', {
      webauthnCredentialId: phoneKey,
    });
    expect(removed.json, JSON.stringify(removed.json)).toEqual({ status: 'OK' });
    const elsewhere = new Browser(server!);
    expect((await signInWithPasskey(elsewhere, phone, phoneKey)).json.status).toBe('INVALID_CREDENTIALS_ERROR');
    expect((await elsewhere.me()).status).toBe(401);
    expect((await signInWithPasskey(elsewhere, laptop, second.id)).json.status).toBe('OK');
    secrets.push(...(await browser.secrets()), ...(await onLaptop.secrets()));
  });

  it('recovers an account whose passkey is lost with the link the backend mails', async () => {
    const lost = new SoftwareAuthenticator();
    const browser = new Browser(server!);
    const email = `recover-${randomBytes(3).toString('hex')}@example.com`;
    const up = await signUpWithPasskey(browser, lost, email);
    expect(up.json.status).toBe('OK');

    const asked = await new Browser(server!).request('POST', '/auth/user/webauthn/reset/token', { email });
    expect(asked.json).toEqual({ status: 'OK' });
    const link = server!.lastMessageTo(email).recoverAccountLink;
    const token = new URL(link as string).searchParams.get('token') as string;
    secrets.push(token);

    const fresh = new SoftwareAuthenticator();
    const recovering = new Browser(server!);
    const options = await recovering.request('POST', '/auth/webauthn/options/register', { recoverAccountToken: token });
    expect(options.json.status, JSON.stringify(options.json)).toBe('OK');
    const credential = fresh.create(options.json, site().origin);
    const recovered = await recovering.request('POST', '/auth/user/webauthn/reset', {
      token,
      webauthnGeneratedOptionsId: options.json.webauthnGeneratedOptionsId,
      credential,
    });
    expect(recovered.json, JSON.stringify(recovered.json)).toMatchObject({ status: 'OK' });
    const signedIn = await signInWithPasskey(new Browser(server!), fresh, credential.id);
    expect(signedIn.json.status).toBe('OK');
    expect(signedIn.json.user.id).toBe(up.json.user.id);
  });
});
