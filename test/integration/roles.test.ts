import { beforeAll, describe, expect, it } from 'vitest';
import { call, createAppWith, uniqueAppId } from '../helpers/core-client.js';

const appId = uniqueAppId('roles');
const base = `/appid-${appId}`;

beforeAll(() => createAppWith(appId, {}, ['t1']));

describe('PUT /recipe/role', () => {
  it('creates a role, then adds permissions to it (trimmed, deduplicated)', async () => {
    const first = await call('PUT', `${base}/recipe/role`, { body: { role: ' editor ', permissions: ['read'] } });
    expect(first.status, first.text).toBe(200);
    expect(first.json).toEqual({ status: 'OK', createdNewRole: true });

    const second = await call('PUT', `${base}/recipe/role`, {
      body: { role: 'editor', permissions: [' write ', 'read'] },
    });
    expect(second.json).toEqual({ status: 'OK', createdNewRole: false });

    const noPermissions = await call('PUT', `${base}/recipe/role`, { body: { role: 'editor', permissions: null } });
    expect(noPermissions.json).toEqual({ status: 'OK', createdNewRole: false });

    const permissions = await call('GET', `${base}/recipe/role/permissions?role=editor`);
    expect(permissions.json).toEqual({ status: 'OK', permissions: ['read', 'write'] });
  });

  it('creates a role without permissions', async () => {
    const created = await call('PUT', `${base}/recipe/role`, { body: { role: 'viewer' } });
    expect(created.json).toEqual({ status: 'OK', createdNewRole: true });
    const permissions = await call('GET', `${base}/recipe/role/permissions?role=%20viewer%20`);
    expect(permissions.json).toEqual({ status: 'OK', permissions: [] });
  });

  it.each([
    [{}, "Field name 'role' is invalid in JSON input"],
    [{ role: 5 }, "Field name 'role' is invalid in JSON input"],
    [{ role: '   ' }, "Field name 'role' cannot be an empty String"],
    [{ role: 'r', permissions: 'read' }, "Field name 'permissions' is invalid in JSON input"],
    [{ role: 'r', permissions: [1] }, "Field name 'permissions' is invalid in JSON input"],
    [{ role: 'r', permissions: ['ok', ' '] }, "Field name 'permissions' cannot contain an empty string"],
    [{ role: 'x'.repeat(256) }, "Field name 'role' is too long. Max length is 255."],
  ])('refuses %j with 400', async (body, message) => {
    const reply = await call('PUT', `${base}/recipe/role`, { body });
    expect(reply.status).toBe(400);
    expect(reply.text).toBe(message);
  });

  it('refuses a non-JSON body', async () => {
    const reply = await call('PUT', `${base}/recipe/role`, { rawBody: 'nope' });
    expect(reply.status).toBe(400);
    expect(reply.text).toBe('Invalid Json Input');
  });

  it('is app specific: a non-public tenant in the path is refused', async () => {
    const reply = await call('PUT', `${base}/t1/recipe/role`, { body: { role: 'x' } });
    expect(reply.status).toBe(403);
    expect(reply.text).toBe('Only public tenantId can call this app specific API');
  });
});

describe('GET /recipe/roles and /recipe/role/permissions', () => {
  it('lists the roles of the app only', async () => {
    await call('PUT', `${base}/recipe/role`, { body: { role: 'lister' } });
    const list = await call('GET', `${base}/recipe/roles`);
    expect(list.status).toBe(200);
    expect(list.json.status).toBe('OK');
    expect(list.json.roles).toEqual(expect.arrayContaining(['editor', 'lister']));
    const other = await call('GET', '/recipe/roles');
    expect(other.json.roles).not.toContain('lister');
  });

  it('answers UNKNOWN_ROLE_ERROR and the core query errors', async () => {
    expect((await call('GET', `${base}/recipe/role/permissions?role=ghost`)).json).toEqual({
      status: 'UNKNOWN_ROLE_ERROR',
    });
    const missing = await call('GET', `${base}/recipe/role/permissions`);
    expect(missing.status).toBe(400);
    expect(missing.text).toBe("Field name 'role' is missing in GET request");
    const blank = await call('GET', `${base}/recipe/role/permissions?role=%20`);
    expect(blank.status).toBe(400);
    expect(blank.text).toBe("Field name 'role' cannot be an empty String");
  });
});

