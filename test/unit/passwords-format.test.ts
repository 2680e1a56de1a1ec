import { describe, expect, it } from 'vitest';
import { normaliseHashingAlgorithm } from '../../functions/domain/passwords/algorithm.js';
import { parseFirebaseScryptHash } from '../../functions/domain/passwords/firebase-scrypt.js';
import { checkHashFormat } from '../../functions/domain/passwords/format.js';

const BCRYPT_ERROR = 'Password hash is in invalid BCrypt format';
const ARGON2_ERROR = 'Password hash is in invalid Argon2 format';
const FIREBASE_ERROR = 'Password hash is in invalid Firebase SCrypt format';

const FB_HASH = 'lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==';
const FB_SALT = '42xEC+ixf3L2lw==';
const fb = (...params: string[]) => `$f_scrypt$${FB_HASH}$${FB_SALT}$${params.join('$')}`;

describe('normaliseHashingAlgorithm', () => {
  it.each([
    ['BCRYPT', 'BCRYPT'],
    ['bcrypt', 'BCRYPT'],
    [' Argon2 ', 'ARGON2'],
    ['\tfirebase_scrypt\n', 'FIREBASE_SCRYPT'],
    ['', undefined],
    ['   ', undefined],
    ['scrypt', 'SCRYPT'],
    [' PbKdF2 ', 'PBKDF2'],
    ['phpass', 'PHPASS'],
    ['md5', 'MD5'],
    ['Sha1', 'SHA1'],
    ['sha256', 'SHA256'],
    ['SHA512', 'SHA512'],
    ['ldap', 'LDAP'],
    ['FIREBASE-SCRYPT', undefined],
    ['argon2id', undefined],
    ['sha-256', undefined],
    ['ssha', undefined],
    ['pbkdf2_sha256', undefined],
  ])('%j → %s', (raw, expected) => {
    expect(normaliseHashingAlgorithm(raw)).toBe(expected);
  });
});

describe('checkHashFormat BCRYPT (prefix test only)', () => {
  it.each([
    '$2a',
    '$2b',
    '$2x',
    '$2y',
    '$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p8LtyiD7ZHDh1ez6rUh7Lu',
    '$2b$12$anything-goes-after-the-prefix',
    '$2y$',
    '$2x$05$',
  ])('accepts %j', (hash) => {
    expect(checkHashFormat('BCRYPT', hash)).toBeUndefined();
  });

  it.each([
    '',
    '$2',
    '$2$10$abc',
    '$2c$10$abc',
    '$2A$10$abc',
    '2a$10$abc',
    ' $2a$10$abc',
    '$argon2id$v=19$m=16,t=2,p=1$c2FsdHNhbHQ$aGFzaA',
    fb('m=14', 'r=8', 's=Bw=='),
  ])('rejects %j', (hash) => {
    expect(checkHashFormat('BCRYPT', hash)).toBe(BCRYPT_ERROR);
  });
});

describe('checkHashFormat ARGON2 (prefix test only)', () => {
  it.each([
    '$argon2id',
    '$argon2i',
    '$argon2d',
    '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$aGFzaGhhc2g',
    '$argon2i$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$wWKIMhR9lyDFvRz9YTZweHKfbftvj+qf+YFY4NeBbtA',
    '$argon2d$whatever',
    '$argon2ix',
  ])('accepts %j', (hash) => {
    expect(checkHashFormat('ARGON2', hash)).toBeUndefined();
  });

  it.each(['', '$argon2', '$argon2x$v=19', '$Argon2id$v=19', 'argon2id$v=19', '$2a$10$abc'])('rejects %j', (hash) => {
    expect(checkHashFormat('ARGON2', hash)).toBe(ARGON2_ERROR);
  });
});

