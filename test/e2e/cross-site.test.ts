/**
 * The local core refuses cross-site use (bin/local/request-guard.ts, docs/safe-defaults.md): a web page
 * the developer opens may POST `text/plain` JSON to the core without a CORS preflight, and a page
 * whose DNS name is rebound to 127.0.0.1 may even read the answers. Against `npm start` (no API
 * key, the default): a foreign Origin — `null` too — and a Host that does not name the core answer
 * 403 with a plain message and change nothing; the official SDK, curl-style requests and the
 * command's requests (no Origin, the core's own Host) keep working.
 */
import { execFile } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalProcess, removeDir } from '../helpers/local-process.js';

const SDK_CLIENT = resolve(import.meta.dirname, 'fixtures', 'sdk-app-client.ts');
const RUN = Math.random().toString(36).slice(2, 8);

let runtime: LocalProcess;

beforeAll(async () => {
  runtime = await LocalProcess.start({ args: ['--in-memory'], env: { API_KEYS: undefined } });
  await runtime.waitForOutput(/Auth core \(local\) ready/, 120_000);
});

afterAll(async () => {
  await runtime?.dispose();
  if (runtime) removeDir(runtime.dataDir);
});

interface Answer {
  readonly status: number;
  readonly type: string | undefined;
  readonly text: string;
}

/** A raw HTTP request to the runtime's port: any Host and Origin headers, as a browser could send them. */
function send(options: {
  method: string;
  path: string;
  host?: string;
  origin?: string;
  contentType?: string;
  body?: string;
}): Promise<Answer> {
  return new Promise((resolveAnswer, reject) => {
    const headers: Record<string, string> = { host: options.host ?? `127.0.0.1:${runtime.port}` };
    if (options.origin !== undefined) headers.origin = options.origin;
    if (options.contentType !== undefined) headers['content-type'] = options.contentType;
    if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
    const req = httpRequest(
      { host: '127.0.0.1', port: runtime.port, method: options.method, path: options.path, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolveAnswer({
            status: res.statusCode ?? 0,
            type: res.headers['content-type'],
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

async function appIds(): Promise<string[]> {
  const answer = await send({ method: 'GET', path: '/recipe/multitenancy/app/list/v2' });
  expect(answer.status, answer.text).toBe(200);
  return (JSON.parse(answer.text) as { apps: { appId: string }[] }).apps.map((a) => a.appId);
}

const ORIGIN_REFUSED = (origin: string) =>
  `Cross-site request refused: Origin '${origin}' is not this core's own. ` +
  'The core is called from servers (the SDK, curl, npx auth-core), never from a web page.\n';

describe('cross-site requests to the local core', () => {
  it('a foreign Origin with a text/plain JSON body (no preflight) creates no app, removes none, plants no user', async () => {
    const evil = `evil-${RUN}`;
    const created = await send({
      method: 'PUT',
      path: '/recipe/multitenancy/app/v2',
      origin: 'https://attacker.example',
      contentType: 'text/plain',
      body: JSON.stringify({ appId: evil }),
    });
    expect(created).toEqual({
      status: 403,
      type: 'text/plain; charset=utf-8',
      text: ORIGIN_REFUSED('https://attacker.example'),
    });
    expect(await appIds()).not.toContain(evil);

    // The same request without an Origin (a server's) is served: it is the Origin that is refused.
    const keep = `keep-${RUN}`;
    const served = await send({
      method: 'PUT',
      path: '/recipe/multitenancy/app/v2',
      contentType: 'text/plain',
      body: JSON.stringify({ appId: keep }),
    });
    expect(served.status, served.text).toBe(200);
    expect(await appIds()).toContain(keep);

    const removal = await send({
      method: 'POST',
      path: '/recipe/multitenancy/app/remove',
      origin: 'null',
      contentType: 'text/plain',
      body: JSON.stringify({ appId: keep }),
    });
    expect(removal).toEqual({ status: 403, type: 'text/plain; charset=utf-8', text: ORIGIN_REFUSED('null') });
    expect(await appIds()).toContain(keep);

    const signUp = await send({
      method: 'POST',
      path: `/appid-${keep}/public/recipe/signup`,
      origin: 'http://localhost:3000',
      contentType: 'text/plain',
      body: JSON.stringify({ email: 'planted@example.com', password: 'planted-password-1' }),
    });
    expect(signUp.status).toBe(403);
    const count = await send({ method: 'GET', path: `/appid-${keep}/users/count` });
    expect(JSON.parse(count.text)).toMatchObject({ status: 'OK', count: 0 });
  });

  it('a DNS name rebound to 127.0.0.1 (its Host) reads nothing and writes nothing', async () => {
    const host = `rebind-${RUN}.attacker.example:${runtime.port}`;
    const list = await send({ method: 'GET', path: '/recipe/multitenancy/app/list/v2', host });
    expect(list).toEqual({
      status: 403,
      type: 'text/plain; charset=utf-8',
      text:
        `Request refused: Host '${host}' does not name this core (a DNS name that points here is not enough). ` +
        `Use http://127.0.0.1:${runtime.port}, or list the name in ALLOWED_HOSTS.\n`,
    });
    expect(list.text).not.toContain('"apps"');
    const rebound = `rebound-${RUN}`;
    const created = await send({
      method: 'PUT',
      path: '/recipe/multitenancy/app/v2',
      host,
      contentType: 'application/json',
      body: JSON.stringify({ appId: rebound }),
    });
    expect(created.status).toBe(403);
    expect(await appIds()).not.toContain(rebound);
  });

  it("serves what servers send: no Origin, the core's own Host (127.0.0.1 or localhost) — curl, the command", async () => {
    for (const host of [`127.0.0.1:${runtime.port}`, `localhost:${runtime.port}`]) {
      const hello = await send({ method: 'GET', path: '/hello', host });
      expect(hello, host).toMatchObject({ status: 200, text: 'Hello\n' });
    }
    // A page served by the core itself (its own origin) is not cross-site.
    const own = await send({
      method: 'GET',
      path: '/hello',
      origin: `http://localhost:${runtime.port}`,
      host: `localhost:${runtime.port}`,
    });
    expect(own.status).toBe(200);
    // fetch() in Node (what the SDK and the command use) sends no Origin.
    const fetched = await runtime.fetch('/apiversion');
    expect(fetched.status).toBe(200);
  });

  it('the official SDK (supertokens-node) signs in an imported user through the guard', async () => {
    const appId = `sdk-${RUN}`;
    const created = await runtime.fetch('/recipe/multitenancy/app/v2', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ appId }),
    });
    expect(created.status).toBe(200);
    const imported = await runtime.fetch(`/appid-${appId}/bulk-import/import`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        loginMethods: [{ recipeId: 'emailpassword', email: 'sdk@example.com', plainTextPassword: 'sdk-password-123' }],
      }),
    });
    expect(imported.status, await imported.text()).toBe(200);
    for (const base of [runtime.url, `http://localhost:${runtime.port}`]) {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          '--import',
          'tsx',
          SDK_CLIENT,
          JSON.stringify({
            connectionURI: `${base}/appid-${appId}`,
            users: [{ email: 'sdk@example.com', password: 'sdk-password-123' }],
          }),
        ],
        { cwd: resolve(import.meta.dirname, '..', '..'), timeout: 60_000 },
      );
      const result = JSON.parse(stdout.trim().split('\n').at(-1) as string) as {
        users: { status: string }[];
        count: number;
      };
      expect(result, base).toMatchObject({ users: [{ status: 'OK' }], count: 1 });
    }
    expect(runtime.stderr).not.toMatch(/refused/i);
  });
});
