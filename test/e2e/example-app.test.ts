/**
 * The example app (examples/app, `npm run example`, docs/example-app.md) in a real browser:
 * Debian's Chromium driven by playwright-core, the page on supertokens-web-js, the backend on
 * supertokens-node, against `npm start`'s runtime. Every step is a click or a keystroke on the
 * page, as a person would do it:
 *
 * - a user migrated from the shipped Auth0 sample with `auth-core migrate` signs in with the
 *   password they had at Auth0, reaches the account page (the protected API), and stays signed in
 *   across the expiry of the access token, which the app's configuration shortens to 2 s: the SDK
 *   refreshes the session by itself (the browser test also writes the sign-in page's screenshot,
 *   docs/images/example-app-sign-in.png);
 * - a new user signs up with a passkey on Chromium's virtual authenticator (DevTools protocol),
 *   signs out and signs in with it; a second authenticator registered to the same user signs in
 *   too; once its passkey is removed, it no longer does; with both lost, a recovery link by email
 *   registers a passkey on a third one;
 * - sign-out ends the session in the core: the protected API refuses the cookies the browser had
 *   (401), and the refresh token no longer refreshes;
 * - the pages an email opens (verification, password reset, a sign-in code) and Google sign-in
 *   (a stand-in for Google's endpoints) for the migrated Google user;
 * - the SDK's user dashboard API answers its key only, and lists the migrated users.
 *
 * One runtime, one example backend and one browser for the file. Skipped, with the reason, where
 * no Chromium is installed (`.ci/run` installs one).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type CDPSession, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bin/local/dynamodb.js';
import { COMMAND_ENTRY } from '../helpers/command.js';
import { LocalProcess, removeDir } from '../helpers/local-process.js';
import { coreCaller, REPO_ROOT, runCommand } from './migrate-helpers.js';
import { FakeGoogle, sleep, tag } from './sdk-app-helpers.js';

/** Where Debian's `chromium` package puts the browser; CHROMIUM_PATH overrides. */
const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(
  (p): p is string => p !== undefined && p !== '',
);
const executablePath = CANDIDATES.find((p) => existsSync(p));
if (!executablePath) {
  console.warn(
    `example-app.test.ts skipped: no Chromium at ${CANDIDATES.join(', ')} (install Debian's chromium package, or set CHROMIUM_PATH)`,
  );
}

/** The app the example backend serves (created with a short access-token lifetime where a test needs one). */
const APP_ID = 'example';
/** Seconds an access token lives while the refresh is shown. */
const SHORT_VALIDITY = 2;
/** Long enough for any token issued before it started to have expired. */
const expiry = () => sleep(SHORT_VALIDITY * 1000 + 250);
const SCREENSHOT = join(REPO_ROOT, 'docs', 'images', 'example-app-sign-in.png');
/** The example's user dashboard opens with this key. */
const DASHBOARD_API_KEY = `dashboard-${randomBytes(12).toString('hex')}`;
/** The users of docs/examples/auth0-users.ndjson, oldest first. */
const MIGRATED = [
  'auth0|65a1b2c3d4e5f60718293a01',
  'auth0|65a1b2c3d4e5f60718293a02',
  'google-oauth2|104857600123456789012',
];

/** `npm run example` as a person starts it, in its own process group (npm, then tsx). */
class ExampleApp {
  output = '';
  private constructor(
    readonly child: ChildProcess,
    readonly url: string,
    /** SIGKILLs the whole process group (npm, its shell, tsx and the server). */
    readonly stop: () => void,
  ) {}

  static async start(env: Readonly<Record<string, string>>): Promise<ExampleApp> {
    const port = await freePort();
    const child = spawn('npm', ['run', 'example'], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env, EXAMPLE_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    const stop = () => {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
    };
    const url = await new Promise<string>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`the example app did not start:\n${output}`)), 120_000);
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        const match = output.match(/Example app on (http:\/\/localhost:\d+)/);
        if (match) {
          clearTimeout(timer);
          ok(match[1] as string);
        }
      };
      child.stdout?.on('data', read);
      child.stderr?.on('data', read);
      child.once('exit', () => fail(new Error(`the example app exited:\n${output}`)));
    }).catch((error: unknown) => {
      stop();
      throw error;
    });
    const app = new ExampleApp(child, url, stop);
    app.output = output;
    const more = (chunk: Buffer) => {
      app.output += chunk.toString();
    };
    child.stdout?.on('data', more);
    child.stderr?.on('data', more);
    return app;
  }
}

