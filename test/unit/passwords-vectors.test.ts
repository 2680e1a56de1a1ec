import { createHash, createHmac } from 'node:crypto';
import bcryptjs from 'bcryptjs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareBcrypt, hashBcrypt } from '../../functions/domain/passwords/bcrypt-kdf.js';
import { HASH_FORMAT_ERRORS } from '../../functions/domain/passwords/format.js';
import {
  type HashingAlgorithm,
  needsRehash,
  normaliseImportedHash,
  verifyPassword,
} from '../../functions/domain/passwords/index.js';

/**
 * Known answers for every legacy family and accepted form: each hash is imported with its
 * `hashingAlgorithm`, must convert to the family's stored form, verify with its password, refuse
 * a wrong one, and pass the import check again unchanged (a staged row is checked again by the
 * worker). Every vector names its source next to it.
 */

const NO_KEY = { firebaseSignerKey: undefined };
/** passlib's test suite uses this password for its UTF-8 vectors ("tá" + Cyrillic "Б" + "ℓə"). */
const UPASS_TABLE = 't\u00e1\u0411\u2113\u0259';

const b64 = (bytes: Buffer) => bytes.toString('base64');
const b64u = (bytes: Buffer) => b64(bytes).replace(/=+$/, '');
const hex = (text: string) => Buffer.from(text, 'hex');

function importOk(algorithm: HashingAlgorithm, hash: string): string {
  const imported = normaliseImportedHash(algorithm, hash);
  if (!imported.ok) throw new Error(`refused: ${imported.error}`);
  return imported.storedHash;
}

async function expectVerifies(algorithm: HashingAlgorithm, hash: string, password: string): Promise<string> {
  const stored = importOk(algorithm, hash);
  expect(await verifyPassword(password, stored, NO_KEY)).toEqual({ ok: true });
  expect(await verifyPassword(`${password}x`, stored, NO_KEY)).toEqual({ ok: false, reason: 'WRONG_PASSWORD' });
  expect(normaliseImportedHash(algorithm, stored)).toEqual({ ok: true, storedHash: stored });
  expect(needsRehash(stored)).toBe(true);
  return stored;
}

