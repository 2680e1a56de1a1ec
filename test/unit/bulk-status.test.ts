import { describe, expect, it } from 'vitest';
import {
  decodeToken,
  encodeToken,
  parseListQuery,
  parseRemoveIds,
  toListedUser,
} from '#functions/domain/bulk-import/status.js';
import {
  stagedStatusIndexPartition,
  stagedStatusIndexSortKey,
  stagingAppMarkerPartition,
} from '#functions/storage/keys/staging.js';
import { shardOf } from '#functions/storage/kit/shard.js';

describe('status API input', () => {
  it('round-trips opaque pagination tokens and refuses garbage', () => {
    const cursor = { id: '2b1f4c1e-8a9e-4b7e-9d7c-1f2e3d4c5b6a', createdAt: 1_700_000_000_123 };
    expect(decodeToken(encodeToken(cursor))).toEqual(cursor);
    for (const bad of [
      'invalid_token',
      Buffer.from('a;b').toString('base64'),
      Buffer.from('a;1;2').toString('base64'),
      '',
    ]) {
      expect(() => decodeToken(bad)).toThrow('invalid pagination token');
    }
  });

  it('validates limit then status with the reference messages', () => {
    expect(parseListQuery({})).toEqual({ status: undefined, limit: 100, from: undefined });
    expect(() => parseListQuery({ limit: '501' })).toThrow('Max limit allowed is 500');
    expect(() => parseListQuery({ limit: '0' })).toThrow('limit must a positive integer with min value 1');
    expect(() => parseListQuery({ status: 'new' })).toThrow(
      'Invalid value for status. Pass one of NEW, PROCESSING, or FAILED!',
    );
  });

  it('validates remove ids', () => {
    expect(() => parseRemoveIds({})).toThrow("Field name 'ids' is invalid in JSON input");
    expect(() => parseRemoveIds({ ids: [null] })).toThrow("Field name 'ids' is invalid in JSON input");
    expect(() => parseRemoveIds({ ids: [''] })).toThrow("Field name 'ids' cannot contain an empty string");
    expect(parseRemoveIds({ ids: [' '] })).toEqual([' ']);
  });

  it('omits staged credentials from listed users', () => {
    const listed = toListedUser({
      appId: 'a',
      id: 'u1',
      status: 'FAILED',
      errorMessage: 'E003: x',
      createdAt: 1,
      updatedAt: 2,
      sentAt: 1,
      user: {
        id: 'u1',
        userRoles: [],
        totpDevices: [{ secretKey: 'SECRET', period: 30, skew: 1 }],
        loginMethods: [
          {
            recipeId: 'emailpassword',
            email: 'a@b.c',
            passwordHash: '$2a$hash',
            hashingAlgorithm: 'BCRYPT',
            plainTextPassword: 'pw',
            tenantIds: ['public'],
            isVerified: false,
            isPrimary: false,
            timeJoinedInMSSinceEpoch: 1,
            superTokensUserId: 'u1',
          },
        ],
      },
    });
    const text = JSON.stringify(listed);
    for (const secret of ['SECRET', '$2a$hash', '"pw"']) expect(text).not.toContain(secret);
    expect(listed).toMatchObject({ id: 'u1', status: 'FAILED', errorMessage: 'E003: x', createdAt: 1, updatedAt: 2 });
  });
});

describe('staging keys', () => {
  it('builds app-prefixed, sortable keys and spreads ids over shards', () => {
    expect(stagedStatusIndexPartition('app1', 'NEW', 3)).toBe('APP#app1#BULK#NEW#3');
    expect(stagedStatusIndexSortKey(42, 'u1')).toBe('000000000000042#u1');
    expect(stagingAppMarkerPartition('app1')).toBe('APP#app1#BULKAPP');
    const counts = new Array(16).fill(0);
    for (let i = 0; i < 1600; i++) counts[shardOf(crypto.randomUUID(), 16)]++;
    expect(Math.min(...counts)).toBeGreaterThan(50);
  });
});
