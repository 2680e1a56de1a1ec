/**
 * The example app's backend: Express with supertokens-node's middleware and error handler, its API
 * under /api/auth, pointed at the auth core. It also serves the browser page (web/, bundled by
 * `npm run build` into dist/) on the same port, so cookies, passkeys and the page share one origin.
 * Started by `npm run example` from the repository (docs/example-app.md). Environment:
 *
 * - `CORE_URL`: the core, `http://localhost:3567` (`npm start`) by default; `…/appid-<appId>` for
 *   another app than `public`. `CORE_API_KEY`: the core's API key, if it has some.
 * - `EXAMPLE_PORT`: where the app listens, on this machine only (default 3000; 0 picks a free port).
 *   The page is at `http://localhost:<port>`: passkeys need a host name, not an IP address.
 * - `DASHBOARD_API_KEY`: turns on the SDK's user dashboard at /api/auth/dashboard, opened with this
 *   key (its page comes from the SDK's CDN).
 * - `GOOGLE_CLIENT_ID`, `GOOGLE_CLIENT_SECRET`: turn on "Continue with Google"; `GOOGLE_ISSUER`
 *   points the provider at another OpenID issuer than Google's (a stand-in).
 *
 * It prints `Example app on http://localhost:<port> (core <url>)` once it listens.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import express from 'express';
import supertokens from 'supertokens-node';
import { errorHandler, middleware, type SessionRequest } from 'supertokens-node/framework/express';
import Dashboard from 'supertokens-node/recipe/dashboard';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import EmailVerification from 'supertokens-node/recipe/emailverification';
import Passwordless from 'supertokens-node/recipe/passwordless';
import Session from 'supertokens-node/recipe/session';
import { verifySession } from 'supertokens-node/recipe/session/framework/express';
import ThirdParty from 'supertokens-node/recipe/thirdparty';
import UserMetadata from 'supertokens-node/recipe/usermetadata';
import WebAuthn from 'supertokens-node/recipe/webauthn';
import { Inbox } from './inbox.js';

const ROOT = resolve(import.meta.dirname, '..');
/** Where the SDK's routes are; the pages are under /auth (the SDK's links point there). */
const API_BASE_PATH = '/api/auth';
/** The page paths, all served by the one page (web/index.html), which shows the right view. */
const PAGES = [
  '/',
  '/auth',
  '/auth/reset-password',
  '/auth/verify-email',
  '/auth/verify',
  '/auth/webauthn/recover',
  '/auth/callback/google',
  '/inbox',
];
/** The page loads its own script and styles only, talks to its own origin only, and is never framed. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const env = process.env;
const coreUrl = env.CORE_URL || 'http://localhost:3567';
const port = Number(env.EXAMPLE_PORT || 3000);
if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`EXAMPLE_PORT is not a port: ${port}`);
const google =
  env.GOOGLE_CLIENT_ID && env.GOOGLE_CLIENT_SECRET
    ? { clientId: env.GOOGLE_CLIENT_ID, clientSecret: env.GOOGLE_CLIENT_SECRET, issuer: env.GOOGLE_ISSUER }
    : undefined;

const page = readFileSync(resolve(ROOT, 'web', 'index.html'), 'utf8');
const app = express();
const server = app.listen(port, '127.0.0.1', () => {
  const address = server.address();
  const listening = typeof address === 'object' && address ? address.port : port;
  const origin = `http://localhost:${listening}`;
  const inbox = new Inbox((message) => console.log(`An email to ${message.to} is in the inbox: ${origin}/inbox`));

  supertokens.init({
    framework: 'express',
    appInfo: {
      appName: 'Auth core example',
      apiDomain: origin,
      websiteDomain: origin,
      apiBasePath: API_BASE_PATH,
      websiteBasePath: '/auth',
    },
    supertokens: { connectionURI: coreUrl, ...(env.CORE_API_KEY ? { apiKey: env.CORE_API_KEY } : {}) },
    telemetry: false,
    recipeList: [
      EmailPassword.init({ emailDelivery: inbox.emailDelivery() }),
      ThirdParty.init({
        signInAndUpFeature: {
          providers: google
            ? [
                {
                  config: {
                    thirdPartyId: 'google',
                    ...(google.issuer
                      ? { oidcDiscoveryEndpoint: `${google.issuer}/.well-known/openid-configuration` }
                      : {}),
                    clients: [{ clientId: google.clientId, clientSecret: google.clientSecret }],
                  },
                },
              ]
            : [],
        },
      }),
      Passwordless.init({
        contactMethod: 'EMAIL',
        flowType: 'USER_INPUT_CODE_AND_MAGIC_LINK',
        emailDelivery: inbox.emailDelivery(),
      }),
      // Passkeys: the relying party is the page's host (`localhost`), the origin the page's.
      WebAuthn.init({ emailDelivery: inbox.emailDelivery() }),
      EmailVerification.init({ mode: 'OPTIONAL', emailDelivery: inbox.emailDelivery() }),
      Session.init(),
      ...(env.DASHBOARD_API_KEY ? [Dashboard.init({ apiKey: env.DASHBOARD_API_KEY })] : []),
    ],
  });

  app.use(middleware());

  // What the page needs to know to offer its ways in.
  app.get('/api/config', (_req, res) => {
    res.json({ thirdPartyProviders: google ? ['google'] : [], dashboard: Boolean(env.DASHBOARD_API_KEY) });
  });

  // The protected API: the signed-in user as the core has them. `checkDatabase` asks the core whether
  // the session still exists, so a signed-out session is refused at once, not when its token expires.
  app.get('/api/me', verifySession({ checkDatabase: true }), async (req: SessionRequest, res) => {
    const session = req.session!;
    const user = await supertokens.getUser(session.getUserId());
    if (!user) {
      res.status(404).json({ message: 'user not found' });
      return;
    }
    const { metadata } = await UserMetadata.getUserMetadata(user.id);
    res.json({
      userId: user.id,
      emails: user.emails,
      timeJoined: user.timeJoined,
      loginMethods: user.loginMethods.map((m) => ({
        recipeId: m.recipeId,
        recipeUserId: m.recipeUserId.getAsString(),
        email: m.email,
        thirdParty: m.thirdParty,
        verified: m.verified,
      })),
      metadata,
      sessionHandle: session.getHandle(),
      accessTokenExpiresAt: Number(session.getAccessTokenPayload().exp) * 1000,
    });
  });

  app.get('/api/inbox', (_req, res) => {
    res.json({ messages: inbox.list() });
  });

  app.use('/assets', express.static(resolve(ROOT, 'dist'), { fallthrough: false }));
  app.get(PAGES, (_req, res) => {
    res.set({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'cache-control': 'no-store',
    });
    res.send(page);
  });

  app.use(errorHandler());
  console.log(`Example app on ${origin} (core ${coreUrl})`);
});