describe('PBKDF2', () => {
  // Ory Kratos's own fixtures (hash/hasher_test.go), password "test". In Kratos's form `sha224` and
  // `sha384` are SHA3-224 and SHA3-384 (the fixtures pin that mapping).
  it.each([
    '$pbkdf2-sha256$i=100000,l=32$1jP+5Zxpxgtee/iPxGgOz0RfE9/KJuDElP1ley4VxXc$QJxzfvdbHYBpydCbHoFg3GJEqMFULwskiuqiJctoYpI',
    '$pbkdf2-sha512$i=100000,l=32$bdHBpn7OWOivJMVJypy2UqR0UnaD5prQXRZevj/05YU$+wArTfv1a+bNGO1iZrmEdVjhA+lL11wF4/IxpgYfPwc',
    '$pbkdf2-sha224$i=100000,l=32$A2nzbFd+wwzPSb+TqkF5Pw$9M4GM2yOYw/fZvsvQbF/0Ec8JO2u9O1MYRTfrDimX6o',
    '$pbkdf2-sha384$i=100000,l=32$xDInuz7Y/DPzZUnCaQXJmg$7ICaEa6jEqxbbCBbv4YzrBf39KYNAtc3Bj0QWKeB3Ck',
  ])('Kratos fixture %s is stored as given', async (hash) => {
    expect(await expectVerifies('PBKDF2', hash, 'test')).toBe(hash);
  });

  it('Kratos form with padded Base64 and without l= stores the canonical spelling', async () => {
    // The first Kratos fixture above, spelled with `=` padding and without the optional key length.
    const salt = Buffer.from('1jP+5Zxpxgtee/iPxGgOz0RfE9/KJuDElP1ley4VxXc', 'base64');
    const hash = Buffer.from('QJxzfvdbHYBpydCbHoFg3GJEqMFULwskiuqiJctoYpI', 'base64');
    const stored = await expectVerifies('PBKDF2', `$pbkdf2-sha256$i=100000$${b64(salt)}$${b64(hash)}`, 'test');
    expect(stored).toBe(`$pbkdf2-sha256$i=100000,l=32$${b64u(salt)}$${b64u(hash)}`);
  });

  // RFC 6070 §2 (PBKDF2-HMAC-SHA1), written in Kratos's form: salt and derived key are the RFC's
  // bytes, Base64-encoded here.
  it.each([
    ['password', 'salt', 1, '0c60c80f961f0e71f3a9b524af6012062fe037a6'],
    ['password', 'salt', 2, 'ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957'],
    ['password', 'salt', 4096, '4b007901b765489abead49d926f721d065a429c1'],
    [
      'passwordPASSWORDpassword',
      'saltSALTsaltSALTsaltSALTsaltSALTsalt',
      4096,
      '3d2eec4fe41c849b80c8d83662c0e44a8b291a964cf2f07038',
    ],
    ['pass\0word', 'sa\0lt', 4096, '56fa6aa75548099dcc37d7f03425e0c3'],
  ])('RFC 6070: P=%j S=%j c=%i', async (password, salt, iterations, derived) => {
    const hash = `$pbkdf2-sha1$i=${iterations}$${b64(Buffer.from(salt))}$${b64(hex(derived))}`;
    await expectVerifies('PBKDF2', hash, password);
  });

  // passlib's test suite (tests/test_handlers_django.py), generated with Django 1.4's hashers.
  it.each([
    ['pbkdf2_sha256$10000$kjVJaVz6qsnJ$5yPHw3rwJGECpUf70daLGhOrQ5+AMxIJdz1c3bqK1Rs=', 'not a password'],
    ['pbkdf2_sha256$10000$bEwAfNrH1TlQ$OgYUblFNUX1B8GfMqaCYUK/iHyO0pa7STTDdaEJBuY0=', UPASS_TABLE],
    ['pbkdf2_sha1$10000$wz5B6WkasRoF$atJmJ1o+XfJxKq1+Nu1f1i57Z5I=', 'not a password'],
    ['pbkdf2_sha1$10000$KZKWwvqb8BfL$rw5pWsxJEU4JrZAQhHTCO+u0f5Y=', UPASS_TABLE],
  ])('Django %s (the salt is used as text)', async (hash, password) => {
    const stored = await expectVerifies('PBKDF2', hash, password);
    const [name, iterations, salt, digest] = hash.split('$') as [string, string, string, string];
    const digestBytes = Buffer.from(digest, 'base64');
    expect(stored).toBe(
      `$pbkdf2-${name.slice('pbkdf2_'.length)}$i=${iterations},l=${digestBytes.length}$${b64u(Buffer.from(salt))}$${b64u(digestBytes)}`,
    );
  });

  // ASP.NET Core's own tests (src/Identity/test/Identity.Test/PasswordHasherTest.cs), password "my password".
  it.each([
    ['v2: SHA-1, 1000 iterations', 'ANXrDknc7fGPpigibZXXZFMX4aoqz44JveK6jQuwY3eH/UyPhvr5xTPeGYEckLxz9A=='],
    ['v2: HashPassword_Version2', 'AAABAgMEBQYHCAkKCwwNDg+ukCEMDf0yyQ29NYubggHIVY0sdEUfdyeM+E1LtH1uJg=='],
    ['v3: SHA-512, 50 iterations, 128-bit subkey', 'AQAAAAIAAAAyAAAAEOMwvh3+FZxqkdMBz2ekgGhwQ4B6pZWND6zgESBuWiHw'],
    [
      'v3: SHA-512, 250 iterations, 256-bit salt, 512-bit subkey',
      'AQAAAAIAAAD6AAAAIJbVi5wbMR+htSfFp8fTw8N8GOS/Sje+S/4YZcgBfU7EQuqv4OkVYmc4VJl9AGZzmRTxSkP7LtVi9IWyUxX8IAAfZ8v+ZfhjCcudtC1YERSqE1OEdXLW9VukPuJWBBjLuw==',
    ],
    ['v3: SHA-1, 250 iterations', 'AQAAAAAAAAD6AAAAEAhftMyfTJylOlZT+eEotFXd1elee8ih5WsjXaR3PA9M'],
    [
      'v3: SHA-256, 250000 iterations',
      'AQAAAAEAA9CQAAAAIESkQuj2Du8Y+kbc5lcN/W/3NiAZFEm11P27nrSN5/tId+bR1SwV8CO1Jd72r4C08OLvplNlCDc3oQZ8efcW+jQ=',
    ],
    [
      'v3: HashPassword_Version3',
      'AQAAAAEAACcQAAAAEAABAgMEBQYHCAkKCwwNDg+yWU7rLgUwPZb1Itsmra7cbxw2EFpwpVFIEtP+JIuUEw==',
    ],
  ])('ASP.NET Core Identity %s', async (_name, hash) => {
    const stored = await expectVerifies('PBKDF2', hash, 'my password');
    expect(stored).toMatch(/^\$pbkdf2-sha(1|256|512)\$i=[0-9]+,l=[0-9]+\$/);
  });

  it('ASP.NET Core Identity v3 header fields are read big-endian', () => {
    // The "SHA-256, 250000 iterations, 256-bit salt" blob above: PRF 1, 0x0003D090 iterations.
    const stored = importOk(
      'PBKDF2',
      'AQAAAAEAA9CQAAAAIESkQuj2Du8Y+kbc5lcN/W/3NiAZFEm11P27nrSN5/tId+bR1SwV8CO1Jd72r4C08OLvplNlCDc3oQZ8efcW+jQ=',
    );
    expect(stored.startsWith('$pbkdf2-sha256$i=250000,l=32$')).toBe(true);
  });

  // ASP.NET Core's failure cases from the same file: truncated payloads.
  it.each([
    'AAABAgMEBQYHCAkKCwwNDg+ukCEMDf0yyQ29NYubggE=',
    'AAABAgMEBQYHCAkKCwwNDg+ukCEMDf0yyQ29NYubggHIVY0sdEUfdyeM+E1LtH1uJgAAAAAAAAAAAAA=',
    'AQAAAAIAAAAyAAAAEOMwvh3+FZxqkdMBz2ekgGhwQ4A=',
  ])('ASP.NET Core payload %s of the wrong size is refused', (hash) => {
    expect(normaliseImportedHash('PBKDF2', hash)).toMatchObject({ ok: false, error: HASH_FORMAT_ERRORS.PBKDF2 });
  });
});

