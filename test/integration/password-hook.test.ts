import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetBaseConfigForTests } from '#functions/config/base.js';
import { hashForStore, startLegacyEndpoint } from '../../bin/examples/legacy-password-endpoint.mjs';
import {
  appItems,
  call,
  createApp,
  importUser,
  listAll,
  signIn,
  stage,
  startPipeline,
  useBulkTestFile,
  userCount,
  waitUntilDone,
} from './bulk-support.js';

/**
 * Users pending the password-migration hook (docs/password-migration-hook.md) against DynamoDB
 * Local and the local SQS server: the import worker refuses a pending user whose app lost its hook
 * after staging, and a first sign-in stores the password in the app's algorithm at the configured
 * cost (read back from the table), with the reference legacy endpoint
 * (bin/examples/legacy-password-endpoint.mjs) as the old system.
 */

const SECRET = randomBytes(24).toString('hex');
const PASSWORD = `pw-hook-${randomBytes(6).toString('hex')}`;
const { pair } = useBulkTestFile([SECRET, PASSWORD]);

/** Hash costs of this file's base config, each different from the key's default (11; 1, 87795, 2). */
const COSTS = { bcryptLogRounds: 5, argon2Iterations: 2, argon2MemoryKb: 2048, argon2Parallelism: 3 };

const pendingUser = (email: string, externalUserId?: string) => ({
  ...(externalUserId ? { externalUserId } : {}),
  loginMethods: [{ recipeId: 'emailpassword', email, passwordMigration: 'hook' }],
});

/** The reference legacy endpoint holding `email`'s password, and the app settings that point at it. */
async function oldSystem(email: string) {
  const endpoint = await startLegacyEndpoint({
    secret: SECRET,
    hashes: { [email]: await hashForStore(PASSWORD, { N: 1024 }) },
  });
  const coreConfig = {
    password_migration_hook_url: `http://127.0.0.1:${endpoint.port}/check`,
    password_migration_hook_secret: SECRET,
  };
  return { coreConfig, close: endpoint.close };
}

beforeAll(async () => {
  resetBaseConfigForTests({
    env: {
      ...process.env,
      BCRYPT_LOG_ROUNDS: String(COSTS.bcryptLogRounds),
      ARGON2_ITERATIONS: String(COSTS.argon2Iterations),
      ARGON2_MEMORY_KB: String(COSTS.argon2MemoryKb),
      ARGON2_PARALLELISM: String(COSTS.argon2Parallelism),
    },
  });
});

afterAll(() => resetBaseConfigForTests());

describe('the import worker and a hook removed after staging', () => {
  it('marks the staged pending user FAILED with a message naming password_migration_hook_url, and creates no user', async () => {
    const legacy = await oldSystem('gone@example.com');
    const appId = await createApp(legacy.coreConfig, [], 'hook');
    const staged = await stage(appId, [pendingUser('gone@example.com', 'legacy-gone-1')]);
    await legacy.close();
    expect(staged.status, staged.text).toBe(200);
    const removed = await call('PUT', '/recipe/multitenancy/app/v2', {
      body: { appId, coreConfig: { password_migration_hook_url: null } },
    });
    expect(removed.status, removed.text).toBe(200);

    const pipeline = await startPipeline(pair());
    try {
      await waitUntilDone(appId);
    } finally {
      await pipeline.stop();
    }
    const failed = await listAll(appId, 'FAILED');
    expect(failed).toHaveLength(1);
    expect(failed[0].errorMessage).toBe(
      '[password_migration_hook_url must be set for this app to import users with passwordMigration "hook" for an emailpassword recipe.]',
    );
    expect(await userCount(appId)).toBe(0);
    expect((await call('GET', `/appid-${appId}/password-migration/status`)).json).toEqual({
      status: 'OK',
      pending: 0,
      migrated: 0,
    });
  });
});

describe('the hash a first sign-in stores', () => {
  /** The user's item as stored: its emailpassword login method, and whether a pending entry remains. */
  async function stored(appId: string) {
    const items = await appItems(appId);
    const users = items.filter((i) => i.entityType === 'USER');
    expect(users).toHaveLength(1);
    const methods = (users[0] as { loginMethods: Record<string, unknown>[] }).loginMethods;
    expect(methods).toHaveLength(1);
    return {
      method: methods[0] as Record<string, unknown>,
      pendingEntries: items.filter((i) => i.entityType === 'PASSWORD_PENDING').length,
    };
  }

  async function firstSignIn(alg: 'BCRYPT' | 'ARGON2', email: string) {
    const legacy = await oldSystem(email);
    const appId = await createApp({ ...legacy.coreConfig, password_hashing_alg: alg }, [], 'hook');
    const imported = await importUser(appId, pendingUser(email));
    expect(imported.status, imported.text).toBe(200);
    const before = await stored(appId);
    expect(before.method.passwordMigration).toBe('hook');
    expect(before.method.passwordHash).toBeUndefined();
    expect(before.pendingEntries).toBe(1);

    const first = await signIn(appId, email, PASSWORD);
    await legacy.close();
    expect(first.status, first.text).toBe(200);
    expect(first.json.status).toBe('OK');
    const after = await stored(appId);
    expect(after.method.passwordMigration).toBeUndefined();
    expect(after.pendingEntries).toBe(0);
    expect((await call('GET', `/appid-${appId}/password-migration/status`)).json).toEqual({
      status: 'OK',
      pending: 0,
      migrated: 1,
    });

    // The old system is stopped: the core answers from the hash it stored.
    const second = await signIn(appId, email, PASSWORD);
    expect(second.status, second.text).toBe(200);
    expect(second.json.status).toBe('OK');
    expect(second.json.user.id).toBe(first.json.user.id);
    return after.method.passwordHash as string;
  }

  it('is bcrypt at the configured bcrypt_log_rounds for a BCRYPT app', async () => {
    const hash = await firstSignIn('BCRYPT', 'bcrypt@example.com');
    const rounds = String(COSTS.bcryptLogRounds).padStart(2, '0');
    expect(hash.startsWith(`$2a$${rounds}$`), hash.slice(0, 7)).toBe(true);
    expect(hash).toHaveLength(60);
  });

  it('is argon2id with the configured memory, iterations and parallelism for an ARGON2 app', async () => {
    const hash = await firstSignIn('ARGON2', 'argon2@example.com');
    const { argon2MemoryKb: m, argon2Iterations: t, argon2Parallelism: p } = COSTS;
    const prefix = `$argon2id$v=19$m=${m},t=${t},p=${p}$`;
    expect(hash.startsWith(prefix), hash.slice(0, prefix.length)).toBe(true);
    expect(hash.slice(prefix.length)).toMatch(/^[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
  });
});
