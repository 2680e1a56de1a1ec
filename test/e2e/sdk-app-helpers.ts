/**
 * What the real-app end-to-end tests (sdk-app*.test.ts) share: the local runtime, one Express
 * backend per app as a child process (fixtures/sdk-app-server.ts) with the outbox it delivers
 * emails and texts to, a browser (cookie jar + anti-CSRF token) that speaks only to the app's
 * HTTP API, a stand-in for Google's token and user-info endpoints, and the check that no secret
 * reached the runtime's logs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { CookieJar } from 'tough-cookie';
import { expect } from 'vitest';
import { jsonOr } from '../helpers/json.js';
import { LocalProcess, removeDir } from '../helpers/local-process.js';

const SERVER = resolve(import.meta.dirname, 'fixtures', 'sdk-app-server.ts');
const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const tag = () => randomBytes(3).toString('hex');

/**
 * `npm start`'s runtime in memory with an API key, logging at debug level (so the check that no
 * secret reaches a log line covers everything it can write), bcrypt at its cheapest cost.
 */
export async function startRuntime(apiKey: string): Promise<LocalProcess> {
  const runtime = await LocalProcess.start({
    args: ['--in-memory'],
    env: { API_KEYS: apiKey, BCRYPT_LOG_ROUNDS: '4', LOG_LEVEL: 'debug' },
  });
  try {
    await runtime.waitUntilReady();
  } catch (error) {
    await stopRuntime(runtime);
    throw error;
  }
  return runtime;
}

export async function stopRuntime(runtime: LocalProcess | undefined): Promise<void> {
  if (!runtime) return;
  await runtime.dispose();
  removeDir(runtime.dataDir);
}