describe('user roles per tenant', () => {
  it('assigns, lists, reports duplicates and removes', async () => {
    await call('PUT', `${base}/recipe/role`, { body: { role: 'member' } });
    const add = await call('PUT', `${base}/public/recipe/user/role`, { body: { userId: 'u1', role: ' member ' } });
    expect(add.status, add.text).toBe(200);
    expect(add.json).toEqual({ status: 'OK', didUserAlreadyHaveRole: false });
    const again = await call('PUT', `${base}/public/recipe/user/role`, { body: { userId: 'u1', role: 'member' } });
    expect(again.json).toEqual({ status: 'OK', didUserAlreadyHaveRole: true });

    // Tenants are separate: the same user id in t1 has no role yet.
    expect((await call('GET', `${base}/t1/recipe/user/roles?userId=u1`)).json).toEqual({ status: 'OK', roles: [] });
    await call('PUT', `${base}/t1/recipe/user/role`, { body: { userId: 'u1', role: 'editor' } });
    await call('PUT', `${base}/t1/recipe/user/role`, { body: { userId: 'u2', role: 'member' } });

    expect((await call('GET', `${base}/public/recipe/user/roles?userId=u1`)).json).toEqual({
      status: 'OK',
      roles: ['member'],
    });
    // The path without a tenant segment is the public tenant.
    expect((await call('GET', `${base}/recipe/user/roles?userId=u1`)).json.roles).toEqual(['member']);
    expect((await call('GET', `${base}/t1/recipe/user/roles?userId=u1`)).json.roles).toEqual(['editor']);

    expect((await call('GET', `${base}/public/recipe/role/users?role=member`)).json).toEqual({
      status: 'OK',
      users: ['u1'],
    });
    expect((await call('GET', `${base}/t1/recipe/role/users?role=member`)).json.users).toEqual(['u2']);

    const removed = await call('POST', `${base}/public/recipe/user/role/remove`, {
      body: { userId: 'u1', role: 'member' },
    });
    expect(removed.json).toEqual({ status: 'OK', didUserHaveRole: true });
    const removedAgain = await call('POST', `${base}/public/recipe/user/role/remove`, {
      body: { userId: 'u1', role: 'member' },
    });
    expect(removedAgain.json).toEqual({ status: 'OK', didUserHaveRole: false });
    expect((await call('GET', `${base}/public/recipe/user/roles?userId=u1`)).json.roles).toEqual([]);
  });

  it('answers UNKNOWN_ROLE_ERROR for a role that does not exist', async () => {
    const body = { userId: 'u1', role: 'ghost' };
    expect((await call('PUT', `${base}/public/recipe/user/role`, { body })).json).toEqual({
      status: 'UNKNOWN_ROLE_ERROR',
    });
    expect((await call('POST', `${base}/public/recipe/user/role/remove`, { body })).json).toEqual({
      status: 'UNKNOWN_ROLE_ERROR',
    });
    expect((await call('GET', `${base}/public/recipe/role/users?role=ghost`)).json).toEqual({
      status: 'UNKNOWN_ROLE_ERROR',
    });
  });

  it.each([
    ['PUT', '/public/recipe/user/role', { role: 'member' }, "Field name 'userId' is invalid in JSON input"],
    ['PUT', '/public/recipe/user/role', { userId: 'u1' }, "Field name 'role' is invalid in JSON input"],
    ['PUT', '/public/recipe/user/role', { userId: 'u1', role: ' ' }, "Field name 'role' cannot be an empty String"],
    [
      'PUT',
      '/public/recipe/user/role',
      { userId: 'u'.repeat(129), role: 'member' },
      "Field name 'userId' is too long. Max length is 128.",
    ],
    [
      'POST',
      '/public/recipe/user/role/remove',
      { userId: 1, role: 'member' },
      "Field name 'userId' is invalid in JSON input",
    ],
  ])('%s %s %j → 400', async (method, path, body, message) => {
    const reply = await call(method, `${base}${path}`, { body });
    expect(reply.status).toBe(400);
    expect(reply.text).toBe(message);
  });

  it('answers the core query errors', async () => {
    const missing = await call('GET', `${base}/public/recipe/user/roles`);
    expect(missing.status).toBe(400);
    expect(missing.text).toBe("Field name 'userId' is missing in GET request");
    const roleMissing = await call('GET', `${base}/public/recipe/role/users`);
    expect(roleMissing.text).toBe("Field name 'role' is missing in GET request");
  });

  it('refuses an unknown tenant of the app with 400', async () => {
    const reply = await call('PUT', `${base}/nope/recipe/user/role`, { body: { userId: 'u1', role: 'member' } });
    expect(reply.status).toBe(400);
    expect(reply.text).toBe(
      `AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, ${appId}, nope)`,
    );
  });
});

