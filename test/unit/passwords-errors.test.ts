import { describe, expect, it, vi } from 'vitest';

// Every hashing primitive fails with a message that echoes its inputs, the worst case for leaks.
vi.mock('hash-wasm', () => {
  const leak = (options: { password?: unknown; hash?: unknown; salt?: unknown }) => {
    throw new Error(`library failure: ${String(options.password)} ${String(options.hash)} ${String(options.salt)}`);
  };
  return { bcrypt: leak, bcryptVerify: leak, argon2id: leak, argon2i: leak, argon2d: leak };
});
vi.mock('bcryptjs', () => {
  const leak = (password: string, hashOrSalt: string) => {
    throw new Error(`library failure: ${password} ${hashOrSalt}`);
  };
  return { default: { hash: leak, compare: leak, encodeBase64: () => 'A'.repeat(22) } };
});
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return {
    ...actual,
    scrypt: (password: Buffer, salt: Buffer, _len: number, _options: unknown, callback: (e: Error) => void) => {
      callback(new Error(`library failure: ${password.toString()} ${salt.toString('base64')}`));
    },
    pbkdf2: (
      password: Buffer,
      salt: Buffer,
      _i: number,
      _len: number,
      _digest: string,
      callback: (e: Error) => void,
    ) => {
      callback(new Error(`library failure: ${password.toString()} ${salt.toString('base64')}`));
    },
  };
});

const { hashPassword, verifyPassword } = await import('../../functions/domain/passwords/index.js');
const { PasswordHashingError } = await import('../../functions/domain/passwords/errors.js');

const SECRET = 'Sup3r-Secret-Passw0rd';
const LONG_SECRET = `${SECRET}${'z'.repeat(80)}`;
const STORED = {
  bcrypt: '$2y$04$FAoTzla54fQsOZYYdT5rS.ZkSfSls9ENEu8EBQsiO03hYjl7jt9wy',
  argon2id: '$argon2id$v=19$m=1024,t=2,p=1$KC3qomUDgi0ek4qWDzaWeg$f53/gXthZXGMZw4creNmncIuz9cktnA/4wer2YmBwzw',
  argon2d: '$argon2d$v=19$m=1024,t=2,p=1$KC3qomUDgi0ek4qWDzaWeg$f53/gXthZXGMZw4creNmncIuz9cktnA/4wer2YmBwzw',
  firebase:
    '$f_scrypt$lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==$42xEC+ixf3L2lw==$m=14$r=8$s=Bw==',
  pbkdf2:
    '$pbkdf2-sha256$i=1000,l=32$1jP+5Zxpxgtee/iPxGgOz0RfE9/KJuDElP1ley4VxXc$QJxzfvdbHYBpydCbHoFg3GJEqMFULwskiuqiJctoYpI',
  scrypt: '$scrypt$ln=8,r=8,p=1$wlhLyXmP8b53bm1NKYVQqg$mTpvG8lzuuDk+DWz8HZIB6Vum6erDuUm0As5yU+VxWA',
  wordpress: '$wp$2y$04$FAoTzla54fQsOZYYdT5rS.ZkSfSls9ENEu8EBQsiO03hYjl7jt9wy',
};

async function captureError(run: () => Promise<unknown>): Promise<Error> {
  try {
    await run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

function expectNoLeak(error: Error, ...secrets: string[]) {
  expect(error).toBeInstanceOf(PasswordHashingError);
  expect(error.cause).toBeUndefined();
  const rendered = `${error.message}\n${error.stack ?? ''}\n${JSON.stringify(error)}`;
  for (const secret of secrets) {
    expect(rendered).not.toContain(secret);
  }
  // The stored hash's distinctive parts (salt, digest) must not appear either.
  for (const secret of secrets) {
    for (const piece of secret.split('$').filter((part) => part.length >= 8)) {
      expect(rendered).not.toContain(piece);
    }
  }
}

describe('error messages never contain the password or the hash', () => {
  it.each(Object.entries(STORED))('verifying a %s hash', async (_name, stored) => {
    for (const password of [SECRET, LONG_SECRET]) {
      const error = await captureError(() =>
        verifyPassword(password, stored, { firebaseSignerKey: 'c2lnbmVyLWtleS1zZWNyZXQ=' }),
      );
      expectNoLeak(error, password, stored, 'c2lnbmVyLWtleS1zZWNyZXQ=');
    }
  });

  it.each([
    ['BCRYPT', SECRET],
    ['BCRYPT', LONG_SECRET],
    ['ARGON2', SECRET],
  ] as const)('hashing with %s', async (algorithm, password) => {
    const error = await captureError(() =>
      hashPassword(password, {
        algorithm,
        bcryptLogRounds: 4,
        argon2: { iterations: 1, memoryKb: 64, parallelism: 1 },
      }),
    );
    expectNoLeak(error, password);
  });

  it('rejecting invalid parameters', async () => {
    const bcryptError = await captureError(() =>
      hashPassword(SECRET, {
        algorithm: 'BCRYPT',
        bcryptLogRounds: 99,
        argon2: { iterations: 1, memoryKb: 64, parallelism: 1 },
      }),
    );
    expectNoLeak(bcryptError, SECRET);
    const argon2Error = await captureError(() =>
      hashPassword(SECRET, {
        algorithm: 'ARGON2',
        bcryptLogRounds: 4,
        argon2: { iterations: 1, memoryKb: 1, parallelism: 1 },
      }),
    );
    expectNoLeak(argon2Error, SECRET);
  });
});
