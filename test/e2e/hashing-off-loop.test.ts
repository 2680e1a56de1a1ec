import { randomBytes } from 'node:crypto';
import { Agent, createServer, request as forward, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bcrypt } from 'hash-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../bin/local/dynamodb.js';
import { LocalProcess, removeDir } from '../helpers/local-process.js';

/**
 * The local runtime hashes and verifies passwords off its HTTP server's event loop: while a
 * sign-in, sign-up or single import spends about a second in bcrypt at cost 14 (the highest cost
 * accepted), `/hello` keeps being answered.
 *
 * Ordering only, no clock: the runtime's DynamoDB is reached through a pass-through proxy that sees
 * every call it makes for the test's app (the slow requests are its only ones; `/hello` reads the
 * public app). A `/hello` counts as answered during the hashing when it was sent after one of the
 * slow request's own calls had been answered, none of them was in flight when it was sent, none
 * started or ended until its answer arrived, and the slow request was still unanswered then. If
 * the hashing ran on the event loop, such a `/hello` could only fit in the few instructions
 * between the slow request's reads and its hash, or arrive together with its answer (one at most):
 * never {@link DURING} of them (with the hash on the loop, none at all was seen). Off the loop, a
 * few hundred are. `/hello`s are sent until the slow request answers, however long that takes.
 */

const COST = 14;
const PASSWORD = 'correct horse battery staple';
const JSON_HEADERS = { 'content-type': 'application/json' };
/** `/hello`s that must be answered during one hash (see above for why more than one). */
const DURING = 5;

/**
 * A pass-through proxy in front of DynamoDB Local that watches the calls naming one app (every key
 * of an app's data names it; `/hello`'s own reads are of the public app and are not watched).
 */
class DynamoDbTap {
  /** Watched calls forwarded and not yet answered. */
  inFlight = 0;
  /** Watched calls started plus watched calls answered: changes whenever the app's data is read or written. */
  events = 0;
  /** Watched calls answered. */
  answered = 0;
  private readonly agent = new Agent({ keepAlive: true });
  private readonly server = createServer((req, res) => this.pass(req, res));

  private constructor(
    private readonly upstream: URL,
    private readonly watched: string,
  ) {}

