import { randomBytes } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useResolverForTests } from '#functions/wiring/outbound-http.js';
import { hashForStore, startLegacyEndpoint } from '../../bin/examples/legacy-password-endpoint.mjs';
import { call, captureLogs, createApp, expectNoSecrets, importUser, signIn } from './users-support.js';

/**
 * The password-migration hook's host is resolved and every address checked when the request is
 * made, and the connection goes to the address that was checked (docs/security.md "Outbound
 * requests"). The resolver is the test's: a name that resolves to a public address when the app's
 * configuration is stored and to this machine when a user signs in (DNS rebinding) never gets a
 * connection; the same name resolving to loopback in the local runtime is called at the address
 * the resolver gave. No connection ever leaves this machine: the public answers are never used.
 */

const SECRET = randomBytes(24).toString('hex');
const PASSWORD = `pw-rebind-${randomBytes(6).toString('hex')}`;
const EMAIL = 'rebind@example.com';
const NAME = 'legacy-hook.example.com';
/** A public address (never connected to: every test that answers it makes no request with it). */
const PUBLIC: LookupAddress = { address: '93.184.215.14', family: 4 };
const LOOPBACK: LookupAddress = { address: '127.0.0.1', family: 4 };

const logs = captureLogs();
let lookups: string[] = [];
/** A TCP server on loopback that counts the connections it gets (and closes them). */
let trap: Server;
let trapPort = 0;
let trapped = 0;
const sockets = new Set<Socket>();

/** Resolves `NAME` (and `localhost`) to `answers[n]` on the n-th lookup, the last one after that. */
function resolveInTurn(...answers: LookupAddress[][]): void {
  lookups = [];
  useResolverForTests(async (hostname) => {
    lookups.push(hostname);
    if (hostname !== NAME && hostname !== 'localhost') throw Object.assign(new Error('unknown'), { code: 'ENOTFOUND' });
    return answers[Math.min(lookups.length, answers.length) - 1] ?? [];
  });
}

function deployed(): void {
  process.env.LOCAL_RUNTIME = '';
}

const pendingUser = { loginMethods: [{ recipeId: 'emailpassword', email: EMAIL, passwordMigration: 'hook' }] };

beforeAll(async () => {
  trap = createServer((socket) => {
    trapped += 1;
    sockets.add(socket);
    socket.destroy();
  });
  await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
  const address = trap.address();
  trapPort = typeof address === 'object' && address ? address.port : 0;
});

afterEach(() => {
  useResolverForTests(undefined);
  process.env.LOCAL_RUNTIME = 'true';
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => trap.close(resolve));
  logs.restore();
  expectNoSecrets(logs.lines, [SECRET, PASSWORD]);
});

