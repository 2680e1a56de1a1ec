import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { availableParallelism } from 'node:os';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashForStore, startLegacyEndpoint } from '../../bin/examples/legacy-password-endpoint.mjs';
import type { LocalProcess } from '../helpers/local-process.js';
import { coreCaller, createApp, initSdk, startRuntime, stopRuntime } from './migrate-helpers.js';

/**
 * The hook's circuit breaker closes again (docs/password-migration-hook.md "Circuit breaker"):
 * opened in every execution context of the local runtime by a hook that answers 500, it answers
 * 503 at once without calling the hook; once the hook is healthy again and the cool-down has
 * passed, one sign-in through supertokens-node probes it, is answered and signs the user in.
 *
 * A runtime and an app of its own: the breaker's state lives in the runtime's contexts, per app,
 * so the other hook tests' outages must not leak into this one (nor this one into theirs).
 */

const API_KEY = `breaker-e2e-${randomBytes(12).toString('hex')}`;
const APP_ID = `breaker-${randomBytes(4).toString('hex')}`;
const SECRET = randomBytes(24).toString('hex');
const EMAIL = 'breaker@example.com';
const PASSWORD = `pw-breaker-${randomBytes(6).toString('hex')}`;
/** The breaker's documented figures (functions/domain/password-hook/breaker.ts, not configurable). */
const FAILURES_TO_OPEN = 5;
const COOL_DOWN_MS = 30_000;

let runtime: LocalProcess | undefined;
let dir: string | undefined;
let legacy: { port: number; close(): Promise<void> } | undefined;
const verdicts: string[] = [];
/**
 * The app's hook URL: while `failing`, it answers 500; otherwise it forwards the request (body
 * and signature) to the reference legacy endpoint and relays its answer.
 */
let hook: Server | undefined;
let hookPort = 0;
let failing = true;
let hookRequests = 0;
let lastHookRequestAt = 0;

async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
  hookRequests += 1;
  lastHookRequestAt = Date.now();
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  if (failing) {
    response.writeHead(500).end();
    return;
  }
  const forwarded = await fetch(`http://127.0.0.1:${legacy?.port}/check`, {
    method: 'POST',
    headers: {
      'content-type': String(request.headers['content-type']),
      'x-auth-core-signature': String(request.headers['x-auth-core-signature']),
    },
    body: Buffer.concat(chunks),
  });
  response.writeHead(forwarded.status, { 'content-type': 'application/json' }).end(await forwarded.text());
}

const call = coreCaller(() => runtime!, API_KEY);

async function rawSignIn(): Promise<{ status: number; retryAfter: string | null; text: string }> {
  const reply = await runtime!.fetch(`/appid-${APP_ID}/public/recipe/signin`, {
    method: 'POST',
    headers: { 'api-key': API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
  });
  return { status: reply.status, retryAfter: reply.headers.get('retry-after'), text: await reply.text() };
}

/** `width` sign-ins at once, so that every execution context of the pool gets some. */
async function concurrentSignIns(width: number) {
  return Promise.all(Array.from({ length: width }, rawSignIn));
}

beforeAll(async () => {
  legacy = await startLegacyEndpoint({
    secret: SECRET,
    hashes: { [EMAIL]: await hashForStore(PASSWORD, { N: 1024 }) },
    onRequest: (e) => verdicts.push(e.verdict),
  });
  hook = createServer((request, response) => {
    answer(request, response).catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => hook!.listen(0, '127.0.0.1', resolve));
  const address = hook.address();
  hookPort = typeof address === 'object' && address ? address.port : 0;

  ({ runtime, dir } = await startRuntime({ API_KEYS: API_KEY, BCRYPT_LOG_ROUNDS: '6' }, 'breaker-e2e-'));
  await createApp(call, APP_ID, {
    password_migration_hook_url: `http://127.0.0.1:${hookPort}/check`,
    password_migration_hook_secret: SECRET,
  });
  const imported = await call('POST', `/appid-${APP_ID}/bulk-import/import`, {
    externalUserId: 'legacy-breaker-1',
    loginMethods: [{ recipeId: 'emailpassword', email: EMAIL, passwordMigration: 'hook' }],
  });
  expect(imported.status, imported.text).toBe(200);
  initSdk('breaker-e2e', runtime, APP_ID, API_KEY);
}, 180_000);

afterAll(async () => {
  await new Promise((resolve) => (hook ? hook.close(resolve) : resolve(undefined)));
  await legacy?.close();
  await stopRuntime(runtime, dir);
});

describe('password-migration hook circuit breaker', () => {
  // Waits out the 30 s cool-down: well inside the e2e project's test timeout (vitest.config.ts).
  it('closes again after the cool-down once the old system answers, with one sign-in through the SDK', async () => {
    const environments = Math.max(2, availableParallelism());
    const width = 2 * environments;

    // Open the breaker in every context: concurrent sign-ins until the hook stops being reached
    // (three rounds in a row without a call), each answering 503, never wrong credentials.
    let quietRounds = 0;
    for (let round = 0; quietRounds < 3; round++) {
      expect(round, 'the hook kept being called: the breaker did not open').toBeLessThan(50);
      const before = hookRequests;
      for (const reply of await concurrentSignIns(width)) {
        expect(reply.status, reply.text).toBe(503);
        expect(reply.text).not.toContain('WRONG_CREDENTIALS');
      }
      quietRounds = hookRequests === before ? quietRounds + 1 : 0;
    }
    // Every context (one call at a time each) called the hook the documented count of times, then opened.
    expect(hookRequests).toBe(FAILURES_TO_OPEN * environments);

    // Open everywhere: sign-ins answer 503 with Retry-After at once, and the hook is not reached.
    const reachedWhenOpen = hookRequests;
    for (const reply of await concurrentSignIns(width)) {
      expect(reply.status).toBe(503);
      const retryAfter = Number(reply.retryAfter);
      expect(Number.isInteger(retryAfter), String(reply.retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(COOL_DOWN_MS / 1000);
    }
    await expect(EmailPassword.signIn('public', EMAIL, PASSWORD)).rejects.toThrow(/503/);
    expect(hookRequests).toBe(reachedWhenOpen);
    expect(verdicts).toEqual([]);

    // The old system is back at the same URL; wait out the cool-down of the last context to open.
    failing = false;
    const waitMs = lastHookRequestAt + COOL_DOWN_MS + 1_000 - Date.now();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, waitMs)));

    // Half-open: the next sign-in probes the hook, which answers; the user is signed in.
    const signedIn = await EmailPassword.signIn('public', EMAIL, PASSWORD);
    expect(signedIn.status).toBe('OK');
    if (signedIn.status === 'OK') expect(signedIn.user.id).toBe('legacy-breaker-1');
    expect(hookRequests).toBe(reachedWhenOpen + 1);
    expect(verdicts).toEqual(['match']);
    const status = await call('GET', `/appid-${APP_ID}/password-migration/status`);
    expect(status.json).toEqual({ status: 'OK', pending: 0, migrated: 1 });
  });
});
