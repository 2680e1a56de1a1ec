import bcryptjs from 'bcryptjs';
import { argon2d, argon2i, argon2id, bcrypt, bcryptVerify } from 'hash-wasm';
import { describe, expect, it } from 'vitest';
import { type HashPasswordParams, hashPassword, verifyPassword } from '../../functions/domain/passwords/index.js';

const NO_KEY = { firebaseSignerKey: undefined };
const OK = { ok: true };
const WRONG = { ok: false, reason: 'WRONG_PASSWORD' };
const UNSUPPORTED = { ok: false, reason: 'UNSUPPORTED_HASH' };
const MISSING_KEY = { ok: false, reason: 'MISSING_FIREBASE_SIGNER_KEY' };
const ABOVE_LIMIT = { ok: false, reason: 'HASH_COST_ABOVE_LIMIT' };

const BCRYPT_PARAMS: HashPasswordParams = {
  algorithm: 'BCRYPT',
  bcryptLogRounds: 4,
  argon2: { iterations: 1, memoryKb: 64, parallelism: 1 },
};
const ARGON2_PARAMS: HashPasswordParams = {
  algorithm: 'ARGON2',
  bcryptLogRounds: 4,
  argon2: { iterations: 2, memoryKb: 256, parallelism: 2 },
};

const withIdentifier = (hash: string, identifier: string) => `${identifier}${hash.slice(3)}`;

describe('bcrypt verification', () => {
  // Generated once with this module (hash-wasm, cost 4) and pasted in.
  const STORED_2A = '$2a$04$FAoTzla54fQsOZYYdT5rS.ZkSfSls9ENEu8EBQsiO03hYjl7jt9wy';

  it('verifies a stored $2a hash', async () => {
    expect(await verifyPassword('correct horse battery staple', STORED_2A, NO_KEY)).toEqual(OK);
    expect(await verifyPassword('correct horse battery stapler', STORED_2A, NO_KEY)).toEqual(WRONG);
  });

  it.each(['$2b', '$2x', '$2y'])('verifies the same hash with identifier %s', async (identifier) => {
    const stored = withIdentifier(STORED_2A, identifier);
    expect(await verifyPassword('correct horse battery staple', stored, NO_KEY)).toEqual(OK);
    expect(await verifyPassword('Correct horse battery staple', stored, NO_KEY)).toEqual(WRONG);
  });

  // Published vectors: jBCrypt's test suite ($2a, cost 6) and the PHP manual's password_verify example ($2y).
  it.each([
    ['', '$2a$06$DCq7YPn5Rq63x1Lad4cll.TV4S6ytwfsfvkgY8jIucDrjc8deX1s.'],
    ['a', '$2a$06$m0CrhHm10qJ3lXRY.5zDGO3rS2KdeeWLuGmsfGlMfOxih58VYVfxe'],
    ['abc', '$2a$06$If6bvum7DFjUnE9p2uDeDu0YHzrHM6tf.iqN8.yx.jNN1ILEf7h0i'],
    ['rasmuslerdorf', '$2y$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a'],
  ])('verifies the published vector for %j', async (password, stored) => {
    expect(await verifyPassword(password, stored, NO_KEY)).toEqual(OK);
    expect(await verifyPassword(`${password}!`, stored, NO_KEY)).toEqual(WRONG);
  });

  it('verifies freshly generated hashes of both libraries under every identifier', async () => {
    const password = 'pässwörd-ü€';
    const fromHashWasm = await bcrypt({
      password,
      salt: new Uint8Array(16).fill(9),
      costFactor: 4,
      outputType: 'encoded',
    });
    const fromBcryptjs = await bcryptjs.hash(password, 4);
    expect(fromBcryptjs.startsWith('$2b$')).toBe(true);
    for (const generated of [fromHashWasm, fromBcryptjs]) {
      for (const identifier of ['$2a', '$2b', '$2x', '$2y']) {
        const stored = withIdentifier(generated, identifier);
        expect(await verifyPassword(password, stored, NO_KEY)).toEqual(OK);
        expect(await verifyPassword('password', stored, NO_KEY)).toEqual(WRONG);
      }
    }
  });

  it.each([
    '$2a',
    '$2a$04$',
    '$2a$04$FAoTzla54fQsOZYYdT5rS.ZkSfSls9ENEu8EBQsiO03hYjl7jt9w',
    '$2a$04$FAoTzla54fQsOZYYdT5rS.ZkSfSls9ENEu8EBQsiO03hYjl7jt9wyy',
    '$2a$4$FAoTzla54fQsOZYYdT5rS.ZkSfSls9ENEu8EBQsiO03hYjl7jt9wy',
    '$2a$04$FAoTzla54fQsOZYYdT5rS!ZkSfSls9ENEu8EBQsiO03hYjl7jt9wy',
  ])('treats the malformed bcrypt hash %j as a wrong password', async (stored) => {
    expect(await verifyPassword('correct horse battery staple', stored, NO_KEY)).toEqual(WRONG);
  });

  it.each([
    ['03', UNSUPPORTED],
    ['15', ABOVE_LIMIT],
    ['99', ABOVE_LIMIT],
  ])('does not compute a stored hash of cost %s', async (cost, expected) => {
    const stored = STORED_2A.replace('$04$', `$${cost}$`);
    expect(await verifyPassword('correct horse battery staple', stored, NO_KEY)).toEqual(expected);
  });
});

