/**
 * What ships: `cdk synth` bundles every function with esbuild exactly as a deployment does, and
 * the local runtime runs those bundles from cdk.out (HANDLER_BUNDLES, bin/local/bundles.ts)
 * instead of the TypeScript sources — HTTP routes, the import worker in its threads, the DLQ
 * consumer and the reconciler — against DynamoDB Local and fauxqs. The core flows must work:
 * create an app, import a user, sign in, sign up and in with a passkey, stage 100 users and import
 * them, dead letters to FAILED.
 */
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETRIES_EXHAUSTED_MESSAGE } from '#functions/domain/bulk-import/failed-rows.js';
import { ROUTES } from '#functions/routes.js';
import { WORKERS } from '#functions/workers.js';
import { BUNDLES_ENV, readBundleMap, synthesizeBundles } from '../../bin/local/bundles.js';
import { LOCAL_IMPORT_QUEUE } from '../../bin/local/services.js';
import { localSqsClient } from '../../bin/local/sqs.js';
import { jsonOr } from '../helpers/json.js';
import { LocalProcess, removeDir } from '../helpers/local-process.js';
import { SoftwareAuthenticator } from '../helpers/webauthn-authenticator.js';
import { type Caller, passkeySignIn, passkeySignUp } from '../helpers/webauthn-flows.js';

const APP = 'bundled';
const PASSWORD = 'bundle-Plain-Password-7';
// bcrypt of 'correct horse' (the example hash of docs/api.md "A first tour with curl").
const HASH = '$2a$10$GdJB9E9ce7G/H/5IYhrD0ON1CuVEmUoh/i7ewcot4ZStgHd83Ahbe';
const HASH_PASSWORD = 'correct horse';
/** An error text of @simplewebauthn/server's registration and authentication checks alike. */
const WEBAUTHN_VERIFIER_TEXT = 'Credential ID was not base64url-encoded';

let cdkOut: string;
let runtime: LocalProcess;

