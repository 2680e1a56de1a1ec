/**
 * A key service that does not answer is backpressure, never a 500 and never a FAILED user: with the
 * local key file unreadable, staging, config writes and a Firebase sign-in answer 503 with
 * `Retry-After`, the import worker returns its messages for later, and once the file can be read
 * again everything goes on. Each "core" below is the router and handlers loaded afresh with
 * CREDENTIALS_KEY_FILE pointing at the file given (the key file is read at its first use).
 */

import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createApp, importUser, signIn, sqsEvent, stagedCount, useBulkTestFile, userCount } from './bulk-support.js';

const FIREBASE = {
  signerKey: 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==',
  password: 'user1password',
  stored:
    '$f_scrypt$lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==$42xEC+ixf3L2lw==$m=14$r=8$s=Bw==',
};
const HASH = '$2a$04$abcdefghijklmnopqrstuu5XwPGRwEj1m5dc8x1fFLhzmkmRkp4qC';
const SECRETS = [FIREBASE.signerKey, FIREBASE.stored, FIREBASE.password, HASH];
const { logs } = useBulkTestFile(SECRETS);

const dir = join(tmpdir(), `key-service-${randomBytes(6).toString('hex')}`);
mkdirSync(dir, { recursive: true });
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const KEY = randomBytes(32);

/** A key file holding the key. */
function goodKeyFile(name: string): string {
  const path = join(dir, name);
  writeFileSync(path, KEY, { mode: 0o600 });
  return path;
}

/** A path that cannot be read as a file (a directory: EISDIR; as root, permissions cannot stop a read). */
function unreadableKeyFile(name: string): string {
  const path = join(dir, name);
  mkdirSync(path);
  return path;
}

/** The router, handlers and import worker loaded afresh, reading the key from `keyFile`. */
async function coreWithKeyFile(keyFile: string) {
  process.env.CREDENTIALS_KEY_FILE = keyFile;
  vi.resetModules();
  const [{ call }, { createImportWorker }, { setLogSink }] = await Promise.all([
    import('../helpers/core-client.js'),
    import('#functions/workers/import-worker/handler.js'),
    import('#functions/shared/logger.js'),
  ]);
  setLogSink((line) => logs.lines.push(line));
  return { call, worker: createImportWorker() };
}

const staged = (email: string) => ({
  loginMethods: [{ recipeId: 'emailpassword', email, passwordHash: HASH, hashingAlgorithm: 'BCRYPT' }],
});

function expectKeyServiceUnavailable(reply: { status: number; text: string; headers: Record<string, string> }) {
  expect([reply.status, reply.text]).toEqual([503, 'The credentials key service is unavailable; retry later']);
  expect(reply.headers['retry-after']).toBe('5');
}