describe('bcrypt passwords longer than 72 bytes', () => {
  const first72 = 'x'.repeat(72);
  const long = `${first72}-and-then-some-more-text`;

  it('hashes and verifies, ignoring everything after byte 72 like the reference', async () => {
    const hash = await hashPassword(long, BCRYPT_PARAMS);
    expect(hash).toMatch(/^\$2a\$04\$[./A-Za-z0-9]{53}$/);
    expect(await verifyPassword(long, hash, NO_KEY)).toEqual(OK);
    expect(await verifyPassword(`${first72}-something-else`, hash, NO_KEY)).toEqual(OK);
    expect(await verifyPassword(first72, hash, NO_KEY)).toEqual(OK);
    expect(await verifyPassword(`${'x'.repeat(71)}y-and-then-some-more-text`, hash, NO_KEY)).toEqual(WRONG);
    // The 72-byte prefix goes through hash-wasm: both libraries agree on the truncated key.
    expect(await bcryptVerify({ password: first72, hash })).toBe(true);
  });

  it('counts UTF-8 bytes, not characters', async () => {
    const accented = 'é'.repeat(40); // 80 bytes
    const hash = await hashPassword(accented, BCRYPT_PARAMS);
    expect(await verifyPassword(accented, hash, NO_KEY)).toEqual(OK);
    expect(await verifyPassword(`${'é'.repeat(36)}zz`, hash, NO_KEY)).toEqual(OK);
    expect(await verifyPassword('é'.repeat(35), hash, NO_KEY)).toEqual(WRONG);
  });

  it('verifies a >72-byte password against a hash made elsewhere from its first 72 bytes', async () => {
    const hash = await bcrypt({ password: first72, salt: new Uint8Array(16).fill(3), costFactor: 4 });
    expect(await verifyPassword(long, withIdentifier(hash, '$2y'), NO_KEY)).toEqual(OK);
  });
});

describe('bcrypt hashing', () => {
  it('produces a $2a$ hash with the configured cost and a random salt', async () => {
    const first = await hashPassword('s3cret', BCRYPT_PARAMS);
    const second = await hashPassword('s3cret', BCRYPT_PARAMS);
    expect(first).toMatch(/^\$2a\$04\$[./A-Za-z0-9]{53}$/);
    expect(second).not.toBe(first);
    expect(await verifyPassword('s3cret', first, NO_KEY)).toEqual(OK);
    expect(await verifyPassword('s3cret!', first, NO_KEY)).toEqual(WRONG);
    expect(await bcryptjs.compare('s3cret', first)).toBe(true);
  });

  it('pads the cost to two digits and hashes the empty password', async () => {
    const hash = await hashPassword('', { ...BCRYPT_PARAMS, bcryptLogRounds: 5 });
    expect(hash.startsWith('$2a$05$')).toBe(true);
    expect(await verifyPassword('', hash, NO_KEY)).toEqual(OK);
    expect(await verifyPassword(' ', hash, NO_KEY)).toEqual(WRONG);
  });

  it.each([3, 15, 31, 10.5, Number.NaN])(
    'rejects log rounds %s (it would not verify what it wrote)',
    async (bcryptLogRounds) => {
      await expect(hashPassword('pw', { ...BCRYPT_PARAMS, bcryptLogRounds })).rejects.toThrow(
        'bcrypt log rounds must be an integer between 4 and 14',
      );
    },
  );
});