describe('POST /recipe/role/remove', () => {
  it('deletes the role and every assignment of it in every tenant', async () => {
    await call('PUT', `${base}/recipe/role`, { body: { role: 'temp', permissions: ['p'] } });
    await call('PUT', `${base}/recipe/role`, { body: { role: 'keep' } });
    const users = Array.from({ length: 30 }, (_, i) => `temp-user-${i}`);
    for (const userId of users) {
      await call('PUT', `${base}/public/recipe/user/role`, { body: { userId, role: 'temp' } });
    }
    await call('PUT', `${base}/t1/recipe/user/role`, { body: { userId: 'temp-user-0', role: 'temp' } });
    await call('PUT', `${base}/t1/recipe/user/role`, { body: { userId: 'temp-user-0', role: 'keep' } });
    expect((await call('GET', `${base}/public/recipe/role/users?role=temp`)).json.users).toHaveLength(30);

    const removed = await call('POST', `${base}/recipe/role/remove`, { body: { role: ' temp ' } });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.json).toEqual({ status: 'OK', didRoleExist: true });

    expect((await call('GET', `${base}/recipe/roles`)).json.roles).not.toContain('temp');
    expect((await call('GET', `${base}/public/recipe/role/users?role=temp`)).json.status).toBe('UNKNOWN_ROLE_ERROR');
    expect((await call('GET', `${base}/public/recipe/user/roles?userId=temp-user-5`)).json.roles).toEqual([]);
    expect((await call('GET', `${base}/t1/recipe/user/roles?userId=temp-user-0`)).json.roles).toEqual(['keep']);

    // Re-creating the role does not bring old assignments back.
    await call('PUT', `${base}/recipe/role`, { body: { role: 'temp' } });
    expect((await call('GET', `${base}/public/recipe/role/users?role=temp`)).json).toEqual({ status: 'OK', users: [] });
    expect((await call('GET', `${base}/recipe/role/permissions?role=temp`)).json.permissions).toEqual([]);

    await call('POST', `${base}/recipe/role/remove`, { body: { role: 'temp' } });
    const again = await call('POST', `${base}/recipe/role/remove`, { body: { role: 'temp' } });
    expect(again.json).toEqual({ status: 'OK', didRoleExist: false });
  });

  it('validates the body', async () => {
    const reply = await call('POST', `${base}/recipe/role/remove`, { body: { role: '' } });
    expect(reply.status).toBe(400);
    expect(reply.text).toBe("Field name 'role' cannot be an empty String");
  });
});

describe('unknown app', () => {
  const notFound =
    'AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, no-such-app, public)';
  it.each([
    ['PUT', '/recipe/role', { role: 'r' }],
    ['POST', '/recipe/role/remove', { role: 'r' }],
    ['GET', '/recipe/roles', undefined],
    ['GET', '/recipe/role/permissions?role=r', undefined],
    ['GET', '/public/recipe/role/users?role=r', undefined],
    ['PUT', '/public/recipe/user/role', { userId: 'u', role: 'r' }],
    ['POST', '/public/recipe/user/role/remove', { userId: 'u', role: 'r' }],
    ['GET', '/public/recipe/user/roles?userId=u', undefined],
  ])('%s %s → 400', async (method, path, body) => {
    const reply = await call(method, `/appid-no-such-app${path}`, body === undefined ? {} : { body });
    expect(reply.status).toBe(400);
    expect(reply.text).toBe(notFound);
  });
});