/** Every line the runtime wrote holds none of `secrets` (each at least 8 characters) and no key material. */
export function expectNoSecretInLogs(runtime: LocalProcess, secrets: Iterable<string>): void {
  const logs = [runtime.stdout, runtime.stderr].join('\n');
  let checked = 0;
  for (const secret of new Set(secrets)) {
    expect(secret.length, 'too short to look for').toBeGreaterThanOrEqual(8);
    expect(logs.includes(secret), `a secret reached the runtime's logs: ${secret.slice(0, 4)}…`).toBe(false);
    checked += 1;
  }
  expect(checked).toBeGreaterThan(0);
  expect(logs).not.toMatch(/PRIVATE KEY|"d":"|sealed/);
}

/** One message the app's backend sent (fixtures/sdk-app-server.ts writes them to its outbox). */
export interface Delivered {
  readonly channel: 'email' | 'sms';
  readonly type: string;
  readonly email?: string;
  readonly phoneNumber?: string;
  readonly user?: { id: string; recipeUserId: { recipeUserId: string } | string; email: string };
  readonly passwordResetLink?: string;
  readonly emailVerifyLink?: string;
  readonly userInputCode?: string;
  readonly urlWithLinkCode?: string;
  /** A passkey recovery email's link (`…?token=…`). */
  readonly recoverAccountLink?: string;
  readonly preAuthSessionId?: string;
  readonly codeLifetime?: number;
}

export interface AppServerOptions {
  /** `SDK_APP_RECIPES` of the fixture. */
  readonly recipes: string;
  /** Extra environment (e.g. the Google stand-in's issuer). */
  readonly env?: Readonly<Record<string, string>>;
}

/** One app's Express backend (fixtures/sdk-app-server.ts) as a child process. */
export class AppServer {
  output = '';
  private constructor(
    readonly child: ChildProcess,
    readonly url: string,
    private readonly dir: string,
  ) {}

  private get outboxFile(): string {
    return join(this.dir, 'outbox.ndjson');
  }

  static async start(
    runtime: LocalProcess,
    appId: string,
    apiKey: string,
    options: AppServerOptions,
  ): Promise<AppServer> {
    const dir = mkdtempSync(join(tmpdir(), 'sdk-app-'));
    const child = spawn(process.execPath, ['--import', 'tsx', SERVER], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        CORE_URL: `${runtime.url}/appid-${appId}`,
        CORE_API_KEY: apiKey,
        SDK_APP_RECIPES: options.recipes,
        SDK_APP_OUTBOX: join(dir, 'outbox.ndjson'),
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const port = await new Promise<number>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`app server did not start:\n${output}`)), 60_000);
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        const match = output.match(/listening (\d+)/);
        if (match) {
          clearTimeout(timer);
          ok(Number(match[1]));
        }
      };
      child.stdout?.on('data', read);
      child.stderr?.on('data', read);
      child.once('exit', () => fail(new Error(`app server exited:\n${output}`)));
    });
    const server = new AppServer(child, `http://127.0.0.1:${port}`, dir);
    server.output = output;
    const more = (chunk: Buffer) => {
      server.output += chunk.toString();
    };
    child.stdout?.on('data', more);
    child.stderr?.on('data', more);
    return server;
  }

  /** Everything the backend has emailed or texted so far, oldest first. */
  outbox(): Delivered[] {
    if (!existsSync(this.outboxFile)) return [];
    return readFileSync(this.outboxFile, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Delivered);
  }

  /** The newest message to `to` (an email or a phone number); fails if there is none. */
  lastMessageTo(to: string): Delivered {
    const message = this.outbox()
      .filter((m) => m.email === to || m.phoneNumber === to || m.user?.email === to)
      .at(-1);
    if (!message) throw new Error(`nothing was sent to ${to}; outbox: ${this.outbox().length} messages`);
    return message;
  }

  stop(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface Reply {
  readonly status: number;
  readonly json: any;
}

const fields = (values: Record<string, string>) => Object.entries(values).map(([id, value]) => ({ id, value }));

/**
 * What a browser keeps for one site: cookies (tough-cookie) and the anti-CSRF token the SDK hands
 * out. It reaches the app only through its HTTP API, as the SDK's frontend would.
 */
export class Browser {
  jar = new CookieJar();
  antiCsrf: string | undefined;

  constructor(readonly server: AppServer) {}

  async request(method: string, path: string, body?: unknown): Promise<Reply> {
    const url = `${this.server.url}${path}`;
    const headers: Record<string, string> = { 'st-auth-mode': 'cookie', rid: 'anti-csrf' };
    const cookie = await this.jar.getCookieString(url);
    if (cookie) headers.cookie = cookie;
    if (this.antiCsrf) headers['anti-csrf'] = this.antiCsrf;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(url, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    for (const setCookie of response.headers.getSetCookie()) await this.jar.setCookie(setCookie, url);
    const antiCsrf = response.headers.get('anti-csrf');
    if (antiCsrf) this.antiCsrf = antiCsrf;
    const text = await response.text();
    return { status: response.status, json: jsonOr(text, text) };
  }

  async cookie(name: string, path = '/'): Promise<string | undefined> {
    const cookies = await this.jar.getCookies(`${this.server.url}${path}`);
    return cookies.find((c) => c.key === name)?.value;
  }

  /** Every token and cookie value it holds (for the log check). */
  async secrets(): Promise<string[]> {
    const cookies = [
      ...(await this.jar.getCookies(`${this.server.url}/auth/session/refresh`)),
      ...(await this.jar.getCookies(`${this.server.url}/`)),
    ];
    return [...cookies.map((c) => c.value), ...(this.antiCsrf ? [this.antiCsrf] : [])].filter((v) => v.length > 10);
  }

  signUp(email: string, password: string) {
    return this.request('POST', '/auth/signup', { formFields: fields({ email, password }) });
  }

  signIn(email: string, password: string) {
    return this.request('POST', '/auth/signin', { formFields: fields({ email, password }) });
  }

  /** The session's user as the app's protected route sees it. */
  me() {
    return this.request('GET', '/protected');
  }

  /** "Forgot password": the backend emails a link with a reset token. */
  askPasswordReset(email: string) {
    return this.request('POST', '/auth/user/password/reset/token', { formFields: fields({ email }) });
  }

  /** The reset page's form: the token from the link and the new password. */
  resetPassword(token: string, newPassword: string) {
    return this.request('POST', '/auth/user/password/reset', {
      method: 'token',
      token,
      formFields: fields({ password: newPassword }),
    });
  }

  /** "Send me the verification email again" (needs the session). */
  askEmailVerification() {
    return this.request('POST', '/auth/user/email/verify/token');
  }

  /** The verification page, with the token from the link (the session is sent if there is one). */
  verifyEmail(token: string) {
    return this.request('POST', '/auth/user/email/verify', { method: 'token', token });
  }

  /** Back from the provider with `code` in the query string: the SDK exchanges it and signs in or up. */
  signInWithGoogle(code: string) {
    return this.request('POST', '/auth/signinup', {
      thirdPartyId: 'google',
      redirectURIInfo: {
        redirectURIOnProviderDashboard: `${this.server.url}/auth/callback/google`,
        redirectURIQueryParams: { code },
      },
    });
  }

  /** Passwordless step 1: the backend sends a code and a link to the email or phone number. */
  createCode(contact: { email: string } | { phoneNumber: string }) {
    return this.request('POST', '/auth/signinup/code', contact);
  }

  /** Passwordless step 2 with the code the user typed. */
  consumeCode(created: { preAuthSessionId: string; deviceId: string }, userInputCode: string) {
    return this.request('POST', '/auth/signinup/code/consume', {
      preAuthSessionId: created.preAuthSessionId,
      deviceId: created.deviceId,
      userInputCode,
    });
  }

  /** Passwordless step 2 through the magic link (its fragment is the link code). */
  consumeLink(urlWithLinkCode: string) {
    const url = new URL(urlWithLinkCode);
    return this.request('POST', '/auth/signinup/code/consume', {
      preAuthSessionId: url.searchParams.get('preAuthSessionId'),
      linkCode: url.hash.slice(1),
    });
  }
}

/** The `token` query parameter of a reset or verification link. */
export function tokenOf(link: string | undefined): string {
  const token = link ? new URL(link).searchParams.get('token') : null;
  if (!token) throw new Error(`no token in ${link}`);
  return token;
}

/** A person as the OpenID Connect provider knows them. */
export interface ProviderAccount {
  readonly sub: string;
  readonly email: string;
  readonly emailVerified: boolean;
}

/**
 * A stand-in for Google's OAuth endpoints on a loopback port: OpenID discovery, the authorization
 * endpoint (a browser sent there comes straight back to the app with a code, as if the person
 * `consentAs` names had consented), the token endpoint
 * (an authorization code, once, for an access token and an ID token signed with its own RS256 key;
 * the client must authenticate), its keys (`jwks_uri`) and the user-info endpoint (the account
 * behind a bearer token). The app's Google provider is pointed at it (`SDK_APP_OIDC_ISSUER`) and
 * reads the user as it reads Google's: `sub`, `email` and `email_verified` from the verified ID
 * token. `codeFor` plays the user consenting at Google.
 */
export class FakeGoogle {
  static readonly CLIENT_ID = 'sdk-app-client';
  readonly clientSecret = `client-secret-${randomBytes(16).toString('hex')}`;
  /** Every code, access token and ID token handed out (none may reach the core's logs). */
  readonly issued: string[] = [];
  /** Token requests refused, with the reason (a test asserts there were none). */
  readonly refused: string[] = [];
  private readonly codes = new Map<string, ProviderAccount>();
  private readonly tokens = new Map<string, ProviderAccount>();
  private consenting: ProviderAccount | undefined;

  private constructor(
    private readonly server: Server,
    readonly issuer: string,
    private readonly signingKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'],
    private readonly publicJwk: object,
  ) {}

  static async start(): Promise<FakeGoogle> {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const publicJwk = { ...(await exportJWK(publicKey)), kid: 'stand-in-1', alg: 'RS256', use: 'sig' };
    let google: FakeGoogle | undefined;
    const server = createServer((req, res) => {
      void google!.answer(req).then(({ status, body, location }) => {
        res.writeHead(status, location ? { location } : { 'content-type': 'application/json' });
        res.end(location ? undefined : JSON.stringify(body));
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    google = new FakeGoogle(server, `http://127.0.0.1:${port}`, privateKey, publicJwk);
    return google;
  }

  /** The environment the app's backend needs to use this provider as Google. */
  get env(): Record<string, string> {
    return { SDK_APP_OIDC_ISSUER: this.issuer, SDK_APP_OIDC_CLIENT_SECRET: this.clientSecret };
  }

  /** The person consents: Google redirects back to the app with this one-time code. */
  codeFor(account: ProviderAccount): string {
    const code = `code-${randomBytes(16).toString('hex')}`;
    this.codes.set(code, account);
    this.issued.push(code);
    return code;
  }

  /** The person who consents at the authorization endpoint from now on (a browser sign-in). */
  consentAs(account: ProviderAccount): void {
    this.consenting = account;
  }

  close(): Promise<void> {
    return new Promise((done) => {
      this.server.close(() => done());
      // A browser may keep its connection open.
      this.server.closeAllConnections();
    });
  }

  private async answer(req: IncomingMessage): Promise<{ status: number; body?: unknown; location?: string }> {
    const url = new URL(req.url ?? '/', this.issuer);
    if (req.method === 'GET' && url.pathname === '/.well-known/openid-configuration') {
      return {
        status: 200,
        body: {
          issuer: this.issuer,
          authorization_endpoint: `${this.issuer}/authorize`,
          token_endpoint: `${this.issuer}/token`,
          userinfo_endpoint: `${this.issuer}/userinfo`,
          jwks_uri: `${this.issuer}/certs`,
        },
      };
    }
    if (req.method === 'GET' && url.pathname === '/certs') return { status: 200, body: { keys: [this.publicJwk] } };
    if (req.method === 'GET' && url.pathname === '/authorize') {
      const redirectUri = url.searchParams.get('redirect_uri');
      const problem =
        url.searchParams.get('client_id') !== FakeGoogle.CLIENT_ID
          ? 'client_id'
          : url.searchParams.get('response_type') !== 'code'
            ? 'response_type'
            : !redirectUri
              ? 'redirect_uri'
              : !this.consenting
                ? 'nobody consents'
                : undefined;
      if (problem || !redirectUri || !this.consenting) {
        this.refused.push(problem ?? 'unknown');
        return { status: 400, body: { error: 'invalid_request' } };
      }
      const back = new URL(redirectUri);
      back.searchParams.set('code', this.codeFor(this.consenting));
      const state = url.searchParams.get('state');
      if (state) back.searchParams.set('state', state);
      return { status: 302, location: back.toString() };
    }
    if (req.method === 'POST' && url.pathname === '/token') {
      let raw = '';
      for await (const chunk of req) raw += String(chunk);
      const form = new URLSearchParams(raw);
      const code = form.get('code') ?? '';
      const account = this.codes.get(code);
      const problem =
        form.get('grant_type') !== 'authorization_code'
          ? 'grant_type'
          : form.get('client_id') !== FakeGoogle.CLIENT_ID || form.get('client_secret') !== this.clientSecret
            ? 'client authentication'
            : !form.get('redirect_uri')
              ? 'redirect_uri'
              : !account
                ? 'unknown or used code'
                : undefined;
      if (problem || !account) {
        this.refused.push(problem ?? 'unknown');
        return { status: 400, body: { error: 'invalid_grant' } };
      }
      this.codes.delete(code);
      const accessToken = `ya29.${randomBytes(24).toString('hex')}`;
      this.tokens.set(accessToken, account);
      const idToken = await new SignJWT({ email: account.email, email_verified: account.emailVerified })
        .setProtectedHeader({ alg: 'RS256', kid: 'stand-in-1' })
        .setIssuer(this.issuer)
        .setAudience(FakeGoogle.CLIENT_ID)
        .setSubject(account.sub)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(this.signingKey);
      this.issued.push(accessToken, idToken);
      return {
        status: 200,
        body: { access_token: accessToken, id_token: idToken, token_type: 'Bearer', expires_in: 3599 },
      };
    }
    if (req.method === 'GET' && url.pathname === '/userinfo') {
      const account = this.tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (!account) return { status: 401, body: { error: 'invalid_token' } };
      return { status: 200, body: { sub: account.sub, email: account.email, email_verified: account.emailVerified } };
    }
    return { status: 404, body: { error: 'not_found' } };
  }
}