describe('scrypt', () => {
  // passlib's test suite (tests/test_handlers_scrypt.py): the first two are the scrypt paper's
  // (RFC 7914 §12) vectors in passlib's encoding, the others generated by passlib.
  it.each([
    ['', '$scrypt$ln=4,r=1,p=1$$d9ZXYjhleyA7GcpCwYoEl/FrSETjB0ro39/6P+3iFEI'],
    ['password', '$scrypt$ln=10,r=8,p=16$TmFDbA$/bq+HJ00cgB4VucZDQHp/nxq18vII3gw53N2Y0s3MWI'],
    ['test', '$scrypt$ln=8,r=8,p=1$wlhLyXmP8b53bm1NKYVQqg$mTpvG8lzuuDk+DWz8HZIB6Vum6erDuUm0As5yU+VxWA'],
    ['password', '$scrypt$ln=8,r=2,p=1$dO6d0xoDoLT2PofQGoNQag$g/Wf2A0vhHhaJM+addK61QPBthSmYB6uVTtQzh8CM3o'],
    [UPASS_TABLE, '$scrypt$ln=7,r=8,p=1$jjGmtDamdA4BQAjBeA9BSA$OiWRHhQtpDx7M/793x6UXK14AD512jg/qNm/hkWZG4M'],
    ['nacl', '$scrypt$ln=1,r=4,p=2$yhnD+J+Tci4lZCwFgHCuVQ$fAsEWmxSHuC0cHKMwKVFPzrQukgvK09Sj+NueTSxKds'],
    ['pleaseletmein', '$scrypt$ln=14,r=8,p=1$U29kaXVtQ2hsb3JpZGU$cCO9yzr9c0hGHAbNgf046/2o+7qQT44+qbVD9lRdofI'],
  ])('passlib: %j', async (password, hash) => {
    expect(await expectVerifies('SCRYPT', hash, password)).toBe(hash);
  });

  it('Kratos writes N itself in ln= (its fixture, hash/hasher_test.go): stored with log2 N', async () => {
    const hash =
      '$scrypt$ln=16384,r=8,p=1$2npRo7P03Mt8keSoMbyD/tKFWyUzjiQf2svUaNDSrhA=$MiCzNcIplSMqSBrm4HckjYqYhaVPPjTARTzwB1cVNYE=';
    const stored = await expectVerifies('SCRYPT', hash, 'test');
    expect(stored).toBe(
      '$scrypt$ln=14,r=8,p=1$2npRo7P03Mt8keSoMbyD/tKFWyUzjiQf2svUaNDSrhA$MiCzNcIplSMqSBrm4HckjYqYhaVPPjTARTzwB1cVNYE',
    );
  });
});