describe('DNS rebinding of the hook host', () => {
  it('a name public when stored and internal at sign-in gets no connection: 503, the cause logged', async () => {
    deployed();
    resolveInTurn([PUBLIC], [LOOPBACK]);
    const appId = await createApp(
      { password_migration_hook_url: `https://${NAME}:${trapPort}/check`, password_migration_hook_secret: SECRET },
      [],
      'rebind',
    );
    // Stored after one lookup, which answered a public address.
    expect(lookups).toEqual([NAME]);
    const imported = await importUser(appId, pendingUser);
    expect(imported.status, imported.text).toBe(200);

    logs.lines.length = 0;
    const reply = await signIn(appId, EMAIL, PASSWORD);
    expect(reply.status, reply.text).toBe(503);
    expect(reply.text).toContain('The legacy password system is unavailable; retry later');
    // The request's own lookup answered this machine: refused before connecting.
    expect(lookups).toEqual([NAME, NAME]);
    expect(trapped).toBe(0);
    const warning = logs.lines.find((l) => l.includes('password-migration hook is unavailable'));
    expect(warning, logs.lines.join('\n')).toContain('"cause":"forbidden-address"');
  });

  it('an answer holding one internal address among public ones is refused as a whole', async () => {
    deployed();
    // Loopback first: were the answer not checked, the connection would go to the trap, not out.
    resolveInTurn([PUBLIC], [LOOPBACK, PUBLIC]);
    const appId = await createApp(
      { password_migration_hook_url: `https://${NAME}:${trapPort}/mixed`, password_migration_hook_secret: SECRET },
      [],
      'rebind',
    );
    expect((await importUser(appId, pendingUser)).status).toBe(200);
    expect((await signIn(appId, EMAIL, PASSWORD)).status).toBe(503);
    expect(lookups).toHaveLength(2);
    expect(trapped).toBe(0);
  });

  it('a name that resolves inside when the configuration is stored is refused with a 400 naming the key', async () => {
    deployed();
    const put = (appId: string) =>
      call('PUT', '/recipe/multitenancy/app/v2', {
        body: {
          appId,
          coreConfig: { password_migration_hook_url: `https://${NAME}/check`, password_migration_hook_secret: SECRET },
        },
      });
    for (const [answer, what] of [
      [[{ address: '10.1.2.3', family: 4 }], 'a private address'],
      [[PUBLIC, { address: '::ffff:7f00:1', family: 6 }], 'an IPv4-mapped IPv6 address'],
      [[{ address: '169.254.169.254', family: 4 }], 'a link-local (cloud metadata) address'],
      [[{ address: 'fd00:ec2::254', family: 6 }], 'a unique-local address'],
    ] as const) {
      resolveInTurn([...answer]);
      const reply = await put(`rebind-${randomBytes(4).toString('hex')}`);
      expect(reply.status, reply.text).toBe(400);
      expect(reply.text).toBe(
        `Invalid core config: 'password_migration_hook_url' must name a public host: ${NAME} resolves to ${what}, which the core never calls`,
      );
    }
    // Not resolvable now: stored (every request checks again).
    resolveInTurn([]);
    expect((await put(`rebind-${randomBytes(4).toString('hex')}`)).status).toBe(200);
  });

  it('refuses internal literals and plain http outside the local runtime, with a 400 naming the key', async () => {
    deployed();
    for (const url of ['https://169.254.169.254/latest', 'https://10.0.0.1:9001/x', 'https://[::ffff:a9fe:a9fe]/']) {
      const reply = await call('PUT', '/recipe/multitenancy/app/v2', {
        body: {
          appId: `rebind-${randomBytes(4).toString('hex')}`,
          coreConfig: { password_migration_hook_url: url, password_migration_hook_secret: SECRET },
        },
      });
      expect(reply.status, url).toBe(400);
      expect(reply.text).toMatch(/^Invalid core config: 'password_migration_hook_url' must name a public host: /);
    }
    const http = await call('PUT', '/recipe/multitenancy/app/v2', {
      body: {
        appId: `rebind-${randomBytes(4).toString('hex')}`,
        coreConfig: {
          password_migration_hook_url: `http://127.0.0.1:${trapPort}/`,
          password_migration_hook_secret: SECRET,
        },
      },
    });
    expect(http.status).toBe(400);
    expect(http.text).toContain('only in the local runtime');
  });

  it('in the local runtime, a name resolving to loopback is called at the address the lookup gave', async () => {
    const legacy = await startLegacyEndpoint({
      secret: SECRET,
      hashes: { [EMAIL]: await hashForStore(PASSWORD, { N: 1024 }) },
    });
    try {
      resolveInTurn([LOOPBACK]);
      const appId = await createApp(
        {
          password_migration_hook_url: `http://localhost:${legacy.port}/check`,
          password_migration_hook_secret: SECRET,
        },
        [],
        'rebind',
      );
      expect((await importUser(appId, pendingUser)).status).toBe(200);
      const reply = await signIn(appId, EMAIL, PASSWORD);
      expect(reply.status, reply.text).toBe(200);
      expect(reply.json.status).toBe('OK');
      expect(lookups).toContain('localhost');
    } finally {
      await legacy.close();
    }
  });
});