describe('argon2 verification', () => {
  const password = 'correct horse battery staple';
  // Generated once with hash-wasm and pasted in.
  const STORED_ARGON2ID =
    '$argon2id$v=19$m=1024,t=2,p=1$KC3qomUDgi0ek4qWDzaWeg$f53/gXthZXGMZw4creNmncIuz9cktnA/4wer2YmBwzw';
  const STORED_ARGON2I =
    '$argon2i$v=19$m=512,t=3,p=2$D5n8WOgTSHFCrK8FaH5qPQ$MQAmT2bufG8n+ECPVNve/yJm3p2gplKbxQxMSoDekbk';

  it.each([
    ['argon2id', STORED_ARGON2ID],
    ['argon2i', STORED_ARGON2I],
  ])('verifies a stored %s hash', async (_name, stored) => {
    expect(await verifyPassword(password, stored, NO_KEY)).toEqual(OK);
    expect(await verifyPassword(`${password}.`, stored, NO_KEY)).toEqual(WRONG);
  });

  // Published vectors of the Argon2 reference implementation's test suite (password "password", salt "somesalt").
  it.each([
    '$argon2i$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$wWKIMhR9lyDFvRz9YTZweHKfbftvj+qf+YFY4NeBbtA',
    '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc',
  ])('verifies the reference vector %s', async (stored) => {
    expect(await verifyPassword('password', stored, NO_KEY)).toEqual(OK);
    expect(await verifyPassword('Password', stored, NO_KEY)).toEqual(WRONG);
  });

  it('accepts the parameters in another order and padded Base64', async () => {
    const reordered = STORED_ARGON2ID.replace('m=1024,t=2,p=1', 'p=1,t=2,m=1024');
    expect(await verifyPassword(password, reordered, NO_KEY)).toEqual(OK);
    expect(await verifyPassword(password, `${STORED_ARGON2ID}=`, NO_KEY)).toEqual(OK);
  });

  it.each([
    ['argon2id', argon2id],
    ['argon2i', argon2i],
    ['argon2d', argon2d],
  ])('verifies freshly generated %s hashes', async (_name, fn) => {
    const stored = await fn({
      password: 'fresh-pässword',
      salt: crypto.getRandomValues(new Uint8Array(16)),
      iterations: 1,
      memorySize: 128,
      parallelism: 2,
      hashLength: 24,
      outputType: 'encoded',
    });
    expect(await verifyPassword('fresh-pässword', stored, NO_KEY)).toEqual(OK);
    expect(await verifyPassword('fresh-password', stored, NO_KEY)).toEqual(WRONG);
  });

  it('reports the old Argon2 version (0x10, or no version field) as unsupported', async () => {
    expect(await verifyPassword(password, STORED_ARGON2ID.replace('v=19', 'v=16'), NO_KEY)).toEqual(UNSUPPORTED);
    expect(await verifyPassword(password, STORED_ARGON2ID.replace('$v=19', ''), NO_KEY)).toEqual(UNSUPPORTED);
  });

  it('does not compute hashes beyond the bounds', async () => {
    for (const params of ['m=4194304,t=2,p=1', 'm=1024,t=11,p=1', 'm=1024,t=2,p=17', 'm=262144,t=2,p=1']) {
      const stored = STORED_ARGON2ID.replace('m=1024,t=2,p=1', params);
      expect(await verifyPassword(password, stored, NO_KEY)).toEqual(ABOVE_LIMIT);
    }
  });

  it.each([
    ['t=0', STORED_ARGON2ID.replace('t=2', 't=0')],
    ['p=0', STORED_ARGON2ID.replace('p=1', 'p=0')],
    ['m below 8 × p', STORED_ARGON2ID.replace('m=1024', 'm=4')],
    ['a 4-byte salt', STORED_ARGON2ID.replace('KC3qomUDgi0ek4qWDzaWeg', 'c2FsdA')],
  ])('reports parameters Argon2 cannot run (%s) as unsupported', async (_name, stored) => {
    expect(await verifyPassword(password, stored, NO_KEY)).toEqual(UNSUPPORTED);
  });

  it.each([
    '$argon2id',
    '$argon2id$v=19$m=1024,t=2$KC3qomUDgi0ek4qWDzaWeg$f53/gXthZXGMZw4creNmncIuz9cktnA/4wer2YmBwzw',
    '$argon2id$v=19$m=1024,t=2,p=1,p=1$KC3qomUDgi0ek4qWDzaWeg$f53/gXthZXGMZw4creNmncIuz9cktnA/4wer2YmBwzw',
    '$argon2id$v=19$m=1024,t=2,p=1$KC3qomUDgi0ek4qWDzaWeg$',
    '$argon2id$v=19$m=1024,t=2,p=1$KC3qomUDgi0ek4qWDzaWeg$f53/gXthZXGMZw4creNmncIuz9cktnA/4wer2YmBwzx',
    '$argon2id$v=19$m=1024,t=2,p=1$KC3qomUDgi0ek4qWDzaWe$f53/gXthZXGMZw4creNmncIuz9cktnA/4wer2YmBwzw',
    '$argon2idx$v=19$m=1024,t=2,p=1$KC3qomUDgi0ek4qWDzaWeg$f53/gXthZXGMZw4creNmncIuz9cktnA/4wer2YmBwzw',
    '$argon2id$v=19$m=1024,t=2,p=1$KC3qomUDgi0ek4qWDzaWeg$f53/gXthZXGMZw4creNmncIuz9cktnA/4wer2YmBwzw$',
  ])('treats the malformed argon2 hash %j as a wrong password', async (stored) => {
    expect(await verifyPassword(password, stored, NO_KEY)).toEqual(WRONG);
  });

  it('answers wrong password for an empty password', async () => {
    expect(await verifyPassword('', STORED_ARGON2ID, NO_KEY)).toEqual(WRONG);
  });
});

