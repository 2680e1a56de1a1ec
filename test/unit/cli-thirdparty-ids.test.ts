/**
 * The third-party ids `npx auth-core migrate` gives imported users are the ids supertokens-node's
 * ThirdParty recipe reports for the same people, so an imported user signs in as itself instead
 * of as a new user. For each source and provider, one person's export record is converted; then the
 * SDK's own built-in provider (its real code, offline: `fetch` answers as the provider's endpoints
 * would for that person) reports `thirdPartyId` and `thirdPartyUserId`; the two must be equal.
 */
import supertokens from 'supertokens-node';
import { findAndCreateProviderInstance } from 'supertokens-node/lib/build/recipe/thirdparty/providers/configUtils';
import type { UserContext } from 'supertokens-node/lib/build/types';
import ThirdParty from 'supertokens-node/recipe/thirdparty';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { convertAuth0 } from '../../bin/auth-core/src/sources/auth0.js';
import { convertFirebase } from '../../bin/auth-core/src/sources/firebase.js';
import { convertKeycloak } from '../../bin/auth-core/src/sources/keycloak.js';
import { convertSupabase, type SupabaseIdentity } from '../../bin/auth-core/src/sources/supabase.js';

/** One person as each provider knows them. */
const PERSON = {
  email: 'ada@example.com',
  /** Google's (and any OpenID Connect provider's) subject: a decimal string. */
  googleSub: '105700000000000000001',
  /** GitHub's numeric user id. */
  githubId: 4242,
  facebookId: '10158000000000001',
  twitterId: '1450000000000000001',
  linkedinSub: 'AbC-12dEf',
};

/** What each provider's endpoints answer for PERSON (only what the SDK's built-in providers read). */
function providerEndpoints(url: string): unknown {
  const { email } = PERSON;
  if (url.startsWith('https://accounts.google.com/.well-known/openid-configuration')) {
    return {
      issuer: 'https://accounts.google.com',
      authorization_endpoint: 'https://accounts.google.com/o/oauth2/v2/auth',
      token_endpoint: 'https://oauth2.googleapis.com/token',
      userinfo_endpoint: 'https://openidconnect.googleapis.com/v1/userinfo',
      jwks_uri: 'https://www.googleapis.com/oauth2/v3/certs',
    };
  }
  if (url.startsWith('https://openidconnect.googleapis.com/v1/userinfo')) {
    return { sub: PERSON.googleSub, email, email_verified: true };
  }
  if (url.startsWith('https://api.github.com/user/emails')) return [{ email, primary: true, verified: true }];
  if (url.startsWith('https://api.github.com/user')) return { id: PERSON.githubId, login: 'ada' };
  if (url.startsWith('https://graph.facebook.com/me')) return { id: PERSON.facebookId, email };
  if (url.startsWith('https://api.twitter.com/2/users/me')) return { data: { id: PERSON.twitterId, username: 'ada' } };
  if (url.startsWith('https://www.linkedin.com/oauth/.well-known/openid-configuration')) {
    return {
      issuer: 'https://www.linkedin.com/oauth',
      authorization_endpoint: 'https://www.linkedin.com/oauth/v2/authorization',
      token_endpoint: 'https://www.linkedin.com/oauth/v2/accessToken',
      userinfo_endpoint: 'https://api.linkedin.com/v2/userinfo',
      jwks_uri: 'https://www.linkedin.com/oauth/openid/jwks',
    };
  }
  if (url.startsWith('https://api.linkedin.com/v2/userinfo')) {
    return { sub: PERSON.linkedinSub, email, email_verified: true };
  }
  throw new Error(`no offline answer for ${url}`);
}