describe('an unreadable local key file', () => {
  it('makes staging, config writes and a Firebase sign-in answer 503 with Retry-After, until it can be read again', async () => {
    const good = await coreWithKeyFile(goodKeyFile('good-1.key'));
    const appId = await createApp({}, [], 'keysvc');
    const set = await good.call('PUT', '/recipe/multitenancy/app/v2', {
      body: { appId, coreConfig: { firebase_password_hashing_signer_key: FIREBASE.signerKey } },
    });
    expect(set.status, set.text).toBe(200);
    const fbUser = {
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email: 'fb@x.com',
          passwordHash: FIREBASE.stored,
          hashingAlgorithm: 'FIREBASE_SCRYPT',
        },
      ],
    };
    expect((await importUser(appId, fbUser)).status).toBe(200);
    expect((await importUser(appId, staged('bcrypt@x.com'))).status).toBe(200);
    const signInWith = (core: typeof good, email: string, password: string) =>
      core.call('POST', `/appid-${appId}/public/recipe/signin`, { body: { email, password } });
    expect((await signInWith(good, 'fb@x.com', FIREBASE.password)).json.status).toBe('OK');

    const brokenPath = unreadableKeyFile('broken-1.key');
    const broken = await coreWithKeyFile(brokenPath);
    const refused = await broken.call('POST', `/appid-${appId}/bulk-import/users`, {
      body: { users: [staged('new@x.com')] },
    });
    expect([refused.status, refused.text, refused.headers['retry-after']]).toEqual([
      503,
      'The credentials key service did not answer (KMS throttling or an outage, or the local key file cannot be read): nothing was staged; send the request again after 5 s',
      '5',
    ]);
    expect(await stagedCount(appId)).toBe(0);
    expectKeyServiceUnavailable(
      await broken.call('PUT', '/recipe/multitenancy/app/v2', {
        body: { appId, coreConfig: { firebase_password_hashing_signer_key: 'c2Vjb25kLWtleQ==' } },
      }),
    );
    expectKeyServiceUnavailable(await signInWith(broken, 'fb@x.com', FIREBASE.password));
    // What needs no key goes on: a bcrypt user's sign-in, a read of the app.
    expect((await signInWith(broken, 'bcrypt@x.com', 'wrong')).json.status).toBe('WRONG_CREDENTIALS_ERROR');
    const listed = await broken.call('GET', `/appid-${appId}/recipe/multitenancy/tenant/v2`);
    expect(listed.status).toBe(200);
    expect(listed.json.coreConfig.firebase_password_hashing_signer_key).toMatch(/^sha256:[0-9a-f]{16}$/);
    const unavailable = logs.lines.filter((l) => l.includes('request met backpressure'));
    expect(unavailable.length).toBeGreaterThanOrEqual(3);
    expect(unavailable.join('\n')).toContain('cannot be read (EISDIR)');

    // The file restored: the same core reads it at its next use.
    rmSync(brokenPath, { recursive: true });
    writeFileSync(brokenPath, KEY, { mode: 0o600 });
    expect((await signInWith(broken, 'fb@x.com', FIREBASE.password)).json.status).toBe('OK');
    const stagedNow = await broken.call('POST', `/appid-${appId}/bulk-import/users`, {
      body: { users: [staged('new@x.com')] },
    });
    expect(stagedNow.status, stagedNow.text).toBe(200);
    expect(await stagedCount(appId, 'NEW')).toBe(1);
  });

  it('makes the import worker return its messages for later, never FAILED; they import once the key is back', async () => {
    const good = await coreWithKeyFile(goodKeyFile('good-2.key'));
    const appId = await createApp({}, [], 'keysvc');
    const stagedReply = await good.call('POST', `/appid-${appId}/bulk-import/users`, {
      body: { users: [staged('w1@x.com'), staged('w2@x.com'), staged('w3@x.com')] },
    });
    expect(stagedReply.status, stagedReply.text).toBe(200);
    const ids: string[] = stagedReply.json.users.map((u: { userId: string }) => u.userId);

    const brokenPath = unreadableKeyFile('broken-2.key');
    const broken = await coreWithKeyFile(brokenPath);
    // Together (the grouped path) and one at a time.
    for (const batch of [ids, [ids[0] as string]]) {
      // Backpressure: each message is sent back to the queue with a delay and acknowledged here,
      // so waiting for the key costs no receive and never leads to the dead-letter queue.
      expect((await broken.worker(sqsEvent(appId, batch))).batchItemFailures).toEqual([]);
    }
    expect(await stagedCount(appId, 'FAILED')).toBe(0);
    expect((await stagedCount(appId, 'NEW')) + (await stagedCount(appId, 'PROCESSING'))).toBe(3);
    expect(await userCount(appId)).toBe(0);

    rmSync(brokenPath, { recursive: true });
    writeFileSync(brokenPath, KEY, { mode: 0o600 });
    expect((await broken.worker(sqsEvent(appId, ids))).batchItemFailures).toEqual([]);
    expect(await stagedCount(appId)).toBe(0);
    expect(await userCount(appId)).toBe(3);
    expect((await signIn(appId, 'w1@x.com', 'wrong')).json.status).toBe('WRONG_CREDENTIALS_ERROR');
  });
});