  static async start(upstream: string, appId: string): Promise<DynamoDbTap> {
    const tap = new DynamoDbTap(new URL(upstream), `APP#${appId}`);
    await new Promise<void>((r) => tap.server.listen(0, '127.0.0.1', r));
    return tap;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private pass(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (body.toString('utf8').includes(this.watched)) {
        this.inFlight++;
        this.events++;
        res.once('close', () => {
          this.inFlight--;
          this.events++;
          this.answered++;
        });
      }
      const upstream = forward(
        {
          host: this.upstream.hostname,
          port: this.upstream.port,
          method: req.method,
          path: req.url,
          // As a reverse proxy does: DynamoDB Local answers requests naming its own host only
          // (bin/local/LoopbackDynamoDbLocal.java); it does not check the signature over the host.
          headers: { ...req.headers, host: this.upstream.host },
          agent: this.agent,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
    this.agent.destroy();
  }
}

let dynamodb: DynamoDbLocal | undefined;
let tap: DynamoDbTap | undefined;
let runtime: LocalProcess;
const APP = `hashing-${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  dynamodb = await startDynamoDbLocal();
  tap = await DynamoDbTap.start(dynamodb.endpoint, APP);
  // The app's own hashing (sign-up, plain-text import) at the same cost as the imported hash.
  runtime = await LocalProcess.start({
    env: { API_KEYS: undefined, BCRYPT_LOG_ROUNDS: String(COST), DYNAMODB_ENDPOINT: tap.url },
  });
  await runtime.waitForOutput(/routes; Ctrl-C to stop/, 120_000);
  const created = await runtime.fetch('/recipe/multitenancy/app/v2', {
    method: 'PUT',
    headers: JSON_HEADERS,
    body: JSON.stringify({ appId: APP }),
  });
  expect(created.status, await created.text()).toBe(200);
});

afterAll(async () => {
  await runtime?.dispose();
  if (runtime) removeDir(runtime.dataDir);
  await tap?.close();
  await dynamodb?.stop();
});

const post = (path: string, body: unknown) =>
  runtime.fetch(`/appid-${APP}${path}`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) });

/**
 * Starts `slow`, then sends `/hello` after `/hello` (each once the previous one answered) until
 * `slow` answers; returns its answer and how many `/hello`s were answered during its hashing.
 */
async function helloDuring(slow: () => Promise<Response>): Promise<{ during: number; status: number; body: any }> {
  const watched = tap as DynamoDbTap;
  const readsBefore = watched.answered;
  let settled = false;
  const slowCall = slow().then(
    async (response) => {
      settled = true;
      return { status: response.status, body: await response.json() };
    },
    (error: unknown) => {
      settled = true;
      throw error;
    },
  );
  let during = 0;
  while (!settled) {
    const readsBegun = watched.answered > readsBefore;
    const quiet = watched.inFlight === 0;
    const events = watched.events;
    const hello = await runtime.fetch('/hello');
    expect([hello.status, (await hello.text()).trim()]).toEqual([200, 'Hello']);
    if (readsBegun && quiet && watched.events === events && !settled) during++;
  }
  return { during, ...(await slowCall) };
}

describe('local runtime: password hashing does not block other requests', () => {
  it('answers /hello while a sign-in verifies a cost-14 bcrypt hash, and the sign-in still succeeds', async () => {
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
    const importedBody = (await imported.json()) as { user: { id: string } };
    expect(imported.status, JSON.stringify(importedBody)).toBe(200);
    const userId = importedBody.user.id;

    const signIn = await helloDuring(() =>
      post('/public/recipe/signin', { email: 'slow-signin@example.com', password: PASSWORD }),
    );
    expect(signIn.status).toBe(200);
    expect(signIn.body).toMatchObject({
      status: 'OK',
      recipeUserId: userId,
      user: { id: userId, emails: ['slow-signin@example.com'] },
    });
    expect(signIn.during).toBeGreaterThanOrEqual(DURING);

    // The wrong password is refused just as slowly, and just as politely to everyone else.
    const wrong = await helloDuring(() =>
      post('/public/recipe/signin', { email: 'slow-signin@example.com', password: `${PASSWORD}!` }),
    );
    expect([wrong.status, wrong.body]).toEqual([200, { status: 'WRONG_CREDENTIALS_ERROR' }]);
    expect(wrong.during).toBeGreaterThanOrEqual(DURING);
  });

  it('answers /hello while a sign-up hashes at the app cost, and the new user signs in', async () => {
    const signUp = await helloDuring(() =>
      post('/public/recipe/signup', { email: 'slow-signup@example.com', password: PASSWORD }),
    );
    expect(signUp.status).toBe(200);
    expect(signUp.body).toMatchObject({ status: 'OK', user: { emails: ['slow-signup@example.com'] } });
    expect(signUp.during).toBeGreaterThanOrEqual(DURING);
    const signIn = await post('/public/recipe/signin', { email: 'slow-signup@example.com', password: PASSWORD });
    expect(await signIn.json()).toMatchObject({ status: 'OK', recipeUserId: signUp.body.recipeUserId });
  });

  it('answers /hello while a single import hashes a plain-text password, and the user signs in', async () => {
    const imported = await helloDuring(() =>
      post('/bulk-import/import', {
        loginMethods: [{ recipeId: 'emailpassword', email: 'slow-import@example.com', plainTextPassword: PASSWORD }],
      }),
    );
    expect(imported.status).toBe(200);
    expect(imported.body).toMatchObject({ status: 'OK', user: { emails: ['slow-import@example.com'] } });
    expect(imported.during).toBeGreaterThanOrEqual(DURING);
    const signIn = await post('/public/recipe/signin', { email: 'slow-import@example.com', password: PASSWORD });
    expect(await signIn.json()).toMatchObject({ status: 'OK', recipeUserId: imported.body.user.id });
  });
});