describe('checkHashFormat FIREBASE_SCRYPT', () => {
  it.each([
    ['canonical order', fb('m=14', 'r=8', 's=Bw==')],
    ['r, s, m', fb('r=8', 's=Bw==', 'm=14')],
    ['s, m, r', fb('s=Bw==', 'm=14', 'r=8')],
    ['s, r, m', fb('s=Bw==', 'r=8', 'm=14')],
    ['a signed integer', fb('m=+14', 'r=8', 's=Bw==')],
    ['empty hash and salt parts', '$f_scrypt$$$m=14$r=8$s=Bw=='],
  ])('accepts %s', (_name, hash) => {
    expect(checkHashFormat('FIREBASE_SCRYPT', hash)).toBeUndefined();
  });

  it.each([
    ['empty string', ''],
    ['bcrypt hash', '$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p8LtyiD7ZHDh1ez6rUh7Lu'],
    ['six parts', `$f_scrypt$${FB_HASH}$${FB_SALT}$m=14$r=8`],
    ['eight parts', fb('m=14', 'r=8', 's=Bw==', 'x=1')],
    ['trailing separator', `${fb('m=14', 'r=8', 's=Bw==')}$`],
    ['non-empty first part', `x${fb('m=14', 'r=8', 's=Bw==')}`],
    ['wrong marker', fb('m=14', 'r=8', 's=Bw==').replace('f_scrypt', 'F_SCRYPT')],
    ['scrypt marker', fb('m=14', 'r=8', 's=Bw==').replace('f_scrypt', 'scrypt')],
    ['missing m', fb('x=14', 'r=8', 's=Bw==')],
    ['missing r', fb('m=14', 'x=8', 's=Bw==')],
    ['missing s', fb('m=14', 'r=8', 'x=Bw==')],
    ['m twice instead of s', fb('m=14', 'r=8', 'm=15')],
    ['upper-case parameter names', fb('M=14', 'R=8', 'S=Bw==')],
    ['non-integer m', fb('m=abc', 'r=8', 's=Bw==')],
    ['fractional m', fb('m=14.5', 'r=8', 's=Bw==')],
    ['empty m', fb('m=', 'r=8', 's=Bw==')],
    ['m with spaces', fb('m= 14', 'r=8', 's=Bw==')],
    ['m out of int range', fb('m=2147483648', 'r=8', 's=Bw==')],
    ['non-integer r', fb('m=14', 'r=eight', 's=Bw==')],
    ['empty s', fb('m=14', 'r=8', 's=')],
    ['parameters before the salt', `$f_scrypt$${FB_HASH}$m=14$r=8$s=Bw==$${FB_SALT}`],
  ])('rejects %s', (_name, hash) => {
    expect(checkHashFormat('FIREBASE_SCRYPT', hash)).toBe(FIREBASE_ERROR);
  });

  it('parses the pieces', () => {
    expect(parseFirebaseScryptHash(fb('s=Bw==', 'r=8', 'm=14'))).toEqual({
      hash: FB_HASH,
      salt: FB_SALT,
      saltSeparator: 'Bw==',
      memCost: 14,
      rounds: 8,
    });
  });
});

describe('checkHashFormat with the cost bounds and the stored forms', () => {
  const bcrypt = (cost: string) => `$2a$${cost}$${'a'.repeat(53)}`;
  const KRATOS_PBKDF2 =
    '$pbkdf2-sha256$i=100000,l=32$1jP+5Zxpxgtee/iPxGgOz0RfE9/KJuDElP1ley4VxXc$QJxzfvdbHYBpydCbHoFg3GJEqMFULwskiuqiJctoYpI';

  it('refuses a complete bcrypt hash beyond the bounds, and keeps the reference prefix test otherwise', () => {
    expect(checkHashFormat('BCRYPT', bcrypt('14'))).toBeUndefined();
    expect(checkHashFormat('BCRYPT', bcrypt('15'))).toBe(`${BCRYPT_ERROR}: cost 15 is above the limit of 14`);
    expect(checkHashFormat('BCRYPT', bcrypt('03'))).toBe(`${BCRYPT_ERROR}: cost 3 is below the minimum of 4`);
    // Not a complete bcrypt string: the reference's prefix test decides (it can never match at sign-in).
    expect(checkHashFormat('BCRYPT', '$2a$20$short')).toBeUndefined();
  });

  it('refuses a complete Argon2 or Firebase hash beyond the bounds', () => {
    const argon2 = '$argon2id$v=19$m=1048576,t=1,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc';
    expect(checkHashFormat('ARGON2', argon2)).toBe(
      `${ARGON2_ERROR}: m × t 1048576 is above the limit of 262144 (KiB × passes)`,
    );
    expect(checkHashFormat('ARGON2', argon2.replace('v=19', 'v=16'))).toBe(
      `${ARGON2_ERROR}: version 16 is not supported (only v=19)`,
    );
    expect(checkHashFormat('FIREBASE_SCRYPT', fb('m=18', 'r=8', 's=Bw=='))).toBe(
      `${FIREBASE_ERROR}: mem_cost 18 is above the limit of 17`,
    );
  });

  it('passes the other families only in their stored form', () => {
    expect(checkHashFormat('PBKDF2', KRATOS_PBKDF2)).toBeUndefined();
    // Valid, but stored differently: the caller must store what normaliseImportedHash returns.
    expect(checkHashFormat('PBKDF2', 'pbkdf2_sha1$10000$wz5B6WkasRoF$atJmJ1o+XfJxKq1+Nu1f1i57Z5I=')).toBe(
      'Password hash is in invalid PBKDF2 format',
    );
    expect(checkHashFormat('LDAP', '{SSHA}0c0blFTXXNuAMHECS4uxrj3ZieMoWImr')).toBe(
      'Password hash is in invalid LDAP format',
    );
    expect(checkHashFormat('PBKDF2', KRATOS_PBKDF2.replace('i=100000', 'i=1500001'))).toBe(
      'Password hash is in invalid PBKDF2 format: iterations 1500001 is above the limit of 1500000',
    );
  });
});
