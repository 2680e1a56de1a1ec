import { randomBytes } from 'node:crypto';
import { bcrypt } from 'hash-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalProcess, removeDir } from '../helpers/local-process.js';

/**
 * The local runtime hashes and verifies passwords off its HTTP server's event loop: while a
 * sign-in, sign-up or single import spends about a second in bcrypt at cost 14 (the highest cost
 * accepted), `/hello` requests sent after it started are answered before it. Ordering only: no
 * wall-clock limit is asserted (the machine is shared).
 */

const COST = 14;
const PASSWORD = 'correct horse battery staple';
const JSON_HEADERS = { 'content-type': 'application/json' };

let runtime: LocalProcess;

beforeAll(async () => {
  // The app's own hashing (sign-up, plain-text import) at the same cost as the imported hash.
  runtime = await LocalProcess.start({
    args: ['--in-memory'],
    env: { API_KEYS: undefined, BCRYPT_LOG_ROUNDS: String(COST) },
  });
  await runtime.waitUntilReady();
});

afterAll(async () => {
  await runtime?.dispose();
  if (runtime) removeDir(runtime.dataDir);
});

const post = (path: string, body: unknown) =>
  runtime.fetch(path, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) });

/**
 * Starts `slow`, then sends `/hello` three times while it runs (after 200, 400 and 600 ms) and
 * records the order in which the answers arrive.
 */
async function helloDuring(slow: () => Promise<Response>): Promise<{ order: string[]; slowBody: unknown }> {
  const order: string[] = [];
  const slowCall = slow().then(async (response) => {
    order.push('slow');
    expect(response.status).toBe(200);
    return response.json();
  });
  const hellos: Promise<void>[] = [];
  for (const delay of [200, 400, 600]) {
    await new Promise((r) => setTimeout(r, 200));
    hellos.push(
      runtime.fetch('/hello').then(async (response) => {
        expect((await response.text()).trim()).toBe('Hello');
        order.push(`hello ${delay}`);
      }),
    );
  }
  const slowBody = await slowCall;
  await Promise.all(hellos);
  return { order, slowBody };
}

describe('local runtime: password hashing does not block other requests', () => {
  it('answers /hello while a sign-in verifies a cost-14 bcrypt hash', async () => {
    const passwordHash = await bcrypt({
      password: PASSWORD,
      salt: randomBytes(16),
      costFactor: COST,
      outputType: 'encoded',
    });
    const imported = await post('/bulk-import/import', {
      loginMethods: [
        { recipeId: 'emailpassword', email: 'slow-signin@example.com', passwordHash, hashingAlgorithm: 'BCRYPT' },
      ],
    });
    expect(imported.status).toBe(200);

    const { order, slowBody } = await helloDuring(() =>
      post('/public/recipe/signin', { email: 'slow-signin@example.com', password: PASSWORD }),
    );
    expect(slowBody).toMatchObject({ status: 'OK' });
    expect(order).toEqual(['hello 200', 'hello 400', 'hello 600', 'slow']);
  });

  it('answers /hello while a sign-up hashes at the app cost', async () => {
    const { order, slowBody } = await helloDuring(() =>
      post('/public/recipe/signup', { email: 'slow-signup@example.com', password: PASSWORD }),
    );
    expect(slowBody).toMatchObject({ status: 'OK' });
    expect(order).toEqual(['hello 200', 'hello 400', 'hello 600', 'slow']);
  });

  it('answers /hello while a single import hashes a plain-text password', async () => {
    const { order, slowBody } = await helloDuring(() =>
      post('/bulk-import/import', {
        loginMethods: [{ recipeId: 'emailpassword', email: 'slow-import@example.com', plainTextPassword: PASSWORD }],
      }),
    );
    expect(slowBody).toMatchObject({ status: 'OK' });
    expect(order).toEqual(['hello 200', 'hello 400', 'hello 600', 'slow']);
  });
});