async function call(
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<{ status: number; body: any }> {
  const res = await runtime.fetch(path, {
    method: init.method ?? 'GET',
    headers: { 'content-type': 'application/json' },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // text/plain answers stay text
  }
  return { status: res.status, body };
}

const count = async (status?: string) =>
  (await call(`/appid-${APP}/bulk-import/users/count${status ? `?status=${status}` : ''}`)).body.count as number;

async function until(what: string, condition: () => Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}\n${runtime.describe()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

beforeAll(async () => {
  cdkOut = mkdtempSync(join(tmpdir(), 'auth-core-cdk-out-'));
  synthesizeBundles(cdkOut);
  runtime = await LocalProcess.start({
    args: ['--in-memory'],
    env: { [BUNDLES_ENV]: cdkOut, BCRYPT_LOG_ROUNDS: '4', API_KEYS: undefined },
  });
  await runtime.waitUntilReady(120_000);
}, 600_000);

afterAll(async () => {
  await runtime?.dispose();
  if (cdkOut) removeDir(cdkOut);
});

describe('the synthesized bundles', () => {
  it('cover every route and worker of the manifests, and the runtime runs them, not the sources', () => {
    const bundles = readBundleMap(cdkOut);
    expect([...bundles.keys()].sort()).toEqual([...ROUTES, ...WORKERS].map((e) => e.id).sort());
    for (const file of bundles.values()) expect(file.startsWith(cdkOut)).toBe(true);
    expect(runtime.stdout).toContain(`Handlers:  ${ROUTES.length + WORKERS.length} bundles from ${cdkOut}`);
  });

  it("carry none of zod's translations and none of the phone metadata's display formats", () => {
    for (const [id, file] of readBundleMap(cdkOut)) {
      const code = readFileSync(file, 'utf8');
      // "Invalid input" of zod's Dutch and Indonesian locales (ASCII: the minifier escapes others);
      // the English one is zod's default.
      expect(code.includes('Ongeldige invoer') || code.includes('Input tidak valid'), id).toBe(false);
      // The US display format of libphonenumber's metadata.
      expect(code.includes('($1) $2-$3'), id).toBe(false);
    }
  });

  it('carry the KMS client only where the manifest grants credentials access', () => {
    const access = new Map([...ROUTES, ...WORKERS].map((e) => [e.id, e.access.credentials]));
    for (const [id, file] of readBundleMap(cdkOut)) {
      const code = readFileSync(file, 'utf8');
      // The client's own endpoint rules name the service's signing name.
      const kmsClient = code.includes('TrentService');
      expect(kmsClient, id).toBe(access.get(id) !== undefined);
      if (!kmsClient) expect(code.includes('no credentials access'), id).toBe(true);
    }
  });

  it("carry none of the local runtime's throttling rehearsal, only its refusing stand-in", () => {
    for (const [id, file] of readBundleMap(cdkOut)) {
      const code = readFileSync(file, 'utf8');
      // The mark of every simulated error (functions/shared/simulated-throttling.ts).
      expect(code.includes('simulated by --simulate-throttling'), id).toBe(false);
      // Every function that makes a DynamoDB client (functions/shared/clients.ts) has the stand-in.
      if (code.includes('DynamoDB_20120810')) {
        expect(code.includes('Simulated throttling is not part of the function bundles'), id).toBe(true);
      }
    }
  });

  it('carry no Secrets Manager client: the functions that load the base config read the API-keys secret through the extension', () => {
    for (const [id, file] of readBundleMap(cdkOut)) {
      const code = readFileSync(file, 'utf8');
      // The client's signing name and its command's name.
      expect(code.includes('"secretsmanager"'), id).toBe(false);
      expect(code.includes('GetSecretValueCommand'), id).toBe(false);
      // Every function loads the base config (the fallback too: it checks the API key of an
      // app-specific API's app-and-tenant form), so would ask the extension's local endpoint for a
      // configured secret.
      const asksExtension = code.includes('/secretsmanager/get?') && code.includes('X-Aws-Parameters-Secrets-Token');
      expect(asksExtension, id).toBe(true);
    }
  });

  it('carry the password hashing libraries only where the function hashes or verifies a password', () => {
    // Sign-in verifies (and upgrades), sign-up and `PUT /recipe/user` hash, the single import and
    // the worker hash plain-text passwords, and so do the dashboard's sign-in and user changes;
    // staging and the DLQ consumer only check hash formats.
    const hashing = new Set([
      'signin',
      'signup',
      'recipe-user-put',
      'bulk-import-import',
      'import-worker',
      'dashboard-signin',
      'dashboard-user-create',
      'dashboard-user-update',
    ]);
    for (const [id, file] of readBundleMap(cdkOut)) {
      const code = readFileSync(file, 'utf8');
      // Error texts of hash-wasm's Argon2 and bcrypt.
      expect(code.includes('Memory size should be at least 8 * parallelism'), id).toBe(hashing.has(id));
      expect(code.includes('Cost factor should be a number between 4 and 31'), id).toBe(hashing.has(id));
      // bcryptjs (an error text of its own) is a test oracle only: hash-wasm hashes even the empty password.
      expect(code.includes('Illegal number of rounds'), id).toBe(false);
    }
  });

  it('carry the WebAuthn verifier only where the function verifies an attestation or an assertion', () => {
    const verifying = new Set(['webauthn-signup', 'webauthn-signin', 'webauthn-credential-register']);
    for (const [id, file] of readBundleMap(cdkOut)) {
      expect(readFileSync(file, 'utf8').includes(WEBAUTHN_VERIFIER_TEXT), id).toBe(verifying.has(id));
    }
  });

  it('are at most 400 KB where they carry neither password hashing, phone numbers nor the WebAuthn verifier', () => {
    for (const [id, file] of readBundleMap(cdkOut)) {
      const code = readFileSync(file, 'utf8');
      const hashing = code.includes('Memory size should be at least 8 * parallelism');
      // libphonenumber's own error text.
      const phones = code.includes('INVALID_COUNTRY');
      // The verifier parses X.509 and ASN.1 for the attestation formats: ~400 KB by itself.
      const webauthn = code.includes(WEBAUTHN_VERIFIER_TEXT);
      if (!hashing && !phones && !webauthn) expect(statSync(file).size / 1024, id).toBeLessThanOrEqual(400);
    }
  });

  it('create an app, import a user and sign them in with their legacy password', async () => {
    expect(await call('/recipe/multitenancy/app/v2', { method: 'PUT', body: { appId: APP } })).toEqual({
      status: 200,
      body: { status: 'OK', createdNew: true },
    });
    const single = await call(`/appid-${APP}/bulk-import/import`, {
      method: 'POST',
      body: {
        externalUserId: 'legacy-1',
        loginMethods: [
          { recipeId: 'emailpassword', email: 'Ada@Example.com', passwordHash: HASH, hashingAlgorithm: 'BCRYPT' },
        ],
      },
    });
    expect(single.status).toBe(200);
    expect(single.body.user).toMatchObject({ id: 'legacy-1', emails: ['ada@example.com'] });
    const signin = await call(`/appid-${APP}/public/recipe/signin`, {
      method: 'POST',
      body: { email: 'ada@example.com', password: HASH_PASSWORD },
    });
    expect(signin.body).toMatchObject({ status: 'OK', user: { id: 'legacy-1' } });
    const wrong = await call(`/appid-${APP}/public/recipe/signin`, {
      method: 'POST',
      body: { email: 'ada@example.com', password: 'not it' },
    });
    expect(wrong.body).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
  });

  it('sign up and sign in with a passkey through the bundled verifier', async () => {
    const caller: Caller = async (method, path, body, headers) => {
      const res = await runtime.fetch(path, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, text, json: jsonOr(text) };
    };
    // An app of its own: the staging test below counts the users of APP.
    const app = `${APP}-passkeys`;
    expect((await call('/recipe/multitenancy/app/v2', { method: 'PUT', body: { appId: app } })).status).toBe(200);
    const authenticator = new SoftwareAuthenticator();
    const { reply, credential } = await passkeySignUp(caller, authenticator, app, 'passkey@example.com');
    expect(reply.json, reply.text).toMatchObject({ status: 'OK', webauthnCredentialId: credential.id });
    const signedIn = await passkeySignIn(caller, authenticator, app, credential.id, { cdiVersion: '5.4' });
    expect(signedIn.reply.json, signedIn.reply.text).toMatchObject({ status: 'OK', user: { id: reply.json.user.id } });
    const replayed = await caller('POST', `/appid-${app}/public/recipe/webauthn/signin`, signedIn.body, {
      'cdi-version': '5.4',
    });
    expect(replayed.json.status).toBe('INVALID_AUTHENTICATOR_ERROR');
  });

  it('stage 100 users and import them through the bundled worker: a conflict FAILED, the rest imported', async () => {
    const users = Array.from({ length: 100 }, (_, i) => ({
      externalUserId: `staged-${i}`,
      loginMethods: [
        i === 0
          ? { recipeId: 'emailpassword', email: `plain${i}@example.com`, plainTextPassword: PASSWORD }
          : i === 1
            ? // Taken by the user imported above: E003, this user alone FAILED.
              { recipeId: 'emailpassword', email: 'ada@example.com', passwordHash: HASH, hashingAlgorithm: 'BCRYPT' }
            : i === 2
              ? { recipeId: 'passwordless', phoneNumber: '+91-9999999999' }
              : {
                  recipeId: 'emailpassword',
                  email: `user${i}@example.com`,
                  passwordHash: HASH,
                  hashingAlgorithm: 'BCRYPT',
                },
      ],
    }));
    const staged = await call(`/appid-${APP}/bulk-import/users`, { method: 'POST', body: { users } });
    expect(staged.status).toBe(200);
    expect(staged.body.users).toHaveLength(100);
    await until('NEW + PROCESSING = 0', async () => (await count('NEW')) + (await count('PROCESSING')) === 0);
    expect(await count('FAILED')).toBe(1);
    const failed = await call(`/appid-${APP}/bulk-import/users?status=FAILED`);
    expect(failed.body.users.map((u: { errorMessage: string }) => u.errorMessage)).toEqual([
      'E003: A user with email ada@example.com already exists in emailpassword loginMethod.',
    ]);
    expect((await call(`/appid-${APP}/users/count`)).body.count).toBe(100);
    const phone = await call(
      `/appid-${APP}/public/users/by-accountinfo?phoneNumber=%2B919999999999&doUnionOfAccountInfo=true`,
    );
    expect(phone.body.users.map((u: { id: string }) => u.id)).toEqual(['staged-2']);
    const plain = await call(`/appid-${APP}/public/recipe/signin`, {
      method: 'POST',
      body: { email: 'plain0@example.com', password: PASSWORD },
    });
    expect(plain.body).toMatchObject({ status: 'OK', user: { id: 'staged-0' } });
  });

  it('turn a dead letter into FAILED through the bundled DLQ consumer, and never fail an imported user', async () => {
    const endpoint = runtime.stdout.match(/SQS: +fauxqs at (http:\/\/127\.0\.0\.1:\d+)/)?.[1];
    expect(endpoint).toBeDefined();
    const sqs = localSqsClient(endpoint as string, 'us-east-1');
    const queueUrl = (await sqs.send(new GetQueueUrlCommand({ QueueName: LOCAL_IMPORT_QUEUE }))).QueueUrl as string;
    const dlqUrl = (await sqs.send(new GetQueueUrlCommand({ QueueName: `${LOCAL_IMPORT_QUEUE}-dlq` })))
      .QueueUrl as string;
    const failedBefore = await count('FAILED');
    // Hold the next import message back so its row stays NEW while its dead letter arrives, as a
    // message whose retries ran out would.
    await sqs.send(new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { DelaySeconds: '900' } }));
    try {
      const staged = await call(`/appid-${APP}/bulk-import/users`, {
        method: 'POST',
        body: {
          users: [
            { loginMethods: [{ recipeId: 'emailpassword', email: 'late@example.com', plainTextPassword: PASSWORD }] },
          ],
        },
      });
      expect(staged.status).toBe(200);
      const id = staged.body.users[0].userId as string;
      expect(await count('NEW')).toBe(1);
      for (const messageId of [id, 'staged-5']) {
        await sqs.send(
          new SendMessageCommand({
            QueueUrl: dlqUrl,
            MessageBody: JSON.stringify({ v: 1, appId: APP, id: messageId }),
          }),
        );
      }
      await until('the dead letter is FAILED', async () => (await count('FAILED')) === failedBefore + 1);
      const failed = await call(`/appid-${APP}/bulk-import/users?status=FAILED`);
      const row = failed.body.users.find((u: { id: string }) => u.id === id);
      expect(row).toMatchObject({ status: 'FAILED', errorMessage: RETRIES_EXHAUSTED_MESSAGE });
      // The staged credentials were erased with the FAILED mark, and never listed.
      expect(JSON.stringify(row)).not.toContain(PASSWORD);
      await until('the DLQ is drained', async () => {
        const attributes = await sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl: dlqUrl,
            AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
          }),
        );
        return Object.values(attributes.Attributes ?? {}).every((v) => v === '0');
      });
      // The dead letter naming an imported user changed nothing.
      expect((await call(`/appid-${APP}/user/id?userId=staged-5`)).body.status).toBe('OK');
      expect(await count('FAILED')).toBe(failedBefore + 1);
    } finally {
      await sqs.send(new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { DelaySeconds: '0' } }));
    }
  });

  it('log no credentials', () => {
    for (const output of [runtime.stdout, runtime.stderr]) {
      expect(output).not.toContain(PASSWORD);
      expect(output).not.toContain(HASH);
      expect(output).not.toContain(HASH_PASSWORD);
    }
  });
});