describe('bcrypt', () => {
  const WRONG = { ok: false, reason: 'WRONG_PASSWORD' };

  it("the empty password: jBCrypt's and OpenBSD's published vector", async () => {
    const hash = '$2a$06$DCq7YPn5Rq63x1Lad4cll.TV4S6ytwfsfvkgY8jIucDrjc8deX1s.';
    // The independent implementation agrees with the published value.
    expect(bcryptjs.hashSync('', hash.slice(0, 29))).toBe(hash);
    expect(importOk('BCRYPT', hash)).toBe(hash);
    expect(await verifyPassword('', hash, NO_KEY)).toEqual({ ok: true });
    expect(await verifyPassword(' ', hash, NO_KEY)).toEqual(WRONG);
    expect(await verifyPassword('x', hash, NO_KEY)).toEqual(WRONG);
    // bcrypt's key is the password and a NUL: "" and "\0" are the same key, for bcrypt itself too.
    expect(bcryptjs.compareSync('\0', hash)).toBe(true);
    expect(await verifyPassword('\0', hash, NO_KEY)).toEqual({ ok: true });
  });

  it('hashes the empty password as bcrypt does', async () => {
    const hash = await hashBcrypt('', 4);
    expect(hash).toMatch(/^\$2a\$04\$[./A-Za-z0-9]{53}$/);
    expect(bcryptjs.hashSync('', hash.slice(0, 29))).toBe(hash);
  });

  /** Well-formed text of every kind bcrypt treats specially: empty, NUL bytes, over 72 UTF-8 bytes, non-ASCII. */
  const password = fc.oneof(
    fc.constant(''),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.string({ unit: fc.constantFrom('\0', 'a', 'é', '€', '😀'), maxLength: 90 }),
    fc.string({ unit: 'grapheme-ascii', minLength: 70, maxLength: 120 }),
  );

  it('hashBcrypt and compareBcrypt agree with bcryptjs on any password at cost 4', async () => {
    await fc.assert(
      fc.asyncProperty(password, password, async (plain, other) => {
        const ours = await hashBcrypt(plain, 4);
        // The same salt and cost give bcryptjs's exact string.
        expect(bcryptjs.hashSync(plain, ours.slice(0, 29))).toBe(ours);
        const theirs = bcryptjs.hashSync(plain, 4);
        for (const hash of [ours, theirs]) {
          expect(await compareBcrypt(plain, hash)).toEqual({ ok: true });
          const otherMatches = bcryptjs.compareSync(other, hash);
          expect(await compareBcrypt(other, hash)).toEqual(otherMatches ? { ok: true } : WRONG);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('phpass, Drupal 7, WordPress', () => {
  it.each([
    // hashcat's example hashes (modes 400 and 7900), password "hashcat".
    ['hashcat', '$P$984478476IagS59wHZvyQMArzfx58u.'],
    ['hashcat', '$H$984478476IagS59wHZvyQMArzfx58u.'],
    ['hashcat', '$S$C33783772bRXEx1aCsvY.dqgaaSu76XmVlKrW9Qu8IQlvxHlmzLf'],
    // passlib's test suite (tests/test_handlers.py): from phpass 0.3's source, John the Ripper
    // 1.7.9, and passlib's own.
    ['test12345', '$P$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0'],
    ['test1', '$H$9aaaaaSXBjgypwqm.JsMssPLiS8YQ00'],
    ['123456', '$H$9PE8jEklgZhgLmZl5.HYJAzfGCQtzi1'],
    ['thisisalongertestPW', '$P$912345678LIjjb6PhecupozNBmDndU0'],
    ['JohnRipper', '$P$612345678si5M0DDyPpmRCmcltU/YW/'],
    ['JohnRipper', '$H$712345678WhEyvy1YWzT4647jzeOmo0'],
    ['JohnRipper', '$P$B12345678L6Lpt4BxNotVIMILOa9u81'],
    ['', '$P$7JaFQsPzJSuenezefD/3jHgt5hVfNH0'],
    ['compL3X!', '$P$FiS0N5L672xzQx1rt1vgdJQRYKnQM9/'],
    [UPASS_TABLE, '$P$7SMy8VxnfsIy2Sxm7fJxDSdil.h7TW.'],
  ])('%j → %s', async (password, hash) => {
    const stored = await expectVerifies('PHPASS', hash, password);
    // phpBB's $H$ is phpass's $P$ under another name: stored as $P$.
    expect(stored).toBe(hash.replace(/^\$H\$/, '$P$'));
  });

  it('WordPress ≥ 6.8: $wp + bcrypt of Base64(HMAC-SHA-384(password, "wp-sha384"))', async () => {
    // Computed here as wp_hash_password does (wp-includes/pluggable.php, 6.8): node:crypto's HMAC,
    // then bcryptjs (an implementation this core does not use) at cost 4.
    const password = 'correct horse battery staple, and then some more words than bcrypt reads';
    const prehash = createHmac('sha384', 'wp-sha384').update(password).digest('base64');
    const hash = `$wp${bcryptjs.hashSync(prehash, bcryptjs.genSaltSync(4)).replace(/^\$2b\$/, '$2y$')}`;
    expect(hash).toMatch(/^\$wp\$2y\$04\$/);
    expect(await expectVerifies('PHPASS', hash, password)).toBe(hash);
    // The HMAC keeps the whole password: one differing after byte 72 is refused.
    expect(await verifyPassword(`${password.slice(0, -1)}S`, hash, NO_KEY)).toEqual({
      ok: false,
      reason: 'WRONG_PASSWORD',
    });
    // Any bcrypt identifier is accepted and stored as $2y.
    expect(importOk('PHPASS', hash.replace('$wp$2y$', '$wp$2b$'))).toBe(hash);
  });
});

describe('MD5, SHA-1, SHA-256, SHA-512', () => {
  it.each([
    // passlib's test suite (tests/test_handlers.py, hex_* handlers).
    ['MD5', 'password', '5f4dcc3b5aa765d61d8327deb882cf99'],
    ['MD5', UPASS_TABLE, '05473f8a19f66815e737b33264a0d0b0'],
    ['SHA1', 'password', '5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8'],
    ['SHA1', UPASS_TABLE, 'e059b2628e3a3e2de095679de9822c1d1466e0f0'],
    ['SHA256', 'password', '5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8'],
    ['SHA256', UPASS_TABLE, '6ed729e19bf24d3d20f564375820819932029df05547116cfc2cc868a27b4493'],
    [
      'SHA512',
      'password',
      'b109f3bbbc244eb82441917ed06d618b9008dd09b3befd1b5e07394c706a8bb980b1d7785e5976ec049b46df5f1326af5a2ea6d103fd07c95385ffab0cacbc86',
    ],
    // hashcat's example hashes (modes 0 and 100), password "hashcat".
    ['MD5', 'hashcat', '8743b52063cd84097a65d1633f5c74f5'],
    ['SHA1', 'hashcat', 'b89eaac7e61417341b710b727768294d0e6a277b'],
  ] as const)(
    '%s of %j as hex, upper-case hex, and Base64 with and without padding',
    async (algorithm, password, digest) => {
      const stored = await expectVerifies(algorithm, digest, password);
      expect(stored).toBe(`$${algorithm.toLowerCase()}$pf=${b64(Buffer.from('{PASSWORD}'))}$$${b64(hex(digest))}`);
      expect(importOk(algorithm, digest.toUpperCase())).toBe(stored);
      expect(importOk(algorithm, b64(hex(digest)))).toBe(stored);
      expect(importOk(algorithm, b64u(hex(digest)))).toBe(stored);
    },
  );

  // passlib's test suite (tests/test_handlers_django.py): Django's salted legacy hashers.
  it.each([
    ['MD5', 'password', 'md5$123abcdef$c8272612932975ee80e8a35995708e80'],
    ['MD5', 'test', 'md5$3OpqnFAHW5CT$54b29300675271049a1ebae07b395e20'],
    ['MD5', UPASS_TABLE, 'md5$d9eb8$01495b32852bffb27cf5d4394fe7a54c'],
    ['SHA1', 'password', 'sha1$123abcdef$e4a1877b0e35c47329e7ed7e58014276168a37ba'],
    ['SHA1', 'test', 'sha1$bcwHF9Hy8lxS$6b4cfa0651b43161c6f1471ce9523acf1f751ba3'],
    ['SHA1', 'MyPassword', 'sha1$54123$893cf12e134c3c215f3a76bd50d13f92404a54d3'],
    ['SHA1', UPASS_TABLE, 'sha1$6d853$ef13a4d8fb57aed0cb573fe9c82e28dc7fd372d4'],
  ] as const)('Django %s: %s', async (algorithm, password, hash) => {
    const stored = await expectVerifies(algorithm, hash, password);
    const [, salt, digest] = hash.split('$') as [string, string, string];
    expect(stored).toBe(
      `$${algorithm.toLowerCase()}$pf=${b64(Buffer.from('{SALT}{PASSWORD}'))}$${b64(Buffer.from(salt))}$${b64(hex(digest))}`,
    );
  });

  it('Django unsalted form (empty salt) is the bare digest', async () => {
    // Django's UnsaltedSHA1PasswordHasher writes `sha1$$<hex>`; the digest is passlib's hex_sha1 "password".
    await expectVerifies('SHA1', 'sha1$$5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8', 'password');
  });

  // Ory Kratos's fixtures (hash/hasher_test.go), password "test" unless given.
  it.each([
    ['MD5', 'test', '$md5$CY9rzUYh03PK3k6DJie09g=='],
    ['MD5', 'ory', '$md5$ptoWyof5SobW+pbZu2QXoQ=='],
    ['MD5', 'test', '$md5$pf=e1NBTFR9e1BBU1NXT1JEfQ==$MTIz$q+RdKCgc+ipCAcm5ChQwlQ=='],
    ['SHA1', 'test', '$sha1$pf=e1NBTFR9e1BBU1NXT1JEfQ==$NW9wbWtnejAzcg==$2qU2SGWP8viTM1md3FiI3+rjWXQ='],
    ['SHA1', 'BwS^514g^cv@Z', '$sha1$pf=e1NBTFR9e1BBU1NXT1JEfQ==$NW9wbWtnejAzcg==$99h9net4BXl7qdTRaiGUobLROxM='],
    [
      'SHA1',
      'test',
      '$sha1$pf=Pz9zdGF0aWNQcmVmaXg/P3tTQUxUfXtQQVNTV09SRH0=$NW9wbWtnejAzcg==$SAAxMUn7jxckQXkBmsVF0nHwqso=',
    ],
    ['SHA1', 'test', '$sha1$pf=e1BBU1NXT1JEfSUle1NBTFR9$NW9wbWtnejAzcg==$YX0AW8/MW5ojUlnzTaR43ucHCog='],
    ['SHA1', 'test', '$sha1$pf=JHtQQVNTV09SRH0ke1NBTFR9JA==$NW9wbWtnejAzcg==$iE5n1yjX3oAdxRHwZ4u57I4LpQo='],
    [
      'SHA256',
      'test',
      '$sha256$pf=e1NBTFR9e1BBU1NXT1JEfQ==$NW9wbWtnejAzcg==$0gfRVLCvtBCk20udLDEY5vNhujWx7RGjwRIS1ebMsLY=',
    ],
    [
      'SHA256',
      'test',
      '$sha256$pf=e1NBTFR9JCR7UEFTU1dPUkR9$NW9wbWtnejAzcg==$HokCOi9OtiZaZRvnkgemV3B4UUHpI7kA8zq/EZWH2NY=',
    ],
    [
      'SHA512',
      'test',
      '$sha512$pf=e1NBTFR9e1BBU1NXT1JEfQ==$NW9wbWtnejAzcg==$6ctpVuApMNp0CgBXcdHw/GC562eFEFGr4gpgANX8ZYsX+j5B19IkdmOY2Fytsz3QUwSWdGcUjbqwgJGTH0UYvw==',
    ],
    [
      'SHA512',
      'test',
      '$sha512$pf=e1NBTFR9JCR7UEFTU1dPUkR9$NW9wbWtnejAzcg==$1F9BPW8UtdJkZ9Dhlf+D4X4dJ9xfuH8y04EfuCP2k4aGPPq/aWxU9/xe3LydHmYW1/K3zu3NFO9ETVrZettz3w==',
    ],
  ] as const)('Kratos %s %s', async (algorithm, password, hash) => {
    const stored = await expectVerifies(algorithm, hash, password);
    if (hash.includes('$pf=')) expect(stored).toBe(hash);
  });

  it('a Kratos form of another digest is refused', () => {
    const sha1 = '$sha1$pf=e1NBTFR9e1BBU1NXT1JEfQ==$NW9wbWtnejAzcg==$2qU2SGWP8viTM1md3FiI3+rjWXQ=';
    expect(normaliseImportedHash('SHA256', sha1)).toMatchObject({ ok: false, error: HASH_FORMAT_ERRORS.SHA256 });
    expect(normaliseImportedHash('MD5', 'sha1$54123$893cf12e134c3c215f3a76bd50d13f92404a54d3')).toMatchObject({
      ok: false,
      error: HASH_FORMAT_ERRORS.MD5,
    });
  });

  it('a salt containing {PASSWORD} is not substituted again', async () => {
    // Computed with node:crypto: SHA-1 of the salt bytes "{PASSWORD}" followed by the password.
    const salt = Buffer.from('{PASSWORD}');
    const digest = createHash('sha1')
      .update(Buffer.concat([salt, Buffer.from('pw')]))
      .digest();
    const hash = `$sha1$pf=${b64(Buffer.from('{SALT}{PASSWORD}'))}$${b64(salt)}$${b64(digest)}`;
    await expectVerifies('SHA1', hash, 'pw');
  });
});

describe('LDAP', () => {
  it.each([
    // passlib's test suite (tests/test_handlers.py, ldap_* handlers).
    ['helloworld', '{MD5}/F4DjTilcDIIVEHn/nAQsA=='],
    [UPASS_TABLE, '{MD5}BUc/ihn2aBXnN7MyZKDQsA=='],
    ['helloworld', '{SHA}at+xg6SiyUovktq1redipHiJpaE='],
    [UPASS_TABLE, '{SHA}4FmyYo46Pi3glWed6YIsHRRm4PA='],
    ['testing1234', '{SMD5}UjFY34os/pnZQ3oQOzjqGu4yeXE='],
    ['test', '{SMD5}LnuZPJhiaY95/4lmVFpg548xBsD4P4cw'],
    ['test', '{SMD5}XRlncfRzvGi0FDzgR98tUgBg7B3jXOs9p9S615qTkg=='],
    ['testing123', '{SSHA}0c0blFTXXNuAMHECS4uxrj3ZieMoWImr'],
    ['secret', '{SSHA}0H+zTv8o4MR4H43n03eCsvw1luG8LdB7'],
    [UPASS_TABLE, '{SSHA}3yCSD1nLZXznra4N8XzZgAL+s1sQYsx5'],
    ['test', '{SSHA}/ZMF5KymNM+uEOjW+9STKlfCFj51bg3BmBNCiPHeW2ttbU0='],
    ['password', '{SSHA256}x1tymSTVjozxQ2PtT46ysrzhZxbcskK0o2f8hEFx7fAQQmhtDSEkJA=='],
    ['letm\u00e8\u00efn', '{SSHA256}km7UjUTBZN8a+gf1ND2/qn15N7LsO/jmGYJXvyTfJKAbI0RoLWWslQ=='],
    ['test', '{SSHA256}TFv2RpwyO0U9mA0Hk8FsXRa1I+4dNUtv27Qa8dzGVLinlDIm'],
    [
      'toomanysecrets',
      '{SSHA512}wExp4xjiCHS0zidJDC4UJq9EEeIebAQPJ1PWSwfhxWjfutI9XiiKuHm2AE41cEFfK+8HyI8bh+ztbczUGsvVFIgICWWPt7qu',
    ],
    [
      'password',
      '{SSHA512}f/lFQskkl7PdMsTGJxHZq8LDt/l+UqRMm6/pj4pV7/xZkcOaKCgvQqp+KCeXc/Vd4RY6vEHWn4y0DnFcQ6wgyv9fyxk=',
    ],
    // Ory Kratos's fixtures (hash/hasher_test.go).
    ['test123', '{SSHA}JFZFs0oHzxbMwkSJmYVeI8MnTDy/276a'],
    ['test123', '{SSHA256}czO44OTV17PcF1cRxWrLZLy9xHd7CWyVYplr1rOhuMlx/7IK'],
    [
      'test123',
      '{SSHA512}xPUl/px+1cG55rUH4rzcwxdOIPSB2TingLpiJJumN2xyDWN4Ix1WQG3ihnvHaWUE8MYNkvMi5rf0C9NYixHsE6Yh59M=',
    ],
  ])('%j → %s', async (password, hash) => {
    const stored = await expectVerifies('LDAP', hash, password);
    // The salt follows the digest in the decoded value, so the template puts it after the password.
    const salted = /^\{S(SHA|MD5)/.test(hash);
    const template = salted ? '{PASSWORD}{SALT}' : '{PASSWORD}';
    expect(stored.split('$')[2]).toBe(`pf=${b64(Buffer.from(template))}`);
  });

  it('reads the scheme name case-insensitively', async () => {
    await expectVerifies('LDAP', '{ssha}0c0blFTXXNuAMHECS4uxrj3ZieMoWImr', 'testing123');
  });

  // passlib's malformed examples: bad Base64, or too short to hold a salt.
  it.each([
    '{SSHA}P90+qijSp8MJ1tN25j5o1PflUvlqjXHOGeOck',
    '{SSHA}P90+qijSp8MJ1tN25j5o1PflUvlqjXHOGeOckw=',
    '{SSHA}P90+qijSp8MJ1tN25j5o1Pf=UvlqjXHOGeOckw==',
    '{SSHA}P90+qijSp8MJ1tN25j5o1PflUvlqjXHOGeOck===',
    '{SMD5}LnuZPJhiaY95/4lmV=pg548xBsD4P4cw',
    '{SSHA256}TFv2RpwyO0U9mA0Hk8FsXRa1I+4dNUtv27Qa8dzGVLinlDI@',
    '{SSHA}at+xg6SiyUovktq1redipHiJpaE=',
    '{SHA}0c0blFTXXNuAMHECS4uxrj3ZieMoWImr',
    '{CRYPT}$1$abc$def',
    '{SSHA}',
  ])('refuses %s', (hash) => {
    expect(normaliseImportedHash('LDAP', hash)).toEqual({ ok: false, error: HASH_FORMAT_ERRORS.LDAP, kind: 'format' });
  });
});
