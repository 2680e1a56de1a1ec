/**
 * Measurement 10: sessions (docs/sessions.md "Cost on AWS"). Over HTTP against the runtime, sequentially:
 * a sign-in alone and a sign-in followed by session creation (what the SDK does at sign-in), a
 * refresh (the current refresh token: a new child, no write) and `/hello` as the bare request of the
 * same run. In this process, through the real handlers with the recorder on: the DynamoDB calls of
 * sign-in, session creation, a refresh, the first verify after a refresh (promotion) and a refresh
 * with the child (promotion by refresh), priced with AWS's rules.
 */
import bcrypt from 'bcryptjs';
import { ROUTES } from '#functions/routes.js';
import { createRouter, dispatch } from '../../bin/local/dispatch.js';
import type { InProcess, RecordedCall } from '../lib/calls.js';
import { call, callOk, type Runtime } from '../lib/runtime.js';
import { percentile, timed } from '../lib/stats.js';
import { shortId } from '../lib/users.js';

const PASSWORD = 'correct horse battery staple';
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

const sessionBody = (userId: string) => ({
  userId,
  userDataInJWT: { iss: 'https://api.example.com/auth' },
  userDataInDatabase: {},
  enableAntiCsrf: false,
  useDynamicSigningKey: true,
});
const refreshBody = (refreshToken: string) => ({ refreshToken, enableAntiCsrf: false, useDynamicSigningKey: true });

/** An app with one bcrypt user (cost 10, a typical imported hash). */
export async function prepareSessions(runtime: Runtime): Promise<{ appId: string; email: string }> {
  const appId = `sessions-${shortId()}`;
  const email = `sessions-${shortId()}@example.com`;
  await callOk(runtime, 'PUT', '/recipe/multitenancy/app/v2', { appId });
  await callOk(runtime, 'POST', `/appid-${appId}/bulk-import/import`, {
    loginMethods: [
      { recipeId: 'emailpassword', email, passwordHash: bcrypt.hashSync(PASSWORD, 10), hashingAlgorithm: 'BCRYPT' },
    ],
  });
  return { appId, email };
}

export async function sessionsRun(runtime: Runtime, target: { appId: string; email: string }, requests: number) {
  const base = `/appid-${target.appId}`;
  const signIn: number[] = [];
  const withSession: number[] = [];
  const refresh: number[] = [];
  const hello: number[] = [];
  for (let i = 0; i < requests; i++) {
    const signInOnce = () =>
      callOk(runtime, 'POST', `${base}/recipe/signin`, { email: target.email, password: PASSWORD });
    await timed(signIn, signInOnce);
    const session = await timed(withSession, async () => {
      const user = await signInOnce();
      return callOk(runtime, 'POST', `${base}/public/recipe/session`, sessionBody((user.user as { id: string }).id));
    });
    await timed(refresh, () =>
      callOk(
        runtime,
        'POST',
        `${base}/recipe/session/refresh`,
        refreshBody((session.refreshToken as { token: string }).token),
      ),
    );
    await timed(hello, async () => {
      const h = await call(runtime, 'GET', '/hello');
      if (h.status !== 200) throw new Error('hello failed');
    });
  }
  return {
    signInP50: percentile(signIn, 50),
    signInP99: percentile(signIn, 99),
    signInWithSessionP50: percentile(withSession, 50),
    signInWithSessionP99: percentile(withSession, 99),
    sessionRatioP50: percentile(withSession, 50) / percentile(signIn, 50),
    refreshP50: percentile(refresh, 50),
    refreshP99: percentile(refresh, 99),
    helloP50: percentile(hello, 50),
    refreshRatioP50: percentile(refresh, 50) / percentile(hello, 50),
  };
}

function units(calls: readonly RecordedCall[]) {
  const writes = calls.filter((c) => c.kind === 'write');
  const tableWrite = sum(writes.map((c) => c.computed?.tableWriteUnits ?? 0));
  const indexWrite = sum(writes.flatMap((c) => Object.values(c.computed?.indexWriteUnits ?? {})));
  return {
    calls: calls.map((c) => c.command),
    tableWriteUnits: tableWrite,
    indexWriteUnits: indexWrite,
    writeUnits: tableWrite + indexWrite,
    readUnits: sum(calls.map((c) => c.computed?.readUnits ?? 0)),
    sessionItemBytes: Math.max(
      0,
      ...calls.flatMap((c) =>
        c.actions.filter((a) => a.entityType === 'SESSION').map((a) => Math.max(a.beforeBytes, a.afterBytes)),
      ),
    ),
  };
}

/**
 * The DynamoDB calls of each step, through the real handlers in this process with warm key caches
 * (a first session of the app creates its keys once; that is set-up, not per sign-in).
 */
export async function recordSessionUnits(runtime: Runtime, inProcess: InProcess) {
  const target = await prepareSessions(runtime);
  const base = `/appid-${target.appId}`;
  const router = createRouter(ROUTES);
  const step = async (phase: string, method: string, path: string, body: unknown) => {
    inProcess.phase = phase;
    const reply = await dispatch(router, {
      method,
      url: `${base}${path}`,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify(body)),
    });
    const json = JSON.parse(reply.body) as Record<string, any>;
    if (json.status !== 'OK') throw new Error(`${phase}: ${reply.statusCode} ${reply.body}`);
    return { json, calls: inProcess.calls.filter((c) => c.phase === phase) };
  };
  const previous = { images: inProcess.images, phase: inProcess.phase };
  inProcess.images = true;
  try {
    // Warm-up: the app's first session creates its signing and refresh-token keys.
    const warm = await step('session-warmup', 'POST', '/public/recipe/session', sessionBody('warm-up'));
    await step('session-warmup-refresh', 'POST', '/recipe/session/refresh', refreshBody(warm.json.refreshToken.token));
    const signIn = await step('session-signin', 'POST', '/recipe/signin', { email: target.email, password: PASSWORD });
    const created = await step('session-create', 'POST', '/public/recipe/session', sessionBody(signIn.json.user.id));
    const refreshed = await step(
      'session-refresh',
      'POST',
      '/recipe/session/refresh',
      refreshBody(created.json.refreshToken.token),
    );
    const promoted = await step('session-verify-promote', 'POST', '/recipe/session/verify', {
      accessToken: refreshed.json.accessToken.token,
      doAntiCsrfCheck: false,
      enableAntiCsrf: false,
      checkDatabase: false,
    });
    if (!promoted.json.accessToken) throw new Error('verify did not promote the session');
    const again = await step(
      'session-refresh-again',
      'POST',
      '/recipe/session/refresh',
      refreshBody(refreshed.json.refreshToken.token),
    );
    const byChild = await step(
      'session-refresh-child',
      'POST',
      '/recipe/session/refresh',
      refreshBody(again.json.refreshToken.token),
    );
    return {
      signIn: units(signIn.calls),
      createSession: units(created.calls),
      refresh: units(refreshed.calls),
      verifyWithPromotion: units(promoted.calls),
      refreshWithChild: units(byChild.calls),
    };
  } finally {
    inProcess.images = previous.images;
    inProcess.phase = previous.phase;
  }
}
