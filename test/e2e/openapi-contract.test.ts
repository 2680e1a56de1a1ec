/**
 * The API description (docs/openapi/openapi.yaml) against the running core: the local runtime as
 * a real process (`npm start`'s), with API keys, account linking, MFA and OAuth2 client
 * management on, is sent at least one request per operation of the description — every route of
 * the manifest under each of the four prefix forms, the `$default` paths and the runtime's own
 * /openapi.json and /openapi.html — and
 * every response it gives (setup calls included) is validated against the description: status,
 * content type, the headers it declares, and the body with a JSON Schema 2020-12 validator
 * (test/helpers/openapi.ts). The test ends by checking that every operation was exercised, and
 * that every route answered 200 at least once.
 */
import { TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_ONLY_PATHS, LOCAL_PATHS } from '../../bin/local/openapi.js';
import { LOCAL_RUNTIME_PATHS } from '../../bin/openapi/build.js';
import { ROUTES } from '../../functions/routes.js';
import { jsonOr } from '../helpers/json.js';
import { LocalProcess, removeDir } from '../helpers/local-process.js';
import { type Exchange, FORMS, type Form, openApiValidator } from '../helpers/openapi.js';
import { SoftwareAuthenticator } from '../helpers/webauthn-authenticator.js';
import { RP } from '../helpers/webauthn-flows.js';

const API_KEY = 'contract-test-key-0123456789';
const validator = openApiValidator();

let core: LocalProcess;
const exchanges: Exchange[] = [];
const problems: string[] = [];

interface SendOptions {
  readonly body?: unknown;
  readonly rawBody?: Buffer | string;
  readonly headers?: Record<string, string>;
  readonly query?: Record<string, string>;
  /** Send without the API key. */
  readonly noKey?: boolean;
  /** The status the scenario expects (checked besides the description). */
  readonly expect?: number;
}

interface Reply {
  readonly status: number;
  readonly text: string;
  readonly json: any;
  readonly headers: Headers;
}