describe('argon2 hashing', () => {
  it('produces a standard argon2id encoding with a 16-byte salt and a 32-byte hash', async () => {
    const first = await hashPassword('s3cret', ARGON2_PARAMS);
    const second = await hashPassword('s3cret', ARGON2_PARAMS);
    expect(first).toMatch(/^\$argon2id\$v=19\$m=256,t=2,p=2\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(second).not.toBe(first);
    expect(await verifyPassword('s3cret', first, NO_KEY)).toEqual(OK);
    expect(await verifyPassword('s3cret ', first, NO_KEY)).toEqual(WRONG);
  });

  it('hashes long passwords without truncation', async () => {
    const long = 'y'.repeat(200);
    const hash = await hashPassword(long, ARGON2_PARAMS);
    expect(await verifyPassword(long, hash, NO_KEY)).toEqual(OK);
    expect(await verifyPassword('y'.repeat(199), hash, NO_KEY)).toEqual(WRONG);
  });

  it.each([
    [{ iterations: 0, memoryKb: 256, parallelism: 1 }, 'argon2 parameters refused: t 0 is below the minimum of 1'],
    [{ iterations: 1, memoryKb: 256, parallelism: 0 }, 'argon2 parameters refused: p 0 is below the minimum of 1'],
    [{ iterations: 1, memoryKb: 15, parallelism: 2 }, 'argon2 parameters refused: m 15 is below 8 × p (16)'],
    [{ iterations: 11, memoryKb: 256, parallelism: 1 }, 'argon2 parameters refused: t 11 is above the limit of 10'],
    [{ iterations: 1, memoryKb: 256, parallelism: 17 }, 'argon2 parameters refused: p 17 is above the limit of 16'],
    [
      { iterations: 2, memoryKb: 512 * 1024, parallelism: 2 },
      'argon2 parameters refused: m × t 1048576 is above the limit of 262144 (KiB × passes)',
    ],
    [{ iterations: 1.5, memoryKb: 256, parallelism: 1 }, 'argon2 parameters must be integers'],
  ])('rejects parameters %j', async (argon2, message) => {
    await expect(hashPassword('pw', { ...ARGON2_PARAMS, argon2 })).rejects.toThrow(message);
  });
});

describe('Firebase scrypt verification', () => {
  // Firebase's published scrypt test vector.
  const SIGNER_KEY = 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==';
  const HASH = 'lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==';
  const STORED = `$f_scrypt$${HASH}$42xEC+ixf3L2lw==$m=14$r=8$s=Bw==`;
  const WITH_KEY = { firebaseSignerKey: SIGNER_KEY };

  it('accepts the right password', async () => {
    expect(await verifyPassword('user1password', STORED, WITH_KEY)).toEqual(OK);
  });

  it('accepts the parameters in another order', async () => {
    const reordered = `$f_scrypt$${HASH}$42xEC+ixf3L2lw==$s=Bw==$r=8$m=14`;
    expect(await verifyPassword('user1password', reordered, WITH_KEY)).toEqual(OK);
  });

  it('rejects a wrong password', async () => {
    expect(await verifyPassword('user2password', STORED, WITH_KEY)).toEqual(WRONG);
    expect(await verifyPassword('', STORED, WITH_KEY)).toEqual(WRONG);
  });

  it('rejects when any hash input differs', async () => {
    const otherKey = { firebaseSignerKey: Buffer.alloc(64, 1).toString('base64') };
    expect(await verifyPassword('user1password', STORED, otherKey)).toEqual(WRONG);
    expect(await verifyPassword('user1password', STORED.replace('s=Bw==', 's=CA=='), WITH_KEY)).toEqual(WRONG);
    expect(await verifyPassword('user1password', STORED.replace('r=8', 'r=7'), WITH_KEY)).toEqual(WRONG);
    expect(await verifyPassword('user1password', STORED.replace('m=14', 'm=13'), WITH_KEY)).toEqual(WRONG);
    expect(await verifyPassword('user1password', STORED.replace(HASH, HASH.slice(0, -4)), WITH_KEY)).toEqual(WRONG);
  });

  it.each([undefined, '', '   '])(
    'reports a missing signer key (%j) instead of checking',
    async (firebaseSignerKey) => {
      expect(await verifyPassword('user1password', STORED, { firebaseSignerKey })).toEqual(MISSING_KEY);
      expect(await verifyPassword('wrong', STORED, { firebaseSignerKey })).toEqual(MISSING_KEY);
    },
  );

  it.each([
    ['m=0', STORED.replace('m=14', 'm=0')],
    ['m=-1', STORED.replace('m=14', 'm=-1')],
    ['r=0', STORED.replace('r=8', 'r=0')],
    ['m=16 with r=1 (N must stay below 2^(16·r))', STORED.replace('m=14', 'm=16').replace('r=8', 'r=1')],
  ])('reports unusable cost parameters (%s) as unsupported', async (_name, stored) => {
    expect(await verifyPassword('user1password', stored, WITH_KEY)).toEqual(UNSUPPORTED);
  });

  it.each([
    ['m=18', STORED.replace('m=14', 'm=18')],
    ['m=31', STORED.replace('m=14', 'm=31')],
    ['r=9', STORED.replace('r=8', 'r=9')],
  ])('does not compute a hash beyond the bounds (%s)', async (_name, stored) => {
    expect(await verifyPassword('user1password', stored, WITH_KEY)).toEqual(ABOVE_LIMIT);
  });

  it('treats a malformed firebase hash as a wrong password, with or without key', async () => {
    const malformed = STORED.replace('$s=Bw==', '');
    expect(await verifyPassword('user1password', malformed, WITH_KEY)).toEqual(WRONG);
    expect(await verifyPassword('user1password', malformed, NO_KEY)).toEqual(WRONG);
  });
});

describe('hashes of unknown shape', () => {
  it.each(['', 'user1password', '$1$saltsalt$hash', '$pbkdf2-sha256$29000$c2FsdA$aGFzaA', '$2', '$argon2'])(
    '%j is a wrong password',
    async (stored) => {
      expect(await verifyPassword('user1password', stored, { firebaseSignerKey: 'a2V5' })).toEqual(WRONG);
    },
  );
});