// The providers need an initialised SDK; init makes no network call (nothing here reaches a core).
beforeAll(() => {
  supertokens.init({
    appInfo: { appName: 'ids', apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
    supertokens: { connectionURI: 'http://127.0.0.1:9' },
    telemetry: false,
    recipeList: [ThirdParty.init()],
  });
});

afterEach(() => vi.unstubAllGlobals());

const userContext = {} as UserContext;

/** What the SDK's built-in provider `thirdPartyId` reports for PERSON after a sign-in. */
async function sdkReports(thirdPartyId: string): Promise<{ thirdPartyId: string; thirdPartyUserId: string }> {
  vi.stubGlobal('fetch', async (input: string | URL) => {
    const body = providerEndpoints(String(input));
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  });
  const provider = await findAndCreateProviderInstance(
    'public',
    [{ config: { thirdPartyId, clients: [{ clientId: 'client-id', clientSecret: 'client-secret' }] } }],
    thirdPartyId,
    undefined,
    userContext,
  );
  if (!provider) throw new Error(`the SDK has no provider ${thirdPartyId}`);
  const info = await provider.getUserInfo({
    tenantId: 'public',
    oAuthTokens: { access_token: 'access-token' },
    userContext,
  } as never);
  return { thirdPartyId: provider.id, thirdPartyUserId: info.thirdPartyUserId };
}

/** The (thirdPartyId, thirdPartyUserId) of the one third-party login method a conversion produced. */
function imported(conversion: ReturnType<typeof convertAuth0>) {
  if (!conversion.ok) throw new Error(`not converted: ${conversion.reasons.join('; ')}`);
  const methods = conversion.user.loginMethods.filter((lm) => lm.recipeId === 'thirdparty');
  expect(methods).toHaveLength(1);
  const [method] = methods as unknown as [{ thirdPartyId?: string; thirdPartyUserId?: string }];
  return { thirdPartyId: method.thirdPartyId, thirdPartyUserId: method.thirdPartyUserId };
}

const options = { tenantId: 'public', providerMap: new Map<string, string>() };

describe('Auth0 identities', () => {
  const convert = (provider: string, userId: string | number) =>
    imported(
      convertAuth0(
        {
          user_id: `${provider}|${userId}`,
          email: PERSON.email,
          email_verified: true,
          identities: [{ connection: provider, provider, user_id: userId, isSocial: true }],
        },
        { ...options, hashFor: () => undefined, hashesGiven: true },
      ),
    );

  it('google-oauth2|<sub> → google, <sub>', async () => {
    expect(convert('google-oauth2', PERSON.googleSub)).toEqual({
      thirdPartyId: 'google',
      thirdPartyUserId: PERSON.googleSub,
    });
    expect(convert('google-oauth2', PERSON.googleSub)).toEqual(await sdkReports('google'));
  });
  it('github|<numeric id> (a JSON number in the export) → github, "<id>"', async () => {
    expect(convert('github', PERSON.githubId)).toEqual(await sdkReports('github'));
  });
  it('google-apps (Google Workspace, an enterprise connection) → google-workspaces, <sub>', async () => {
    const workspace = imported(
      convertAuth0(
        {
          user_id: `google-apps|${PERSON.googleSub}`,
          email: PERSON.email,
          identities: [
            { connection: 'example-com', provider: 'google-apps', user_id: PERSON.googleSub, isSocial: false },
          ],
        },
        { ...options, hashFor: () => undefined, hashesGiven: true },
      ),
    );
    expect(workspace).toEqual(await sdkReports('google-workspaces'));
  });
  it('facebook and twitter keep their ids', async () => {
    expect(convert('facebook', PERSON.facebookId)).toEqual(await sdkReports('facebook'));
    expect(convert('twitter', PERSON.twitterId)).toEqual(await sdkReports('twitter'));
  });
});

describe('Firebase providerUserInfo', () => {
  const convert = (providerId: string, rawId: string) =>
    imported(
      convertFirebase(
        {
          localId: 'fb-1',
          email: PERSON.email,
          emailVerified: true,
          providerUserInfo: [{ providerId, rawId, email: PERSON.email }],
        },
        { ...options, hashConfig: { signerKey: 'c2lnbmVy', saltSeparator: 'Bw==', rounds: 8, memCost: 14 } },
      ),
    );

  it('google.com, github.com, facebook.com, twitter.com', async () => {
    expect(convert('google.com', PERSON.googleSub)).toEqual(await sdkReports('google'));
    expect(convert('github.com', String(PERSON.githubId))).toEqual(await sdkReports('github'));
    expect(convert('facebook.com', PERSON.facebookId)).toEqual(await sdkReports('facebook'));
    expect(convert('twitter.com', PERSON.twitterId)).toEqual(await sdkReports('twitter'));
  });
});

describe('Supabase auth.identities', () => {
  const convert = (provider: string, providerId: string) => {
    const identity: SupabaseIdentity = { provider, providerId, email: PERSON.email };
    return imported(
      convertSupabase(
        { id: 'sb-1', email: PERSON.email, email_confirmed_at: '2024-01-01 00:00:00+00' },
        { ...options, identitiesOf: () => [identity] },
      ),
    );
  };

  it('google, github, linkedin_oidc', async () => {
    expect(convert('google', PERSON.googleSub)).toEqual(await sdkReports('google'));
    expect(convert('github', String(PERSON.githubId))).toEqual(await sdkReports('github'));
    expect(convert('linkedin_oidc', PERSON.linkedinSub)).toEqual(await sdkReports('linkedin'));
  });
});

describe('Keycloak federatedIdentities (identity provider aliases as Keycloak names them by default)', () => {
  const convert = (identityProvider: string, userId: string) =>
    imported(
      convertKeycloak(
        {
          id: 'kc-1',
          email: PERSON.email,
          emailVerified: true,
          federatedIdentities: [{ identityProvider, userId, userName: 'ada' }],
        },
        { ...options, withRoles: false },
      ),
    );

  it('google, github, facebook, twitter, linkedin-openid-connect', async () => {
    expect(convert('google', PERSON.googleSub)).toEqual(await sdkReports('google'));
    expect(convert('github', String(PERSON.githubId))).toEqual(await sdkReports('github'));
    expect(convert('facebook', PERSON.facebookId)).toEqual(await sdkReports('facebook'));
    expect(convert('twitter', PERSON.twitterId)).toEqual(await sdkReports('twitter'));
    expect(convert('linkedin-openid-connect', PERSON.linkedinSub)).toEqual(await sdkReports('linkedin'));
  });
});