/** Sends one request to the core, records it and validates the answer against the description. */
async function send(method: string, path: string, options: SendOptions = {}): Promise<Reply> {
  const query = options.query ? `?${new URLSearchParams(options.query)}` : '';
  const headers: Record<string, string> = { ...(options.noKey ? {} : { 'api-key': API_KEY }), ...options.headers };
  let body: Buffer | string | undefined = options.rawBody;
  if (body === undefined && options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await core.fetch(`${path}${query}`, { method, headers, body });
  const text = await response.text();
  const json = jsonOr(text);
  const exchange: Exchange = {
    method,
    path,
    status: response.status,
    headers: Object.fromEntries(response.headers),
    text,
    requestHeaders: headers,
    // A JSON body the core accepted must be one the description accepts.
    ...(options.body !== undefined ? { requestBody: JSON.stringify(options.body) } : {}),
  };
  exchanges.push(exchange);
  for (const problem of validator.validate(exchange))
    problems.push(`${method} ${path}${query} → ${response.status}: ${problem}`);
  if (options.expect !== undefined && response.status !== options.expect) {
    problems.push(
      `${method} ${path}${query} answered ${response.status}, expected ${options.expect}: ${text.slice(0, 300)}`,
    );
  }
  return { status: response.status, text, json, headers: response.headers };
}

const APP = 'oa-contract';
/** An app with the OAuth2 provider switch off (402 on its client routes). */
const OAUTH_OFF_APP = 'oa-contract-oauth-off';
const TENANT = 'oa-t1';
const ALL_FACTORS = ['emailpassword', 'thirdparty', 'otp-email', 'otp-phone', 'link-email', 'link-phone'];

/** One prefix form's view: where app-wide and tenant routes are called, and unique names. */
class Ctx {
  constructor(readonly form: Form) {}
  get appId(): string {
    return this.form === 'bare' || this.form === 'tenant' ? 'public' : APP;
  }
  get tenantId(): string {
    return this.form === 'tenant' || this.form === 'app-tenant' ? TENANT : 'public';
  }
  private prefix(tenantSegment: string): string {
    const app = this.form === 'app' || this.form === 'app-tenant' ? `/appid-${APP}` : '';
    const tenant = this.form === 'tenant' || this.form === 'app-tenant' ? `/${tenantSegment}` : '';
    return `${app}${tenant}`;
  }
  /**
   * A path of an app-wide route: in the tenant forms the tenant segment is `public`, except for an
   * app-specific API (scope 'app') in the app-and-tenant form: that form only refuses (the
   * fallback answers it, see 'answers the app-and-tenant form of every app-specific API'), so the
   * scenario calls the app's path.
   */
  appPath(method: string, path: string): string {
    const appSpecific = ROUTES.some((r) => r.method === method && r.path === path && r.scope === 'app');
    return this.form === 'app-tenant' && appSpecific ? `/appid-${APP}${path}` : `${this.prefix('public')}${path}`;
  }
  /** A path of a tenant route: in the tenant forms the tenant segment is the test tenant. */
  tenantPath(path: string): string {
    return `${this.prefix(TENANT)}${path}`;
  }
  app(method: string, path: string, options?: SendOptions): Promise<Reply> {
    return send(method, this.appPath(method, path), options);
  }
  tenant(method: string, path: string, options?: SendOptions): Promise<Reply> {
    return send(method, this.tenantPath(path), options);
  }
  /** A name unique to this form (and `what`). */
  name(what: string): string {
    return `${what}-${this.form}`;
  }
  email(what: string): string {
    return `${what}-${this.form}@example.com`;
  }
  /** Registration options for a passkey of `email` in the test tenant. */
  async passkeyOptions(email: string): Promise<any> {
    const reply = await this.tenant('POST', '/recipe/webauthn/options/register', {
      body: { ...PASSKEY_SITE, email },
      expect: 200,
    });
    return reply.json;
  }
  async passkeySignInOptions(): Promise<any> {
    return (await this.tenant('POST', '/recipe/webauthn/options/signin', { body: PASSKEY_SITE, expect: 200 })).json;
  }
  /** A webauthn user (unique to this form and `what`) signed up with a passkey of the shared authenticator. */
  async passkeyUser(what: string): Promise<{ id: string; email: string; credentialId: string }> {
    const email = this.email(what);
    const options = await this.passkeyOptions(email);
    const credential = PASSKEYS.create(options, RP.origin);
    const reply = await this.tenant('POST', '/recipe/webauthn/signup', {
      body: { webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId, credential },
      expect: 200,
    });
    return { id: reply.json.recipeUserId, email, credentialId: credential.id };
  }
  async signUp(what: string): Promise<{ id: string; email: string }> {
    const email = this.email(what);
    const reply = await this.tenant('POST', '/recipe/signup', {
      body: { email, password: 'correct horse battery' },
      expect: 200,
    });
    return { id: reply.json.user.id, email };
  }
  /** POSTs `{ userId, email }` of `user` to a tenant route (token requests and removals). */
  forUser(path: string, user: { id: string; email: string }): Promise<Reply> {
    return this.tenant('POST', path, { body: { userId: user.id, email: user.email }, expect: 200 });
  }
  /** Creates a TOTP device (app-wide), as the devices' scenarios set up. */
  totpDevice(userId: string, deviceName: string, skew = 1): Promise<Reply> {
    return this.app('POST', '/recipe/totp/device', { body: { userId, deviceName, skew, period: 30 }, expect: 200 });
  }
  /** Creates a passwordless code for `contact` (`{ email }` or `{ phoneNumber }`). */
  code(contact: { email: string } | { phoneNumber: string }): Promise<Reply> {
    return this.tenant('POST', '/recipe/signinup/code', { body: contact, expect: 200 });
  }
  /** Creates an OAuth2 client (app-wide) and answers it. */
  async oauthClient(body: Record<string, unknown>): Promise<any> {
    const reply = await this.app('POST', '/recipe/oauth/clients', { body, expect: 200 });
    expect(reply.json.status).toBe('OK');
    return reply.json;
  }
  /** Once (in the `app` form): the route in the app without `oauth_provider_enabled`, 402. */
  async oauthOff(method: string, path: string, options: SendOptions = {}): Promise<void> {
    if (this.form === 'app') await send(method, `/appid-${OAUTH_OFF_APP}${path}`, { ...options, expect: 402 });
  }
  async session(userId: string): Promise<any> {
    const reply = await this.tenant('POST', '/recipe/session', {
      body: { userId, userDataInJWT: { role: 'reader' }, userDataInDatabase: { cart: 1 }, enableAntiCsrf: true },
      expect: 200,
    });
    return reply.json;
  }
}

type Scenario = (c: Ctx) => Promise<void>;

const BCRYPT_HASH = '$2a$10$GdJB9E9ce7G/H/5IYhrD0ON1CuVEmUoh/i7ewcot4ZStgHd83Ahbe';
/** The browser's authenticator for the passkey scenarios, and the site its passkeys are for. */
const PASSKEYS = new SoftwareAuthenticator();
const PASSKEY_SITE = { relyingPartyId: RP.id, relyingPartyName: RP.name, origin: RP.origin, timeout: 60_000 };

/** At least one request per manifest route, run under each prefix form. */
const SCENARIOS: Record<string, Scenario> = {
  apiversion: async (c) => {
    await c.app('GET', '/apiversion', { expect: 200 });
  },
  fallback: async (c) => {
    await c.tenant('GET', '/', { noKey: true, expect: 200 });
    await c.tenant('GET', '/hello', { noKey: true, expect: 200 });
  },
  'app-put-v2': async (c) => {
    await c.app('PUT', '/recipe/multitenancy/app/v2', {
      body: { appId: c.appId === 'public' ? c.name('oa-made') : APP, coreConfig: {} },
      expect: 200,
    });
  },
  'app-put': async (c) => {
    await c.app('PUT', '/recipe/multitenancy/app', {
      body: { appId: c.appId === 'public' ? c.name('oa-legacy') : APP, emailPasswordEnabled: true },
      headers: { 'cdi-version': '4.0' },
      expect: 200,
    });
  },
  'app-list-v2': async (c) => {
    await c.app('GET', '/recipe/multitenancy/app/list/v2', { expect: c.appId === 'public' ? 200 : 403 });
  },
  'app-list': async (c) => {
    await c.app('GET', '/recipe/multitenancy/app/list', { expect: c.appId === 'public' ? 200 : 403 });
  },
  'app-remove': async (c) => {
    if (c.appId === 'public') {
      const doomed = c.name('oa-doomed');
      await c.app('PUT', '/recipe/multitenancy/app/v2', { body: { appId: doomed }, expect: 200 });
      await c.app('POST', '/recipe/multitenancy/app/remove', { body: { appId: doomed }, expect: 200 });
    } else {
      await c.app('POST', '/recipe/multitenancy/app/remove', { body: { appId: 'other' }, expect: 403 });
    }
  },
  'tenant-put-v2': async (c) => {
    await c.tenant('PUT', '/recipe/multitenancy/tenant/v2', {
      body: {
        tenantId: c.tenantId,
        firstFactors: ALL_FACTORS,
        // The base (public app, public tenant) config is the deployment's: `Cannot modify base config`.
        ...(c.form === 'bare' ? {} : { coreConfig: { password_reset_token_lifetime: 3600000 } }),
      },
      expect: 200,
    });
  },
  'tenant-put': async (c) => {
    await c.tenant('PUT', '/recipe/multitenancy/tenant', {
      body: { tenantId: c.tenantId, emailPasswordEnabled: true, thirdPartyEnabled: true, passwordlessEnabled: true },
      headers: { 'cdi-version': '4.0' },
      expect: 200,
    });
  },
  'tenant-get-v2': async (c) => {
    await c.tenant('GET', '/recipe/multitenancy/tenant/v2', { expect: 200 });
  },
  'tenant-get': async (c) => {
    await c.tenant('GET', '/recipe/multitenancy/tenant', { headers: { 'cdi-version': '4.0' }, expect: 200 });
    await c.tenant('GET', '/recipe/multitenancy/tenant', { expect: 200 });
  },
  'tenant-list-v2': async (c) => {
    await c.tenant('GET', '/recipe/multitenancy/tenant/list/v2', { expect: c.tenantId === 'public' ? 200 : 403 });
  },
  'tenant-list': async (c) => {
    await c.tenant('GET', '/recipe/multitenancy/tenant/list', {
      headers: { 'cdi-version': '4.0' },
      expect: c.tenantId === 'public' ? 200 : 403,
    });
  },
  'tenant-remove': async (c) => {
    if (c.tenantId === 'public') {
      const doomed = c.name('oa-gone');
      await c.tenant('PUT', '/recipe/multitenancy/tenant/v2', { body: { tenantId: doomed }, expect: 200 });
      await c.tenant('POST', '/recipe/multitenancy/tenant/remove', { body: { tenantId: doomed }, expect: 200 });
    } else {
      await c.tenant('POST', '/recipe/multitenancy/tenant/remove', { body: { tenantId: 'x' }, expect: 403 });
    }
  },
  'thirdparty-config-put': async (c) => {
    await c.tenant('PUT', '/recipe/multitenancy/config/thirdparty', {
      body: {
        config: {
          thirdPartyId: 'custom-oa',
          name: 'Custom',
          clients: [{ clientId: 'client-1', clientSecret: 'secret-1', scope: ['email'] }],
          authorizationEndpoint: 'https://idp.example.com/authorize',
          tokenEndpoint: 'https://idp.example.com/token',
        },
      },
      expect: 200,
    });
  },
  'thirdparty-config-remove': async (c) => {
    await c.tenant('POST', '/recipe/multitenancy/config/thirdparty/remove', {
      body: { thirdPartyId: 'custom-oa' },
      expect: 200,
    });
  },
  'bulk-import-import': async (c) => {
    await c.app('POST', '/bulk-import/import', {
      body: {
        externalUserId: c.name('lazy'),
        userMetadata: { plan: 'gold' },
        totpDevices: [{ secretKey: 'JBSWY3DPEHPK3PXP', period: 30, skew: 1, deviceName: 'phone' }],
        loginMethods: [
          {
            recipeId: 'emailpassword',
            email: c.email('lazy'),
            passwordHash: BCRYPT_HASH,
            hashingAlgorithm: 'BCRYPT',
            isVerified: true,
            isPrimary: true,
            tenantIds: [c.tenantId],
          },
          {
            recipeId: 'thirdparty',
            email: c.email('lazy'),
            thirdPartyId: 'google',
            thirdPartyUserId: c.name('lazy-g'),
            tenantIds: [c.tenantId],
          },
          { recipeId: 'passwordless', phoneNumber: '+14155550100', tenantIds: [c.tenantId] },
        ],
      },
      expect: 200,
    });
    await c.app('POST', '/bulk-import/import', { body: { loginMethods: [] }, expect: 400 });
  },
  signin: async (c) => {
    const user = await c.signUp('signin');
    await c.tenant('POST', '/recipe/signin', {
      body: { email: user.email, password: 'correct horse battery' },
      expect: 200,
    });
    await c.tenant('POST', '/recipe/signin', { body: { email: user.email, password: 'wrong' }, expect: 200 });
  },
  signup: async (c) => {
    await c.signUp('signup');
    await c.tenant('POST', '/recipe/signup', {
      body: { email: c.email('signup'), password: 'another' },
      expect: 200,
    });
  },
  'user-get': async (c) => {
    const user = await c.signUp('get');
    await c.app('GET', '/user/id', { query: { userId: user.id }, expect: 200 });
    await c.app('GET', '/user/id', { query: { userId: 'nobody' }, expect: 200 });
  },
  'user-remove': async (c) => {
    const user = await c.signUp('remove');
    await c.app('POST', '/user/remove', { body: { userId: user.id }, expect: 200 });
  },
  'users-list': async (c) => {
    await c.signUp('list');
    await c.tenant('GET', '/users', { query: { limit: '1' }, expect: 200 });
    const found = await c.tenant('GET', '/users', {
      query: { email: `list-${c.form};nobody`, phone: '', provider: '', timeJoinedOrder: 'DESC' },
      expect: 200,
    });
    expect(found.json.users.map((u: { emails: string[] }) => u.emails)).toEqual([[c.email('list')]]);
    await c.tenant('GET', '/users', { query: { provider: 'google', limit: '1000' }, expect: 200 });
  },
  'users-count': async (c) => {
    await c.tenant('GET', '/users/count', { query: { includeRecipeIds: 'emailpassword' }, expect: 200 });
  },
  'users-by-accountinfo': async (c) => {
    const user = await c.signUp('byinfo');
    await c.tenant('GET', '/users/by-accountinfo', {
      query: { email: user.email, doUnionOfAccountInfo: 'false' },
      expect: 200,
    });
  },
  'userid-map-create': async (c) => {
    const user = await c.signUp('mapped');
    await c.app('POST', '/recipe/userid/map', {
      body: { superTokensUserId: user.id, externalUserId: c.name('ext'), externalUserIdInfo: 'legacy' },
      expect: 200,
    });
  },
  // Tenant membership, id mappings and permissions (docs/users.md)
  'tenant-user-add': async (c) => {
    const other = c.tenantId === 'public' ? TENANT : 'public';
    const user = (loginMethod: Record<string, unknown>, tenantIds = [other]) =>
      c.app('POST', '/bulk-import/import', { body: { loginMethods: [{ ...loginMethod, tenantIds }] }, expect: 200 });
    const join = (recipeUserId: string) =>
      c.tenant('POST', '/recipe/multitenancy/tenant/user', { body: { recipeUserId }, expect: 200 });
    const ep = { recipeId: 'emailpassword', plainTextPassword: 'joining password' };
    const joiner = await user({ ...ep, email: c.email('joiner') });
    expect((await join(joiner.json.user.id)).json).toEqual({ status: 'OK', wasAlreadyAssociated: false });
    expect((await join(joiner.json.user.id)).json).toEqual({ status: 'OK', wasAlreadyAssociated: true });
    expect((await join('nobody')).json.status).toBe('UNKNOWN_USER_ID_ERROR');
    await user({ ...ep, email: c.email('twice') }, [c.tenantId]);
    const twice = await user({ ...ep, email: c.email('twice') });
    expect((await join(twice.json.user.id)).json.status).toBe('EMAIL_ALREADY_EXISTS_ERROR');
    const phone = {
      recipeId: 'passwordless',
      phoneNumber: `+1415555${String(FORMS.indexOf(c.form)).padStart(4, '0')}`,
    };
    await user(phone, [c.tenantId]);
    expect((await join((await user(phone)).json.user.id)).json.status).toBe('PHONE_NUMBER_ALREADY_EXISTS_ERROR');
    const google = {
      recipeId: 'thirdparty',
      thirdPartyId: 'google',
      thirdPartyUserId: c.name('g-join'),
      email: c.email('g-join'),
    };
    await user(google, [c.tenantId]);
    expect((await join((await user(google)).json.user.id)).json.status).toBe('THIRD_PARTY_USER_ALREADY_EXISTS_ERROR');
    await user({ ...ep, email: c.email('held'), isPrimary: true }, [c.tenantId]);
    const rival = await user({ ...ep, email: c.email('held'), isPrimary: true });
    expect((await join(rival.json.user.id)).json.status).toBe('ASSOCIATION_NOT_ALLOWED_ERROR');
  },
  'tenant-user-remove': async (c) => {
    const user = await c.signUp('leaver');
    for (const wasAssociated of [true, false]) {
      const left = await c.tenant('POST', '/recipe/multitenancy/tenant/user/remove', {
        body: { recipeUserId: user.id },
        expect: 200,
      });
      expect(left.json).toEqual({ status: 'OK', wasAssociated });
    }
    await c.tenant('POST', '/recipe/multitenancy/tenant/user/remove', {
      body: { recipeUserId: 'nobody' },
      expect: 200,
    });
  },
  'userid-map-remove': async (c) => {
    const user = await c.signUp('unmapped');
    await c.app('POST', '/recipe/userid/map', {
      body: { superTokensUserId: user.id, externalUserId: c.name('ext-gone') },
      expect: 200,
    });
    await c.app('PUT', '/recipe/user/metadata', {
      body: { userId: c.name('ext-gone'), metadataUpdate: { kept: true } },
      expect: 200,
    });
    await c.app('POST', '/recipe/userid/map/remove', { body: { userId: c.name('ext-gone') }, expect: 400 });
    for (const didMappingExist of [true, false]) {
      const removed = await c.app('POST', '/recipe/userid/map/remove', {
        body: { userId: c.name('ext-gone'), userIdType: 'EXTERNAL', force: true },
        expect: 200,
      });
      expect(removed.json).toEqual({ status: 'OK', didMappingExist });
    }
  },
  'userid-external-info-put': async (c) => {
    const user = await c.signUp('info');
    await c.app('POST', '/recipe/userid/map', {
      body: { superTokensUserId: user.id, externalUserId: c.name('ext-info') },
      expect: 200,
    });
    for (const externalUserIdInfo of ['updated', null]) {
      await c.app('PUT', '/recipe/userid/external-user-id-info', {
        body: { userId: c.name('ext-info'), externalUserIdInfo },
        expect: 200,
      });
    }
    await c.app('PUT', '/recipe/userid/external-user-id-info', {
      body: { userId: 'nobody', userIdType: 'EXTERNAL', externalUserIdInfo: 'x' },
      expect: 200,
    });
  },
  'role-permissions-remove': async (c) => {
    await c.app('PUT', '/recipe/role', { body: { role: c.name('trimmed'), permissions: ['a', 'b'] }, expect: 200 });
    await c.app('POST', '/recipe/role/permissions/remove', {
      body: { role: c.name('trimmed'), permissions: ['a'] },
      expect: 200,
    });
    await c.app('POST', '/recipe/role/permissions/remove', { body: { role: c.name('trimmed') }, expect: 200 });
    await c.app('POST', '/recipe/role/permissions/remove', { body: { role: 'no-such-role' }, expect: 200 });
  },
  'permission-roles': async (c) => {
    await c.app('PUT', '/recipe/role', { body: { role: 'oa-reader', permissions: ['read'] }, expect: 200 });
    const roles = await c.app('GET', '/recipe/permission/roles', { query: { permission: 'read' }, expect: 200 });
    expect(roles.json.roles).toContain('oa-reader');
  },
  'userid-map-get': async (c) => {
    await c.app('GET', '/recipe/userid/map', { query: { userId: c.name('ext'), userIdType: 'EXTERNAL' }, expect: 200 });
    await c.app('GET', '/recipe/userid/map', { query: { userId: 'nobody', userIdType: 'ANY' }, expect: 200 });
  },
  'password-reset-token': async (c) => {
    await c.forUser('/recipe/user/password/reset/token', await c.signUp('reset'));
  },
  'password-reset-token-consume': async (c) => {
    const token = await c.forUser('/recipe/user/password/reset/token', await c.signUp('consume'));
    // Once to reset, once more with the spent token.
    for (const _ of [1, 2]) {
      await c.tenant('POST', '/recipe/user/password/reset/token/consume', {
        body: { token: token.json.token },
        expect: 200,
      });
    }
  },
  'recipe-user-put': async (c) => {
    const user = await c.signUp('update');
    await c.app('PUT', '/recipe/user', {
      body: { recipeUserId: user.id, password: 'a new password' },
      headers: { rid: 'emailpassword' },
      expect: 200,
    });
  },
  'email-verify-token': async (c) => {
    await c.forUser('/recipe/user/email/verify/token', await c.signUp('evtoken'));
  },
  'email-verify': async (c) => {
    const user = await c.signUp('verify');
    const token = await c.forUser('/recipe/user/email/verify/token', user);
    await c.tenant('POST', '/recipe/user/email/verify', {
      body: { method: 'token', token: token.json.token },
      expect: 200,
    });
    await c.forUser('/recipe/user/email/verify/token', user);
  },
  'email-verify-get': async (c) => {
    const user = await c.signUp('isverified');
    await c.app('GET', '/recipe/user/email/verify', { query: { userId: user.id, email: user.email }, expect: 200 });
  },
  'email-verify-token-remove': async (c) => {
    await c.forUser('/recipe/user/email/verify/token/remove', await c.signUp('evremove'));
  },
  'email-verify-remove': async (c) => {
    const user = await c.signUp('unverify');
    await c.app('POST', '/recipe/user/email/verify/remove', {
      body: { userId: user.id, email: user.email },
      expect: 200,
    });
  },
  'thirdparty-signinup': async (c) => {
    await c.tenant('POST', '/recipe/signinup', {
      body: { thirdPartyId: 'google', thirdPartyUserId: c.name('g'), email: { id: c.email('tp'), isVerified: true } },
      expect: 200,
    });
  },
  'accountlinking-primary-check': async (c) => {
    const user = await c.signUp('pcheck');
    await c.app('GET', '/recipe/accountlinking/user/primary/check', { query: { recipeUserId: user.id }, expect: 200 });
  },
  'accountlinking-primary': async (c) => {
    const user = await c.signUp('primary');
    await c.app('POST', '/recipe/accountlinking/user/primary', { body: { recipeUserId: user.id }, expect: 200 });
  },
  'accountlinking-link-check': async (c) => {
    const a = await c.signUp('lcheck-a');
    const b = await c.signUp('lcheck-b');
    await c.app('GET', '/recipe/accountlinking/user/link/check', {
      query: { recipeUserId: b.id, primaryUserId: a.id },
      expect: 200,
    });
  },
  'accountlinking-link': async (c) => {
    const a = await c.signUp('link-a');
    const b = await c.tenant('POST', '/recipe/signinup', {
      body: {
        thirdPartyId: 'github',
        thirdPartyUserId: c.name('gh'),
        email: { id: c.email('link-b'), isVerified: true },
      },
      expect: 200,
    });
    await c.app('POST', '/recipe/accountlinking/user/primary', { body: { recipeUserId: a.id }, expect: 200 });
    await c.app('POST', '/recipe/accountlinking/user/link', {
      body: { recipeUserId: b.json.recipeUserId, primaryUserId: a.id },
      expect: 200,
    });
  },
  'accountlinking-unlink': async (c) => {
    const a = await c.signUp('unlink-a');
    await c.app('POST', '/recipe/accountlinking/user/unlink', { body: { recipeUserId: a.id }, expect: 200 });
  },
  'passwordless-code-create': async (c) => {
    await c.code({ email: c.email('pl-create') });
  },
  'passwordless-code-consume': async (c) => {
    const code = await c.code({ email: c.email('pl-consume') });
    await c.tenant('POST', '/recipe/signinup/code/consume', {
      body: { preAuthSessionId: code.json.preAuthSessionId, deviceId: code.json.deviceId, userInputCode: 'wrong1' },
      expect: 200,
    });
    await c.tenant('POST', '/recipe/signinup/code/consume', {
      body: { preAuthSessionId: code.json.preAuthSessionId, linkCode: code.json.linkCode },
      expect: 200,
    });
  },
  'passwordless-code-check': async (c) => {
    const code = await c.code({ phoneNumber: '+14155550142' });
    await c.tenant('POST', '/recipe/signinup/code/check', {
      body: {
        preAuthSessionId: code.json.preAuthSessionId,
        deviceId: code.json.deviceId,
        userInputCode: code.json.userInputCode,
      },
      expect: 200,
    });
  },
  'passwordless-code-remove': async (c) => {
    const code = await c.code({ email: c.email('pl-remove') });
    await c.tenant('POST', '/recipe/signinup/code/remove', { body: { codeId: code.json.codeId }, expect: 200 });
  },
  'passwordless-codes-remove': async (c) => {
    await c.tenant('POST', '/recipe/signinup/codes/remove', { body: { email: c.email('pl-create') }, expect: 200 });
  },
  'passwordless-codes-list': async (c) => {
    await c.code({ email: c.email('pl-list') });
    await c.tenant('GET', '/recipe/signinup/codes', { query: { email: c.email('pl-list') }, expect: 200 });
  },
  // Passkeys (docs/passkeys.md), with the software authenticator's attestations and assertions.
  'webauthn-options-register': async (c) => {
    await c.passkeyOptions(c.email('wa-options'));
    await c.tenant('POST', '/recipe/webauthn/options/register', {
      body: { ...PASSKEY_SITE, email: c.email('wa-bad'), origin: 'https://elsewhere.test' },
      expect: 200,
    });
  },
  'webauthn-options-signin': async (c) => {
    await c.passkeySignInOptions();
    await c.tenant('POST', '/recipe/webauthn/options/signin', { body: { ...PASSKEY_SITE, timeout: -1 }, expect: 200 });
  },
  'webauthn-options-get': async (c) => {
    const options = await c.passkeyOptions(c.email('wa-get'));
    for (const id of [options.webauthnGeneratedOptionsId, 'no-such-options']) {
      await c.tenant('GET', '/recipe/webauthn/options', { query: { webauthnGeneratedOptionsId: id }, expect: 200 });
    }
    const signIn = await c.passkeySignInOptions();
    const query = { webauthnGeneratedOptionsId: signIn.webauthnGeneratedOptionsId };
    await c.tenant('GET', '/recipe/webauthn/options', { query, expect: 200 });
  },
  'webauthn-options-remove': async (c) => {
    const options = await c.passkeyOptions(c.email('wa-remove'));
    const query = { webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId };
    for (const _ of [1, 2]) await c.tenant('DELETE', '/recipe/webauthn/options/remove', { query, expect: 200 });
  },
  'webauthn-signup': async (c) => {
    await c.passkeyUser('wa-signup');
    const options = await c.passkeyOptions(c.email('wa-signup'));
    const credential = PASSKEYS.create(options, RP.origin, { challenge: Buffer.alloc(32).toString('base64url') });
    const body = (webauthnGeneratedOptionsId: string, value: unknown) => ({
      webauthnGeneratedOptionsId,
      credential: value,
    });
    await c.tenant('POST', '/recipe/webauthn/signup', {
      body: body(options.webauthnGeneratedOptionsId, credential),
      expect: 200,
    });
    await c.tenant('POST', '/recipe/webauthn/signup', {
      body: body(options.webauthnGeneratedOptionsId, { id: '' }),
      expect: 200,
    });
    await c.tenant('POST', '/recipe/webauthn/signup', { body: body('no-such-options', credential), expect: 200 });
    await c.tenant('POST', '/recipe/webauthn/signup', { body: { credential }, expect: 400 });
  },
  'webauthn-signin': async (c) => {
    const user = await c.passkeyUser('wa-signin');
    const signIn = await c.passkeySignInOptions();
    const credential = PASSKEYS.get(user.credentialId, signIn, RP.origin);
    const body = { webauthnGeneratedOptionsId: signIn.webauthnGeneratedOptionsId, credential };
    // On CDI 5.4 a replay meets the counter; without the header (CDI 5.6) the options are used up.
    await c.tenant('POST', '/recipe/webauthn/signin', { body, headers: { 'cdi-version': '5.4' }, expect: 200 });
    await c.tenant('POST', '/recipe/webauthn/signin', { body, headers: { 'cdi-version': '5.4' }, expect: 200 });
    const again = await c.passkeySignInOptions();
    const next = {
      webauthnGeneratedOptionsId: again.webauthnGeneratedOptionsId,
      credential: PASSKEYS.get(user.credentialId, again, RP.origin),
    };
    for (const _ of [1, 2]) await c.tenant('POST', '/recipe/webauthn/signin', { body: next, expect: 200 });
    const stranger = { ...credential, id: 'AAAAAAAAAAAAAAAAAAAAAA', rawId: 'AAAAAAAAAAAAAAAAAAAAAA' };
    const other = await c.passkeySignInOptions();
    await c.tenant('POST', '/recipe/webauthn/signin', {
      body: { webauthnGeneratedOptionsId: other.webauthnGeneratedOptionsId, credential: stranger },
      expect: 200,
    });
  },
  'webauthn-credential-register': async (c) => {
    const user = await c.passkeyUser('wa-register');
    const options = await c.passkeyOptions(user.email);
    const credential = PASSKEYS.create(options, RP.origin);
    const body = { recipeUserId: user.id, webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId, credential };
    for (const _ of [1, 2]) await c.app('POST', '/recipe/webauthn/user/credential/register', { body, expect: 200 });
    await c.app('POST', '/recipe/webauthn/user/credential/register', {
      body: { ...body, recipeUserId: 'nobody', credential: PASSKEYS.create(options, RP.origin) },
      expect: 200,
    });
  },
  'webauthn-credential-get': async (c) => {
    const user = await c.passkeyUser('wa-credential');
    for (const webauthnCredentialId of [user.credentialId, 'AAAA']) {
      await c.app('GET', '/recipe/webauthn/user/credential', {
        query: { recipeUserId: user.id, webauthnCredentialId },
        expect: 200,
      });
    }
  },
  'webauthn-credential-list': async (c) => {
    const user = await c.passkeyUser('wa-list');
    await c.app('GET', '/recipe/webauthn/user/credential/list', { query: { recipeUserId: user.id }, expect: 200 });
  },
  'webauthn-credential-remove': async (c) => {
    const user = await c.passkeyUser('wa-credential-remove');
    const query = { recipeUserId: user.id, webauthnCredentialId: user.credentialId };
    for (const _ of [1, 2]) await c.app('DELETE', '/recipe/webauthn/user/credential/remove', { query, expect: 200 });
  },
  'webauthn-user-email-put': async (c) => {
    const user = await c.passkeyUser('wa-email');
    const other = await c.passkeyUser('wa-email-other');
    for (const email of [c.email('wa-email-new'), other.email]) {
      await c.tenant('PUT', '/recipe/webauthn/user/email', { body: { recipeUserId: user.id, email }, expect: 200 });
    }
    await c.tenant('PUT', '/recipe/webauthn/user/email', {
      body: { recipeUserId: 'nobody', email: 'x@example.com' },
      expect: 200,
    });
  },
  'webauthn-recover-token': async (c) => {
    const user = await c.passkeyUser('wa-recover');
    await c.tenant('POST', '/recipe/webauthn/user/recover/token', {
      body: { userId: user.id, email: user.email },
      expect: 200,
    });
    await c.tenant('POST', '/recipe/webauthn/user/recover/token', {
      body: { userId: 'nobody', email: user.email },
      expect: 200,
    });
  },
  'webauthn-recover-token-consume': async (c) => {
    const user = await c.passkeyUser('wa-consume');
    const token = await c.tenant('POST', '/recipe/webauthn/user/recover/token', {
      body: { userId: user.id, email: user.email },
      expect: 200,
    });
    for (const _ of [1, 2]) {
      await c.tenant('POST', '/recipe/webauthn/user/recover/token/consume', {
        body: { token: token.json.token },
        expect: 200,
      });
    }
  },
  'webauthn-recover-get': async (c) => {
    const user = await c.passkeyUser('wa-recover-get');
    const token = await c.tenant('POST', '/recipe/webauthn/user/recover/token', {
      body: { userId: user.id, email: user.email },
      expect: 200,
    });
    for (const value of [token.json.token, 'not-a-token']) {
      await c.tenant('GET', '/recipe/webauthn/user/recover', { query: { token: value }, expect: 200 });
    }
  },
  'bulk-import-users-add': async (c) => {
    const users = [
      {
        externalUserId: c.name('staged'),
        loginMethods: [{ recipeId: 'emailpassword', email: c.email('staged'), plainTextPassword: 'secret staged' }],
      },
    ];
    // A dry run, then the staging itself (only the public tenant stages: 403 elsewhere).
    for (const how of [{ query: { dryRun: 'true' } }, { headers: { 'Idempotency-Key': c.name('chunk-0') } }]) {
      await c.tenant('POST', '/bulk-import/users', {
        body: { users },
        ...how,
        expect: c.tenantId === 'public' ? 200 : 403,
      });
    }
    await c.tenant('POST', '/bulk-import/users', {
      body: { users: [{ loginMethods: [] }] },
      expect: c.tenantId === 'public' ? 400 : 403,
    });
  },
  'bulk-import-users-list': async (c) => {
    await c.app('GET', '/bulk-import/users', { query: { limit: '10' }, expect: 200 });
  },
  'bulk-import-users-count': async (c) => {
    await c.app('GET', '/bulk-import/users/count', { query: { status: 'NEW' }, expect: 200 });
  },
  'bulk-import-users-remove': async (c) => {
    await c.tenant('POST', '/bulk-import/users/remove', {
      body: { ids: ['00000000-0000-4000-8000-000000000000'] },
      expect: c.tenantId === 'public' ? 200 : 403,
    });
  },
  'role-put': async (c) => {
    await c.app('PUT', '/recipe/role', { body: { role: 'oa-reader', permissions: ['read'] }, expect: 200 });
  },
  'role-remove': async (c) => {
    await c.app('PUT', '/recipe/role', { body: { role: c.name('doomed-role') }, expect: 200 });
    await c.app('POST', '/recipe/role/remove', { body: { role: c.name('doomed-role') }, expect: 200 });
  },
  'roles-list': async (c) => {
    await c.app('GET', '/recipe/roles', { expect: 200 });
  },
  'role-permissions': async (c) => {
    await c.app('PUT', '/recipe/role', { body: { role: 'oa-reader', permissions: ['read'] }, expect: 200 });
    await c.app('GET', '/recipe/role/permissions', { query: { role: 'oa-reader' }, expect: 200 });
    await c.app('GET', '/recipe/role/permissions', { query: { role: 'no-such-role' }, expect: 200 });
  },
  'role-users': async (c) => {
    await c.tenant('GET', '/recipe/role/users', { query: { role: 'oa-reader' }, expect: 200 });
  },
  'user-role-put': async (c) => {
    await c.app('PUT', '/recipe/role', { body: { role: 'oa-reader', permissions: ['read'] }, expect: 200 });
    await c.tenant('PUT', '/recipe/user/role', {
      body: { userId: c.name('role-holder'), role: 'oa-reader' },
      expect: 200,
    });
  },
  'user-role-remove': async (c) => {
    await c.tenant('POST', '/recipe/user/role/remove', {
      body: { userId: c.name('role-holder'), role: 'oa-reader' },
      expect: 200,
    });
  },
  'user-roles-get': async (c) => {
    await c.tenant('GET', '/recipe/user/roles', { query: { userId: c.name('role-holder') }, expect: 200 });
  },
  'metadata-get': async (c) => {
    await c.app('GET', '/recipe/user/metadata', { query: { userId: c.name('meta') }, expect: 200 });
  },
  'metadata-put': async (c) => {
    await c.app('PUT', '/recipe/user/metadata', {
      body: { userId: c.name('meta'), metadataUpdate: { plan: 'gold', gone: null } },
      expect: 200,
    });
  },
  'metadata-remove': async (c) => {
    await c.app('POST', '/recipe/user/metadata/remove', { body: { userId: c.name('meta') }, expect: 200 });
  },
  'totp-devices-list': async (c) => {
    await c.app('GET', '/recipe/totp/device/list', { query: { userId: c.name('lazy') }, expect: 200 });
  },
  'totp-device-create': async (c) => {
    await c.totpDevice(c.name('totp'), 'laptop');
  },
  'totp-device-verify': async (c) => {
    const created = await c.totpDevice(c.name('totp-v'), 'phone');
    // A wrong code first (INVALID_TOTP_ERROR with the counts), then the device's own code.
    await c.tenant('POST', '/recipe/totp/device/verify', {
      body: { userId: c.name('totp-v'), deviceName: 'phone', totp: '12345678' },
      expect: 200,
    });
    const totp = new TOTP({ secret: created.json.secret, period: 30 }).generate();
    const verified = await c.tenant('POST', '/recipe/totp/device/verify', {
      body: { userId: c.name('totp-v'), deviceName: 'phone', totp },
      expect: 200,
    });
    expect(verified.json).toEqual({ status: 'OK', wasAlreadyVerified: false });
    await c.tenant('POST', '/recipe/totp/device/verify', {
      body: { userId: c.name('totp-v'), deviceName: 'no-such-device', totp },
      expect: 200,
    });
  },
  'totp-device-rename': async (c) => {
    await c.totpDevice(c.name('totp-r'), 'old', 0);
    // Renamed once, then the old name again (no longer a device).
    for (const newDeviceName of ['new', 'newer']) {
      await c.app('PUT', '/recipe/totp/device', {
        body: { userId: c.name('totp-r'), existingDeviceName: 'old', newDeviceName },
        expect: 200,
      });
    }
  },
  'totp-device-remove': async (c) => {
    await c.totpDevice(c.name('totp-x'), 'gone', 0);
    const removed = await c.app('POST', '/recipe/totp/device/remove', {
      body: { userId: c.name('totp-x'), deviceName: 'gone' },
      expect: 200,
    });
    expect(removed.json).toEqual({ status: 'OK', didDeviceExist: true });
  },
  'totp-verify': async (c) => {
    const userId = c.name('totp-c');
    const created = await c.totpDevice(userId, 'key');
    const code = () => new TOTP({ secret: created.json.secret, period: 30 }).generate();
    await c.tenant('POST', '/recipe/totp/device/verify', {
      body: { userId, deviceName: 'key', totp: code() },
      expect: 200,
    });
    const wrong = await c.tenant('POST', '/recipe/totp/verify', { body: { userId, totp: '000000000' }, expect: 200 });
    expect(wrong.json.status).toBe('INVALID_TOTP_ERROR');
    await c.tenant('POST', '/recipe/totp/verify', {
      body: { userId: c.name('totp-nobody'), totp: '123456' },
      expect: 200,
    });
    // The code that verified the device was used in its window: a replay is refused.
    const replay = await c.tenant('POST', '/recipe/totp/verify', { body: { userId, totp: code() }, expect: 200 });
    expect(replay.json.status).toBe('INVALID_TOTP_ERROR');
  },
  'password-migration-status': async (c) => {
    const reply = await c.app('GET', '/password-migration/status', { expect: 200 });
    if (c.appId === APP) expect(reply.json.pending).toBeGreaterThan(0);
  },
  'password-migration-pending': async (c) => {
    const page = await c.app('GET', '/password-migration/pending', { query: { limit: '1' }, expect: 200 });
    if (c.appId === APP) {
      expect(page.json.users).toHaveLength(1);
      expect(page.json.nextPaginationToken).toEqual(expect.any(String));
      await c.app('GET', '/password-migration/pending', {
        query: { limit: '500', paginationToken: page.json.nextPaginationToken },
        expect: 200,
      });
    }
    await c.app('GET', '/password-migration/pending', { query: { paginationToken: '!' }, expect: 400 });
    await c.app('GET', '/password-migration/pending', { query: { limit: '501' }, expect: 400 });
  },
  // The user-management dashboard (docs/dashboard.md)
  'dashboard-user-create': async (c) => {
    const email = c.email('dash-create');
    await c.app('POST', '/recipe/dashboard/user', { body: { email, password: 'dash-pass-1' }, expect: 200 });
    await c.app('POST', '/recipe/dashboard/user', { body: { email, password: 'dash-pass-1' }, expect: 200 });
    await c.app('POST', '/recipe/dashboard/user', { body: { email: 'a@b.c', password: 'dash-pass-1' }, expect: 200 });
    await c.app('POST', '/recipe/dashboard/user', { body: { email, password: 'weak' }, expect: 200 });
    await c.app('POST', '/recipe/dashboard/user', { body: { email }, expect: 400 });
  },
  'dashboard-signin': async (c) => {
    const email = c.email('dash-signin');
    await c.app('POST', '/recipe/dashboard/user', { body: { email, password: 'dash-pass-1' }, expect: 200 });
    const signedIn = await c.app('POST', '/recipe/dashboard/signin', {
      body: { email, password: 'dash-pass-1' },
      expect: 200,
    });
    expect(signedIn.json.status).toBe('OK');
    await c.app('POST', '/recipe/dashboard/signin', { body: { email, password: 'wrong-pass-1' }, expect: 200 });
  },
  'dashboard-session-verify': async (c) => {
    const email = c.email('dash-verify');
    await c.app('POST', '/recipe/dashboard/user', { body: { email, password: 'dash-pass-1' }, expect: 200 });
    const { sessionId } = (
      await c.app('POST', '/recipe/dashboard/signin', { body: { email, password: 'dash-pass-1' } })
    ).json;
    const verified = await c.app('POST', '/recipe/dashboard/session/verify', { body: { sessionId }, expect: 200 });
    expect(verified.json).toEqual({ status: 'OK', email });
    await c.app('POST', '/recipe/dashboard/session/verify', { body: { sessionId: 'no-such-session' }, expect: 200 });
  },
  'dashboard-session-remove': async (c) => {
    const email = c.email('dash-revoke');
    await c.app('POST', '/recipe/dashboard/user', { body: { email, password: 'dash-pass-1' }, expect: 200 });
    const { sessionId } = (
      await c.app('POST', '/recipe/dashboard/signin', { body: { email, password: 'dash-pass-1' } })
    ).json;
    await c.app('DELETE', '/recipe/dashboard/session', { query: { sessionId }, expect: 200 });
    await c.app('DELETE', '/recipe/dashboard/session', { expect: 400 });
  },
  'dashboard-user-update': async (c) => {
    const email = c.email('dash-update');
    const other = c.email('dash-update-other');
    for (const e of [email, other]) {
      await c.app('POST', '/recipe/dashboard/user', { body: { email: e, password: 'dash-pass-1' }, expect: 200 });
    }
    const put = (body: Record<string, unknown>) => c.app('PUT', '/recipe/dashboard/user', { body, expect: 200 });
    await put({ email, newPassword: 'dash-pass-2' });
    await put({ email, newEmail: other });
    await put({ email, newEmail: 'not-an-email' });
    await put({ email, newPassword: 'weak' });
    await put({ userId: 'no-such-user', newPassword: 'dash-pass-2' });
    await c.app('PUT', '/recipe/dashboard/user', { body: {}, expect: 400 });
  },
  'dashboard-user-remove': async (c) => {
    const email = c.email('dash-remove');
    await c.app('POST', '/recipe/dashboard/user', { body: { email, password: 'dash-pass-1' }, expect: 200 });
    const removed = await c.app('DELETE', '/recipe/dashboard/user', { query: { email }, expect: 200 });
    expect(removed.json).toEqual({ status: 'OK', didUserExist: true });
    await c.app('DELETE', '/recipe/dashboard/user', { query: { userId: 'no-such-user' }, expect: 200 });
  },
  'dashboard-users-list': async (c) => {
    const listed = await c.app('GET', '/recipe/dashboard/users', { expect: 200 });
    expect(listed.json.users.length).toBeGreaterThan(0);
  },
  'dashboard-user-sessions': async (c) => {
    const email = c.email('dash-sessions');
    const { userId } = (
      await c.app('POST', '/recipe/dashboard/user', { body: { email, password: 'dash-pass-1' }, expect: 200 })
    ).json.user;
    await c.app('POST', '/recipe/dashboard/signin', { body: { email, password: 'dash-pass-1' }, expect: 200 });
    const listed = await c.app('GET', '/recipe/dashboard/user/sessions', { query: { userId }, expect: 200 });
    expect(listed.json.sessions).toHaveLength(1);
  },
  'dashboard-tenant-core-config': async (c) => {
    const reply = await c.tenant('GET', '/recipe/dashboard/tenant/core-config', { expect: 200 });
    expect(reply.json.config.length).toBeGreaterThan(10);
  },
  'search-tags': async (c) => {
    await c.tenant('GET', '/user/search/tags', { expect: 200 });
  },
  telemetry: async (c) => {
    await c.app('GET', '/telemetry', { expect: 200 });
  },
  'oauth-clients-list': async (c) => {
    const clientName = c.name('oa-listed');
    for (const n of [1, 2]) await c.oauthClient({ clientId: c.name(`oa-listed-${n}`), clientName });
    const path = '/recipe/oauth/clients/list';
    const page = await c.app('GET', path, { query: { pageSize: '1', clientName }, expect: 200 });
    expect(page.json.clients).toHaveLength(1);
    const last = await c.app('GET', path, {
      query: { pageSize: '1', clientName, pageToken: page.json.nextPaginationToken },
      expect: 200,
    });
    expect(last.json).not.toHaveProperty('nextPaginationToken');
    await c.oauthOff('GET', path);
  },
  'oauth-client-get': async (c) => {
    const client = await c.oauthClient({ clientId: c.name('oa-read') });
    const read = await c.app('GET', '/recipe/oauth/clients', { query: { clientId: client.clientId }, expect: 200 });
    expect(read.json.clientSecret).toBe(client.clientSecret);
    const unknown = await c.app('GET', '/recipe/oauth/clients', { query: { clientId: 'no-such-client' }, expect: 200 });
    expect(unknown.json.status).toBe('OAUTH_ERROR');
    await c.oauthOff('GET', '/recipe/oauth/clients', { query: { clientId: 'x' } });
  },
  'oauth-client-create': async (c) => {
    await c.oauthClient({
      clientId: c.name('oa-made'),
      clientName: 'Made',
      redirectUris: ['https://app.example.com/cb'],
      postLogoutRedirectUris: ['https://app.example.com/bye'],
      tokenEndpointAuthMethod: 'client_secret_post',
      refreshTokenGrantRefreshTokenLifespan: '720h',
      metadata: { team: 'web' },
      enableRefreshTokenRotation: true,
    });
    await c.oauthClient({ clientId: c.name('oa-public'), tokenEndpointAuthMethod: 'none' });
    const refused = await c.app('POST', '/recipe/oauth/clients', { body: { clientSecret: 'short' }, expect: 200 });
    expect(refused.json.status).toBe('OAUTH_ERROR');
    await c.app('POST', '/recipe/oauth/clients', { body: { enableRefreshTokenRotation: 'yes' }, expect: 400 });
    await c.oauthOff('POST', '/recipe/oauth/clients', { body: {} });
  },
  'oauth-client-update': async (c) => {
    const client = await c.oauthClient({
      clientId: c.name('oa-changed'),
      redirectUris: ['https://app.example.com/cb'],
    });
    const update = (body: Record<string, unknown>) =>
      c.app('PUT', '/recipe/oauth/clients', { query: { clientId: String(body.clientId) }, body, expect: 200 });
    const changed = await update({ clientId: client.clientId, clientName: 'Changed', redirectUris: null });
    expect(changed.json).toMatchObject({ status: 'OK', clientName: 'Changed', clientSecret: client.clientSecret });
    expect((await update({ clientId: 'no-such-client', clientName: 'x' })).json.status).toBe('CLIENT_NOT_FOUND_ERROR');
    expect((await update({ clientId: client.clientId, logoUri: 'not a uri' })).json.status).toBe('OAUTH_ERROR');
    await c.oauthOff('PUT', '/recipe/oauth/clients', { body: { clientId: 'x' } });
  },
  'oauth-client-remove': async (c) => {
    const client = await c.oauthClient({ clientId: c.name('oa-removed') });
    const removed = await c.app('POST', '/recipe/oauth/clients/remove', {
      body: { clientId: client.clientId },
      expect: 200,
    });
    expect(removed.json).toEqual({ status: 'OK', didExist: true });
    await c.oauthOff('POST', '/recipe/oauth/clients/remove', { body: { clientId: 'x' } });
  },
  'session-create': async (c) => {
    await c.session(c.name('session-user'));
  },
  'session-verify': async (c) => {
    const s = await c.session(c.name('verify-user'));
    await c.app('POST', '/recipe/session/verify', {
      body: {
        accessToken: s.accessToken.token,
        antiCsrfToken: s.antiCsrfToken,
        doAntiCsrfCheck: true,
        enableAntiCsrf: true,
        checkDatabase: true,
      },
      expect: 200,
    });
    await c.app('POST', '/recipe/session/verify', {
      body: { accessToken: 'not.a.jwt', doAntiCsrfCheck: false, enableAntiCsrf: false, checkDatabase: false },
      expect: 200,
    });
  },
  'session-refresh': async (c) => {
    const s = await c.session(c.name('refresh-user'));
    const refresh = (refreshToken: string) =>
      c.app('POST', '/recipe/session/refresh', {
        body: { refreshToken, antiCsrfToken: s.antiCsrfToken, enableAntiCsrf: true, useDynamicSigningKey: true },
        expect: 200,
      });
    const refreshed = await refresh(s.refreshToken.token);
    await refresh(refreshed.json.refreshToken.token);
    // The first refresh token again, after its child was used.
    await refresh(s.refreshToken.token);
  },
  'session-regenerate': async (c) => {
    const s = await c.session(c.name('regen-user'));
    await c.app('POST', '/recipe/session/regenerate', {
      body: { accessToken: s.accessToken.token, userDataInJWT: { role: 'writer' } },
      expect: 200,
    });
  },
  'session-get': async (c) => {
    const s = await c.session(c.name('get-user'));
    await c.app('GET', '/recipe/session', { query: { sessionHandle: s.session.handle }, expect: 200 });
    await c.app('GET', '/recipe/session', { query: { sessionHandle: 'no-such-handle' }, expect: 200 });
  },
  'session-user': async (c) => {
    await c.session(c.name('listed-user'));
    await c.tenant('GET', '/recipe/session/user', {
      query: { userId: c.name('listed-user'), fetchAcrossAllTenants: 'false' },
      expect: 200,
    });
  },
  'session-remove': async (c) => {
    const s = await c.session(c.name('revoked-user'));
    await c.tenant('POST', '/recipe/session/remove', { body: { sessionHandles: [s.session.handle] }, expect: 200 });
  },
  'session-data-put': async (c) => {
    const s = await c.session(c.name('data-user'));
    await c.app('PUT', '/recipe/session/data', {
      body: { sessionHandle: s.session.handle, userDataInDatabase: { cart: 2 } },
      expect: 200,
    });
  },
  'jwt-data-put': async (c) => {
    const s = await c.session(c.name('jwtdata-user'));
    await c.app('PUT', '/recipe/jwt/data', {
      body: { sessionHandle: s.session.handle, userDataInJWT: { role: 'x' } },
      expect: 200,
    });
  },
  'jwks-public': async (c) => {
    await c.app('GET', '/.well-known/jwks.json', { noKey: true, expect: 200 });
  },
  'jwt-jwks': async (c) => {
    await c.app('GET', '/recipe/jwt/jwks', { expect: 200 });
  },
  'jwt-create': async (c) => {
    await c.app('POST', '/recipe/jwt', {
      body: { algorithm: 'RS256', jwksDomain: 'https://api.example.com', payload: { role: 'admin' }, validity: 60 },
      expect: 200,
    });
  },
};

beforeAll(async () => {
  core = await LocalProcess.start({
    args: ['--in-memory'],
    env: { API_KEYS: API_KEY, ACCOUNT_LINKING_ENABLED: 'true', MFA_ENABLED: 'true', OAUTH_PROVIDER_ENABLED: 'true' },
  });
  await core.waitUntilReady();
  // The test app, and the test tenant in the public app and in it.
  await send('PUT', '/recipe/multitenancy/app/v2', {
    body: {
      appId: APP,
      coreConfig: {
        account_linking_enabled: true,
        mfa_enabled: true,
        oauth_provider_enabled: true,
        // The hook is never called here (no pending user signs in): importing with the marker needs it set.
        password_migration_hook_url: 'http://127.0.0.1:9/check',
        password_migration_hook_secret: 'contract-test-hook-secret-0123456789abcdef',
      },
    },
    expect: 200,
  });
  await send('PUT', '/recipe/multitenancy/app/v2', {
    body: { appId: OAUTH_OFF_APP, coreConfig: { oauth_provider_enabled: false } },
    expect: 200,
  });
  // Users waiting for the hook, for the readiness routes (two, so a page of one has a next one).
  for (const n of [1, 2]) {
    await send('POST', `/appid-${APP}/bulk-import/import`, {
      body: {
        externalUserId: `oa-pending-${n}`,
        loginMethods: [{ recipeId: 'emailpassword', email: `oa-pending-${n}@example.com`, passwordMigration: 'hook' }],
      },
      expect: 200,
    });
  }
  for (const prefix of ['', `/appid-${APP}`]) {
    await send('PUT', `${prefix}/recipe/multitenancy/tenant/v2`, {
      body: { tenantId: TENANT, firstFactors: ALL_FACTORS },
      expect: 200,
    });
  }
});

afterAll(async () => {
  await core?.dispose();
  if (core) removeDir(core.dataDir);
});

describe('the description against the running core', () => {
  it('has a scenario for every route of the manifest', () => {
    expect(Object.keys(SCENARIOS).sort()).toEqual(ROUTES.map((r) => r.id).sort());
  });

  it.each(FORMS)('answers every route under the %s prefix form as described', async (form) => {
    const c = new Ctx(form);
    for (const [route, scenario] of Object.entries(SCENARIOS)) {
      try {
        await scenario(c);
      } catch (error) {
        problems.push(`${route} (${form}): ${(error as Error).message}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('answers the app-and-tenant form of every app-specific API from the fallback as described', async () => {
    // No gateway route serves this form (functions/routes.ts gatewayPaths): 403 for a tenant,
    // 404 for `public` named explicitly (docs/reference-behaviour.md "Path prefixes").
    for (const route of ROUTES.filter((r) => r.scope === 'app')) {
      const body = ['POST', 'PUT'].includes(route.method) ? { body: {} } : {};
      await send(route.method, `/appid-${APP}/${TENANT}${route.path}`, { ...body, expect: 403 });
      await send(route.method, `/appid-${APP}/public${route.path}`, { ...body, expect: 404 });
    }
    expect(problems).toEqual([]);
  });

  it('serves the description and its page as described, without an API key', async () => {
    for (const path of LOCAL_RUNTIME_PATHS) await send('GET', path, { noKey: true, expect: 200 });
    // The page's own files (not API operations, so not in the description): served, no key needed.
    for (const path of LOCAL_ONLY_PATHS.filter((p) => p.startsWith(LOCAL_PATHS.assets))) {
      const response = await core.fetch(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toMatch(/^text\/(javascript|css)/);
    }
    const served = await send('GET', '/openapi.json', { noKey: true, expect: 200 });
    expect(served.json).toEqual(validator.description);
    // Another method is no operation of the description: the core's 405.
    const post = await core.fetch('/openapi.json', { method: 'POST' });
    expect([post.status, await post.text()]).toEqual([405, 'Method not supported\n']);
    expect(problems).toEqual([]);
  });

  it('exercised every operation of the description, and every route answered 200 at least once', () => {
    const exercised = new Set<string>();
    const answered200 = new Set<string>();
    for (const exchange of exchanges) {
      const op = validator.operationOf(exchange.method, exchange.path);
      if (typeof op === 'string') continue;
      exercised.add(`${op.method} ${op.template}`);
      if (exchange.status === 200) answered200.add(op.operation['x-route-id'] ?? `${op.method} ${op.template}`);
    }
    const missing = validator.operations().filter((key) => !exercised.has(key));
    expect(missing).toEqual([]);
    expect(ROUTES.map((r) => r.id).filter((id) => !answered200.has(id))).toEqual([]);
  });
});
