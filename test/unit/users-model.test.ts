import { describe, expect, it } from 'vitest';
import { normaliseEmail } from '#functions/contract/emails.js';
import { normalisePhoneNumber } from '#functions/contract/phone-numbers.js';
import { decodeToken, encodeToken, masksFor } from '#functions/domain/users/listing.js';
import { recipeMask, toUserJson, type UserRecord } from '#functions/domain/users/model.js';
import { counterDeltas, deriveItems, userShard as shardOf } from '#functions/storage/users/items.js';

const linked: UserRecord = {
  userId: 'u1',
  isPrimaryUser: true,
  timeJoined: 5,
  version: 1,
  externalIds: { u1: { externalUserId: 'ext-1' } },
  loginMethods: [
    {
      recipeId: 'emailpassword',
      recipeUserId: 'u1',
      tenantIds: ['public'],
      timeJoined: 10,
      verified: true,
      email: 'a@x.com',
      passwordHash: '$2a$04$secret',
    },
    {
      recipeId: 'thirdparty',
      recipeUserId: 'u2',
      tenantIds: ['public', 't1'],
      timeJoined: 5,
      verified: false,
      email: 'a@x.com',
      thirdPartyId: 'google',
      thirdPartyUserId: 'g1',
    },
    {
      recipeId: 'passwordless',
      recipeUserId: 'u3',
      tenantIds: ['t1'],
      timeJoined: 7,
      verified: false,
      phoneNumber: '+14155550100',
    },
  ],
};

describe('user object', () => {
  it('is the CDI shape: external ids, sorted login methods, unique infos, no hash, no nulls', () => {
    const json = toUserJson(linked);
    expect(json).toEqual({
      id: 'ext-1',
      isPrimaryUser: true,
      tenantIds: ['public', 't1'],
      timeJoined: 5,
      emails: ['a@x.com'],
      phoneNumbers: ['+14155550100'],
      thirdParty: [{ id: 'google', userId: 'g1' }],
      webauthn: { credentialIds: [] },
      loginMethods: [
        {
          recipeId: 'thirdparty',
          recipeUserId: 'u2',
          tenantIds: ['public', 't1'],
          email: 'a@x.com',
          thirdParty: { id: 'google', userId: 'g1' },
          verified: false,
          timeJoined: 5,
        },
        {
          recipeId: 'passwordless',
          recipeUserId: 'u3',
          tenantIds: ['t1'],
          phoneNumber: '+14155550100',
          // A passwordless login method without an email shows as verified (the reference's rule).
          verified: true,
          timeJoined: 7,
        },
        {
          recipeId: 'emailpassword',
          recipeUserId: 'ext-1',
          tenantIds: ['public'],
          email: 'a@x.com',
          verified: true,
          timeJoined: 10,
        },
      ],
    });
    expect(JSON.stringify(json)).not.toContain('secret');
  });

  it('normalises emails and phone numbers', () => {
    expect(normaliseEmail('  A@B.Com ')).toBe('a@b.com');
    expect(normalisePhoneNumber('+91-9999999999')).toBe('+919999999999');
    expect(normalisePhoneNumber(' 12345 ')).toBe('12345');
  });
});

describe('listing helpers', () => {
  it('maps includeRecipeIds to recipe-combination masks', () => {
    expect(masksFor(undefined)).toBeUndefined();
    expect(masksFor('emailpassword')).toEqual([1, 3, 5, 7, 9, 11, 13, 15]);
    expect(masksFor('thirdparty,passwordless')).toEqual([2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15]);
    expect(masksFor('webauthn')).toEqual([8, 9, 10, 11, 12, 13, 14, 15]);
    expect(() => masksFor('emailpassword,x')).toThrow('Unknown recipe ID: x');
    expect(recipeMask(linked)).toBe(7);
  });

  it('round-trips pagination tokens and rejects garbage', () => {
    const position = { timeJoined: 1700000000000, userId: 'abc-123' };
    expect(decodeToken(encodeToken(position))).toEqual(position);
    for (const bad of [
      '',
      'invalid-pagination-token',
      Buffer.from('x;y').toString('base64'),
      Buffer.from(';1').toString('base64'),
    ]) {
      expect(() => decodeToken(bad)).toThrow('invalid pagination token');
    }
  });
});

describe('derived items', () => {
  it('writes one item per uniqueness rule, tenant membership beyond the first, link and mapping', () => {
    const derived = deriveItems('a', linked);
    const keys = derived.map((d) => `${d.key.PK} ${d.key.SK}`);
    // The USER item is the list entry of the first tenant; other tenants get a membership item.
    expect(derived[0]?.item).toMatchObject({ GSI1PK: 'APP#a#T#public#USERS', recipeMask: 7 });
    expect(derived[1]?.item).toMatchObject({ GSI1PK: 'APP#a#T#t1#USERS', recipeMask: 7 });
    expect(keys).toEqual([
      'APP#a#U#u1 USER',
      'APP#a#U#u1 TENANT#t1',
      'APP#a#T#public#EMAIL#a@x.com UNIQUE#emailpassword',
      'APP#a#U#u2 LINK',
      'APP#a#T#public#TP#google#g1 UNIQUE#thirdparty',
      'APP#a#T#public#EMAIL#a@x.com REF#u2',
      'APP#a#T#t1#TP#google#g1 UNIQUE#thirdparty',
      'APP#a#T#t1#EMAIL#a@x.com REF#u2',
      'APP#a#U#u3 LINK',
      'APP#a#T#t1#PHONE#+14155550100 UNIQUE#passwordless',
      'APP#a#T#public#EMAIL#a@x.com PRIMARY',
      'APP#a#T#public#TP#google#g1 PRIMARY',
      'APP#a#T#public#PHONE#+14155550100 PRIMARY',
      'APP#a#T#t1#EMAIL#a@x.com PRIMARY',
      'APP#a#T#t1#TP#google#g1 PRIMARY',
      'APP#a#T#t1#PHONE#+14155550100 PRIMARY',
      'APP#a#EXT#ext-1 MAP',
    ]);
  });

  it('merges counter deltas per shard item and drops zero changes', () => {
    const created = counterDeltas('a', [{ after: linked }]);
    const shard = shardOf('u1');
    expect([...created.values()].map((e) => [e.key.SK, [...e.deltas]])).toEqual([
      ['APP', [['m7', 1]]],
      ['TENANT#public', [['m7', 1]]],
      ['TENANT#t1', [['m7', 1]]],
    ]);
    expect([...created.values()].every((e) => e.key.PK === `APP#a#UCOUNT#${shard}`)).toBe(true);
    expect(counterDeltas('a', [{ before: linked, after: { ...linked, version: 2 } }]).size).toBe(0);
  });

  it('spreads user ids over all 16 shards', () => {
    const shards = new Set(Array.from({ length: 400 }, (_, i) => shardOf(`user-${i}`)));
    expect(shards.size).toBe(16);
  });
});