describe.skipIf(!executablePath)('the example app in headless Chromium', () => {
  let core: LocalProcess;
  let google: FakeGoogle;
  let example: ExampleApp;
  let browser: Browser;
  let workDir: string;
  const coreCall = coreCaller(() => core, '');
  /** Uncaught errors of any page. */
  const pageErrors: string[] = [];

  async function setAccessTokenValidity(seconds: number): Promise<void> {
    const answer = await coreCall('PUT', '/recipe/multitenancy/app/v2', {
      appId: APP_ID,
      coreConfig: { access_token_validity: seconds },
    });
    expect(answer.status, answer.text).toBe(200);
  }

  async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    return { context, page };
  }

  /** The account page after a sign-in: its heading names the user; returns the user id it shows. */
  async function signedIn(page: Page, email: string): Promise<string> {
    const heading = page.getByRole('heading', { name: `Signed in as ${email}` });
    const alert = page.getByRole('alert');
    await heading.or(alert).first().waitFor();
    if (await alert.isVisible()) throw new Error(`not signed in: ${await alert.textContent()}`);
    expect(page.url()).toBe(`${example.url}/`);
    return (await shown(page, 'User id')) as string;
  }

  /** What the account page shows for one of its terms. */
  function shown(page: Page, term: string): Promise<string | null> {
    return page.locator(`dd[data-term="${term}"]`).textContent();
  }

  async function signOut(page: Page): Promise<void> {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${example.url}/auth`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  }

  /** The page's message line reads `text` (an action may take a while on a busy machine). */
  async function expectMessage(page: Page, role: 'status' | 'alert', text: string | RegExp): Promise<void> {
    const line = () => page.getByRole(role).textContent();
    if (typeof text === 'string') await expect.poll(line, { timeout: 30_000 }).toBe(text);
    else await expect.poll(line, { timeout: 30_000 }).toMatch(text);
  }

  function region(page: Page, name: string) {
    return page.getByRole('region', { name, exact: true });
  }

  async function signInWithPassword(page: Page, email: string, password: string): Promise<void> {
    const form = region(page, 'Email and password');
    await form.getByLabel('Email').fill(email);
    await form.getByLabel('Password').fill(password);
    await form.getByRole('button', { name: 'Sign in', exact: true }).click();
  }

  /** Opens the inbox page in the same browser and follows the newest email's link to `to`. */
  async function followEmailLink(page: Page, to: string, subject: string): Promise<void> {
    await page.goto(`${example.url}/inbox`);
    const message = page
      .getByRole('listitem')
      .filter({ hasText: `to ${to}` })
      .filter({ hasText: subject })
      .first();
    await message.getByRole('link').click();
  }

  beforeAll(async () => {
    google = await FakeGoogle.start();
    core = await LocalProcess.start({ args: ['--in-memory'], env: { API_KEYS: undefined } });
    workDir = mkdtempSync(join(tmpdir(), 'example-app-'));
    cpSync(join(REPO_ROOT, 'docs', 'examples'), join(workDir, 'docs', 'examples'), { recursive: true });
    // The backend needs the core only once a request comes: all three start together (and whatever
    // started is stopped after the file, even if another part failed).
    const started = await Promise.allSettled([
      chromium.launch({
        executablePath,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      }),
      ExampleApp.start({
        CORE_URL: `${core.url}/appid-${APP_ID}`,
        GOOGLE_CLIENT_ID: FakeGoogle.CLIENT_ID,
        GOOGLE_CLIENT_SECRET: google.clientSecret,
        GOOGLE_ISSUER: google.issuer,
        DASHBOARD_API_KEY,
      }),
      core.waitUntilReady(),
    ]);
    const [launched, app, ready] = started;
    if (launched.status === 'fulfilled') browser = launched.value;
    if (app.status === 'fulfilled') example = app.value;
    for (const part of [launched, app, ready]) if (part.status === 'rejected') throw part.reason;
    const created = await coreCall('PUT', '/recipe/multitenancy/app/v2', { appId: APP_ID });
    expect(created.status, created.text).toBe(200);
    // The README's migration, into the example's app.
    const migrated = await runCommand(
      [
        'migrate',
        'docs/examples/auth0-users.ndjson',
        '--from',
        'auth0',
        '--hashes',
        'docs/examples/auth0-hashes.ndjson',
        '--app',
        APP_ID,
      ],
      { AUTH_CORE_URL: core.url, AUTH_CORE_API_KEY: '' },
      { cwd: workDir, argsBefore: [join(REPO_ROOT, COMMAND_ENTRY)] },
    );
    expect(migrated.code, migrated.stdout + migrated.stderr).toBe(0);
    expect(migrated.stdout).toContain('3 imported, 0 failed at import');
  });

  afterEach(() => {
    expect(pageErrors.splice(0), 'uncaught errors on the page').toEqual([]);
  });

  afterAll(async () => {
    example?.stop();
    await browser?.close();
    await google?.close();
    await core?.dispose();
    if (core) removeDir(core.dataDir);
    if (workDir) removeDir(workDir);
  });

  it('signs in a user migrated from Auth0 with their old password and keeps them signed in across an access-token expiry', async () => {
    await setAccessTokenValidity(SHORT_VALIDITY);
    const { context, page } = await newPage();
    await page.goto(`${example.url}/`);
    // Not signed in: the account page sends the person to the sign-in page.
    await page.waitForURL(`${example.url}/auth`);
    await region(page, 'Google').waitFor();
    mkdirSync(join(REPO_ROOT, 'docs', 'images'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    await signInWithPassword(page, 'lin@example.com', 'not-her-password');
    await expectMessage(page, 'alert', 'Wrong email or password.');
    expect(page.url()).toBe(`${example.url}/auth`);

    await signInWithPassword(page, 'lin@example.com', 'lin-old-password');
    expect(await signedIn(page, 'lin@example.com')).toBe('auth0|65a1b2c3d4e5f60718293a01');
    expect(await shown(page, 'Signs in with')).toBe('password (lin@example.com, verified)');
    expect(await shown(page, 'Metadata')).toBe('{"user_metadata":{"plan":"gold"}}');
    const firstExpiry = await shown(page, 'Access token valid until');

    // The access token expires; the next call to the protected API goes through a refresh.
    await expiry();
    const refreshed = page.waitForResponse(
      (r) => r.url() === `${example.url}/api/auth/session/refresh` && r.request().method() === 'POST',
    );
    const called = page.waitForResponse((r) => r.url() === `${example.url}/api/me` && r.status() === 200);
    await page.getByRole('button', { name: 'Call the protected API' }).click();
    expect((await refreshed).status()).toBe(200);
    await called;
    await expectMessage(page, 'status', /^The protected API answered at /);
    expect(await shown(page, 'User id')).toBe('auth0|65a1b2c3d4e5f60718293a01');
    expect(await shown(page, 'Access token valid until')).not.toBe(firstExpiry);
    expect(page.url()).toBe(`${example.url}/`);

    // And a reload after the next expiry: still signed in.
    await expiry();
    await page.reload();
    expect(await signedIn(page, 'lin@example.com')).toBe('auth0|65a1b2c3d4e5f60718293a01');
    await context.close();
  });

  it('signs a new user up with a passkey, out, and in again; a second authenticator signs in too until its passkey is removed; recovery registers a new one', async () => {
    await setAccessTokenValidity(3600);
    const { context, page } = await newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable', { enableUI: false });
    const laptop = await addAuthenticator(cdp, 'internal');
    const email = `ada-${tag()}@example.com`;

    await page.goto(`${example.url}/auth`);
    const passkey = region(page, 'Passkey');
    await passkey.getByLabel('Email').fill(email);
    await passkey.getByRole('button', { name: 'Sign up with a passkey' }).click();
    const userId = await signedIn(page, email);
    expect(await shown(page, 'Signs in with')).toBe(`passkey (${email}, not verified)`);
    const passkeys = region(page, 'Passkeys').getByRole('listitem');
    await expect
      .poll(() => passkeys.allTextContents(), { timeout: 30_000 })
      .toEqual([expect.stringContaining(shortId(await credentialOf(cdp, laptop)))]);

    await signOut(page);
    await region(page, 'Passkey').getByRole('button', { name: 'Sign in with a passkey' }).click();
    expect(await signedIn(page, email)).toBe(userId);

    // A security key joins; while it is used, the laptop's authenticator does not answer.
    const securityKey = await addAuthenticator(cdp, 'usb');
    await setPresence(cdp, laptop, false);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await expectMessage(page, 'status', 'Passkey added.');
    const keyCredential = await credentialOf(cdp, securityKey);
    await expect.poll(() => passkeys.count(), { timeout: 30_000 }).toBe(2);
    expect(await passkeys.nth(1).textContent()).toContain(shortId(keyCredential));

    await signOut(page);
    await region(page, 'Passkey').getByRole('button', { name: 'Sign in with a passkey' }).click();
    expect(await signedIn(page, email)).toBe(userId);

    await page.getByRole('button', { name: `Remove passkey ${shortId(keyCredential)}` }).click();
    await expectMessage(page, 'status', `Passkey ${shortId(keyCredential)} removed.`);
    await expect.poll(() => passkeys.count(), { timeout: 30_000 }).toBe(1);

    await signOut(page);
    await region(page, 'Passkey').getByRole('button', { name: 'Sign in with a passkey' }).click();
    await expectMessage(page, 'alert', 'This passkey is not registered with any account.');
    expect(page.url()).toBe(`${example.url}/auth`);

    await setPresence(cdp, securityKey, false);
    await setPresence(cdp, laptop, true);
    await region(page, 'Passkey').getByRole('button', { name: 'Sign in with a passkey' }).click();
    expect(await signedIn(page, email)).toBe(userId);

    // The laptop and the key are lost: a recovery link by email registers a passkey on a new phone.
    await signOut(page);
    for (const authenticatorId of [laptop, securityKey]) {
      await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
    }
    const phone = await addAuthenticator(cdp, 'internal');
    await region(page, 'Passkey').getByLabel('Email').fill(email);
    await region(page, 'Passkey').getByRole('button', { name: 'Lost your passkey?' }).click();
    await expectMessage(page, 'status', `If ${email} has a passkey account, a recovery link is in the inbox.`);
    await followEmailLink(page, email, 'Register a new passkey');
    await page.getByRole('button', { name: 'Register a new passkey' }).click();
    await expectMessage(page, 'status', 'Your new passkey is registered: sign in with it.');
    await page.goto(`${example.url}/auth`);
    await region(page, 'Passkey').getByRole('button', { name: 'Sign in with a passkey' }).click();
    expect(await signedIn(page, email)).toBe(userId);
    await expect
      .poll(() => passkeys.allTextContents(), { timeout: 30_000 })
      .toContainEqual(expect.stringContaining(shortId(await credentialOf(cdp, phone))));
    await context.close();
  });

  it('signs out: the core ends the session, the protected API refuses the old cookies and the refresh token no longer refreshes', async () => {
    await setAccessTokenValidity(3600);
    const { context, page } = await newPage();
    await page.goto(`${example.url}/auth`);
    await signInWithPassword(page, 'marie@example.com', 'marie-old-password');
    expect(await signedIn(page, 'marie@example.com')).toBe('auth0|65a1b2c3d4e5f60718293a02');
    const cookies = await context.cookies();
    const cookie = (name: string) => cookies.find((c) => c.name === name)?.value;
    const accessToken = cookie('sAccessToken');
    const refreshToken = cookie('sRefreshToken');
    expect(accessToken).toEqual(expect.any(String));
    expect(refreshToken).toEqual(expect.any(String));
    // The cookies work from outside the browser while the session lives.
    const before = await fetch(`${example.url}/api/me`, { headers: { cookie: `sAccessToken=${accessToken}` } });
    expect(before.status).toBe(200);

    await signOut(page);
    expect(await page.evaluate(async () => (await fetch('/api/me')).status)).toBe(401);
    const replayed = await fetch(`${example.url}/api/me`, { headers: { cookie: `sAccessToken=${accessToken}` } });
    expect(replayed.status).toBe(401);
    expect(await replayed.json()).toEqual({ message: 'unauthorised' });
    const refresh = await fetch(`${example.url}/api/auth/session/refresh`, {
      method: 'POST',
      headers: { cookie: `sRefreshToken=${refreshToken}` },
    });
    expect(refresh.status).toBe(401);
    await context.close();
  });

  it('opens the links and codes the app emails, and signs the migrated Google user in through Google', async () => {
    await setAccessTokenValidity(3600);
    const { context, page } = await newPage();

    // Marie was migrated unverified: the account page offers the verification email.
    await page.goto(`${example.url}/auth`);
    await signInWithPassword(page, 'marie@example.com', 'marie-old-password');
    await signedIn(page, 'marie@example.com');
    await page.getByRole('button', { name: 'Verify my email' }).click();
    await expectMessage(page, 'status', 'A verification link is in the inbox.');
    await followEmailLink(page, 'marie@example.com', 'Verify your email');
    await expectMessage(page, 'status', 'Your email is verified.');
    await page.goto(`${example.url}/`);
    await signedIn(page, 'marie@example.com');
    expect(await shown(page, 'Signs in with')).toBe('password (marie@example.com, verified)');
    await signOut(page);

    // A new user forgets the password they signed up with.
    const email = `grace-${tag()}@example.com`;
    const signUp = region(page, 'Email and password');
    await signUp.getByLabel('Email').fill(email);
    await signUp.getByLabel('Password').fill('first-pass-1');
    await signUp.getByRole('button', { name: 'Sign up' }).click();
    await signedIn(page, email);
    await signOut(page);
    await region(page, 'Email and password').getByLabel('Email').fill(email);
    await region(page, 'Email and password').getByRole('button', { name: 'Forgot your password?' }).click();
    await expectMessage(page, 'status', `If ${email} has an account, a reset link is in the inbox.`);
    await followEmailLink(page, email, 'Reset your password');
    await page.getByLabel('New password').fill('second-pass-2');
    await page.getByRole('button', { name: 'Change my password' }).click();
    await expectMessage(page, 'status', 'Your password is changed: sign in with it.');
    await page.goto(`${example.url}/auth`);
    await signInWithPassword(page, email, 'first-pass-1');
    await expectMessage(page, 'alert', 'Wrong email or password.');
    await signInWithPassword(page, email, 'second-pass-2');
    await signedIn(page, email);
    await signOut(page);

    // A code by email (passwordless): typed in from the inbox.
    const codeUser = `hopper-${tag()}@example.com`;
    const codeRegion = region(page, 'Code by email');
    await codeRegion.getByLabel('Email').fill(codeUser);
    await codeRegion.getByRole('button', { name: 'Email me a code' }).click();
    await expectMessage(page, 'status', `A code and a sign-in link for ${codeUser} are in the inbox.`);
    const inbox = await context.newPage();
    await inbox.goto(`${example.url}/inbox`);
    const code = await inbox
      .getByRole('listitem')
      .filter({ hasText: `to ${codeUser}` })
      .first()
      .locator('code')
      .textContent();
    await inbox.close();
    await codeRegion.getByLabel('Code').fill(code ?? '');
    await codeRegion.getByRole('button', { name: 'Sign in with the code' }).click();
    await signedIn(page, codeUser);
    expect(await shown(page, 'Signs in with')).toBe(`code by email (${codeUser}, verified)`);
    await signOut(page);

    // The user Auth0 knew through Google signs in through Google as the same user.
    google.consentAs({ sub: '104857600123456789012', email: 'kofi@example.com', emailVerified: true });
    await region(page, 'Google').getByRole('button', { name: 'Continue with Google' }).click();
    expect(await signedIn(page, 'kofi@example.com')).toBe('google-oauth2|104857600123456789012');
    expect(await shown(page, 'Signs in with')).toBe('google (kofi@example.com, verified)');
    expect(google.refused).toEqual([]);
    await context.close();
  });

  it("serves the SDK's user dashboard to the holder of its key only, listing the migrated users", async () => {
    const users = `${example.url}/api/auth/dashboard/api/users?limit=10&timeJoinedOrder=ASC`;
    expect((await fetch(users)).status).toBe(401);
    expect((await fetch(users, { headers: { authorization: 'Bearer not-the-key' } })).status).toBe(401);
    const listed = await fetch(users, { headers: { authorization: `Bearer ${DASHBOARD_API_KEY}` } });
    expect(listed.status).toBe(200);
    const body = (await listed.json()) as { status: string; users: { id: string; emails: string[] }[] };
    expect(body.status).toBe('OK');
    expect(body.users.slice(0, 3).map((u) => u.id)).toEqual(MIGRATED);
    expect(body.users[0]?.emails).toEqual(['lin@example.com']);
    expect(example.output).not.toContain(DASHBOARD_API_KEY);
  });
});

/** A virtual authenticator that answers at once, as if touched: a platform one or a USB security key. */
async function addAuthenticator(cdp: CDPSession, transport: 'internal' | 'usb'): Promise<string> {
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport,
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return authenticatorId;
}

/** Whether the authenticator answers (a person touching it) or leaves the request to another. */
async function setPresence(cdp: CDPSession, authenticatorId: string, enabled: boolean): Promise<void> {
  await cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId, enabled });
}

/** The id of the one credential the authenticator holds, base64url as the SDK shows it. */
async function credentialOf(cdp: CDPSession, authenticatorId: string): Promise<string> {
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  expect(credentials).toHaveLength(1);
  return Buffer.from(credentials[0]!.credentialId, 'base64').toString('base64url');
}

/** As the account page shows a credential id (examples/app/web/account.ts). */
function shortId(credentialId: string): string {
  return credentialId.slice(0, 12);
}
