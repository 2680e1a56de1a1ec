import { createHmac } from 'node:crypto';
import bcrypt from 'bcryptjs';

/**
 * One imported hash for every legacy family and every accepted form of it (docs/password-hashes.md),
 * each with its password and where it comes from. Published vectors are used as given;
 * the few computed here say how. `hashingAlgorithm` is spelled in different cases on purpose.
 */
export interface LegacyHashCase {
  readonly label: string;
  readonly hashingAlgorithm: string;
  readonly passwordHash: string;
  readonly password: string;
}

const b64 = (bytes: Buffer) => bytes.toString('base64');
const hex = (text: string) => Buffer.from(text, 'hex');

/** WordPress ≥ 6.8 (wp_hash_password): `$wp` + bcrypt of Base64(HMAC-SHA-384(password, 'wp-sha384')), computed with node:crypto and bcryptjs. */
function wordPress68(password: string): string {
  const prehash = createHmac('sha384', 'wp-sha384').update(password).digest('base64');
  return `$wp${bcrypt.hashSync(prehash, 4).replace(/^\$2b\$/, '$2y$')}`;
}

export function legacyHashCases(): LegacyHashCase[] {
  return [
    // PBKDF2 — Ory Kratos's fixtures (hash/hasher_test.go), password "test"; `sha224`/`sha384` are SHA3 there.
    {
      label: 'PBKDF2 Kratos sha256',
      hashingAlgorithm: 'PBKDF2',
      passwordHash:
        '$pbkdf2-sha256$i=100000,l=32$1jP+5Zxpxgtee/iPxGgOz0RfE9/KJuDElP1ley4VxXc$QJxzfvdbHYBpydCbHoFg3GJEqMFULwskiuqiJctoYpI',
      password: 'test',
    },
    {
      label: 'PBKDF2 Kratos sha512',
      hashingAlgorithm: 'pbkdf2',
      passwordHash:
        '$pbkdf2-sha512$i=100000,l=32$bdHBpn7OWOivJMVJypy2UqR0UnaD5prQXRZevj/05YU$+wArTfv1a+bNGO1iZrmEdVjhA+lL11wF4/IxpgYfPwc',
      password: 'test',
    },
    {
      label: 'PBKDF2 Kratos sha224 (SHA3)',
      hashingAlgorithm: 'Pbkdf2',
      passwordHash: '$pbkdf2-sha224$i=100000,l=32$A2nzbFd+wwzPSb+TqkF5Pw$9M4GM2yOYw/fZvsvQbF/0Ec8JO2u9O1MYRTfrDimX6o',
      password: 'test',
    },
    {
      label: 'PBKDF2 Kratos sha384 (SHA3)',
      hashingAlgorithm: 'PBKDF2',
      passwordHash: '$pbkdf2-sha384$i=100000,l=32$xDInuz7Y/DPzZUnCaQXJmg$7ICaEa6jEqxbbCBbv4YzrBf39KYNAtc3Bj0QWKeB3Ck',
      password: 'test',
    },
    {
      // RFC 6070 §2, c = 4096, written in Kratos's form with padded Base64 and without l=.
      label: 'PBKDF2 Kratos sha1, padded, no l=',
      hashingAlgorithm: 'PBKDF2',
      passwordHash: `$pbkdf2-sha1$i=4096$${b64(Buffer.from('salt'))}$${b64(hex('4b007901b765489abead49d926f721d065a429c1'))}`,
      password: 'password',
    },
    // Django (passlib's tests/test_handlers_django.py, generated with Django's hashers).
    {
      label: 'PBKDF2 Django pbkdf2_sha256',
      hashingAlgorithm: 'PBKDF2',
      passwordHash: 'pbkdf2_sha256$10000$kjVJaVz6qsnJ$5yPHw3rwJGECpUf70daLGhOrQ5+AMxIJdz1c3bqK1Rs=',
      password: 'not a password',
    },
    {
      label: 'PBKDF2 Django pbkdf2_sha1',
      hashingAlgorithm: 'PBKDF2',
      passwordHash: 'pbkdf2_sha1$10000$wz5B6WkasRoF$atJmJ1o+XfJxKq1+Nu1f1i57Z5I=',
      password: 'not a password',
    },
    // ASP.NET Core Identity's tests (src/Identity/test/Identity.Test/PasswordHasherTest.cs).
    {
      label: 'PBKDF2 ASP.NET Core Identity v2',
      hashingAlgorithm: 'PBKDF2',
      passwordHash: 'ANXrDknc7fGPpigibZXXZFMX4aoqz44JveK6jQuwY3eH/UyPhvr5xTPeGYEckLxz9A==',
      password: 'my password',
    },
    {
      label: 'PBKDF2 ASP.NET Core Identity v3',
      hashingAlgorithm: 'PBKDF2',
      passwordHash: 'AQAAAAEAACcQAAAAEAABAgMEBQYHCAkKCwwNDg+yWU7rLgUwPZb1Itsmra7cbxw2EFpwpVFIEtP+JIuUEw==',
      password: 'my password',
    },
    // scrypt: passlib's tests/test_handlers_scrypt.py; Kratos's fixture writes N itself in ln=.
    {
      label: 'scrypt passlib',
      hashingAlgorithm: 'SCRYPT',
      passwordHash: '$scrypt$ln=8,r=8,p=1$wlhLyXmP8b53bm1NKYVQqg$mTpvG8lzuuDk+DWz8HZIB6Vum6erDuUm0As5yU+VxWA',
      password: 'test',
    },
    {
      label: 'scrypt Kratos',
      hashingAlgorithm: ' scrypt ',
      passwordHash:
        '$scrypt$ln=16384,r=8,p=1$2npRo7P03Mt8keSoMbyD/tKFWyUzjiQf2svUaNDSrhA=$MiCzNcIplSMqSBrm4HckjYqYhaVPPjTARTzwB1cVNYE=',
      password: 'test',
    },
    // phpass family: hashcat's example hashes (modes 400, 7900), passlib's tests/test_handlers.py.
    {
      label: 'phpass $P$',
      hashingAlgorithm: 'PHPASS',
      passwordHash: '$P$984478476IagS59wHZvyQMArzfx58u.',
      password: 'hashcat',
    },
    {
      label: 'phpBB $H$',
      hashingAlgorithm: 'phpass',
      passwordHash: '$H$9PE8jEklgZhgLmZl5.HYJAzfGCQtzi1',
      password: '123456',
    },
    {
      label: 'Drupal 7 $S$',
      hashingAlgorithm: 'PHPASS',
      passwordHash: '$S$C33783772bRXEx1aCsvY.dqgaaSu76XmVlKrW9Qu8IQlvxHlmzLf',
      password: 'hashcat',
    },
    {
      label: 'WordPress 6.8 $wp$2y$',
      hashingAlgorithm: 'PHPASS',
      passwordHash: wordPress68('correct horse battery staple wp'),
      password: 'correct horse battery staple wp',
    },
    // Digests: passlib's hex_* vectors, hashcat's examples, Kratos's fixtures, Django's legacy hashers (passlib).
    {
      label: 'MD5 hex',
      hashingAlgorithm: 'MD5',
      passwordHash: '5f4dcc3b5aa765d61d8327deb882cf99',
      password: 'password',
    },
    {
      label: 'MD5 Kratos unsalted',
      hashingAlgorithm: 'md5',
      passwordHash: '$md5$CY9rzUYh03PK3k6DJie09g==',
      password: 'test',
    },
    {
      label: 'MD5 Kratos salt first',
      hashingAlgorithm: 'MD5',
      passwordHash: '$md5$pf=e1NBTFR9e1BBU1NXT1JEfQ==$MTIz$q+RdKCgc+ipCAcm5ChQwlQ==',
      password: 'test',
    },
    {
      label: 'MD5 Django md5$',
      hashingAlgorithm: 'MD5',
      passwordHash: 'md5$3OpqnFAHW5CT$54b29300675271049a1ebae07b395e20',
      password: 'test',
    },
    {
      label: 'SHA-1 Base64',
      hashingAlgorithm: 'SHA1',
      passwordHash: b64(hex('b89eaac7e61417341b710b727768294d0e6a277b')),
      password: 'hashcat',
    },
    {
      label: 'SHA-1 Django sha1$',
      hashingAlgorithm: 'sha1',
      passwordHash: 'sha1$bcwHF9Hy8lxS$6b4cfa0651b43161c6f1471ce9523acf1f751ba3',
      password: 'test',
    },
    {
      label: 'SHA-1 Kratos salt after, separator',
      hashingAlgorithm: 'SHA1',
      passwordHash: '$sha1$pf=e1BBU1NXT1JEfSUle1NBTFR9$NW9wbWtnejAzcg==$YX0AW8/MW5ojUlnzTaR43ucHCog=',
      password: 'test',
    },
    {
      label: 'SHA-256 upper-case hex',
      hashingAlgorithm: 'SHA256',
      passwordHash: '5E884898DA28047151D0E56F8DC6292773603D0D6AABBDD62A11EF721D1542D8',
      password: 'password',
    },
    {
      label: 'SHA-256 Kratos',
      hashingAlgorithm: 'sha256',
      passwordHash: '$sha256$pf=e1NBTFR9JCR7UEFTU1dPUkR9$NW9wbWtnejAzcg==$HokCOi9OtiZaZRvnkgemV3B4UUHpI7kA8zq/EZWH2NY=',
      password: 'test',
    },
    {
      label: 'SHA-512 hex',
      hashingAlgorithm: 'SHA512',
      passwordHash:
        'b109f3bbbc244eb82441917ed06d618b9008dd09b3befd1b5e07394c706a8bb980b1d7785e5976ec049b46df5f1326af5a2ea6d103fd07c95385ffab0cacbc86',
      password: 'password',
    },
    {
      label: 'SHA-512 Kratos',
      hashingAlgorithm: 'SHA512',
      passwordHash:
        '$sha512$pf=e1NBTFR9e1BBU1NXT1JEfQ==$NW9wbWtnejAzcg==$6ctpVuApMNp0CgBXcdHw/GC562eFEFGr4gpgANX8ZYsX+j5B19IkdmOY2Fytsz3QUwSWdGcUjbqwgJGTH0UYvw==',
      password: 'test',
    },
    // LDAP (RFC 2307 style): passlib's tests/test_handlers.py.
    {
      label: 'LDAP {SSHA}',
      hashingAlgorithm: 'LDAP',
      passwordHash: '{SSHA}0c0blFTXXNuAMHECS4uxrj3ZieMoWImr',
      password: 'testing123',
    },
    {
      label: 'LDAP {SSHA256}',
      hashingAlgorithm: 'ldap',
      passwordHash: '{SSHA256}x1tymSTVjozxQ2PtT46ysrzhZxbcskK0o2f8hEFx7fAQQmhtDSEkJA==',
      password: 'password',
    },
    {
      label: 'LDAP {SSHA512}',
      hashingAlgorithm: 'LDAP',
      passwordHash:
        '{SSHA512}wExp4xjiCHS0zidJDC4UJq9EEeIebAQPJ1PWSwfhxWjfutI9XiiKuHm2AE41cEFfK+8HyI8bh+ztbczUGsvVFIgICWWPt7qu',
      password: 'toomanysecrets',
    },
    {
      label: 'LDAP {SMD5}',
      hashingAlgorithm: 'LDAP',
      passwordHash: '{SMD5}UjFY34os/pnZQ3oQOzjqGu4yeXE=',
      password: 'testing1234',
    },
    {
      label: 'LDAP {SHA}',
      hashingAlgorithm: 'LDAP',
      passwordHash: '{SHA}at+xg6SiyUovktq1redipHiJpaE=',
      password: 'helloworld',
    },
    {
      label: 'LDAP {md5}',
      hashingAlgorithm: 'LDAP',
      passwordHash: '{md5}/F4DjTilcDIIVEHn/nAQsA==',
      password: 'helloworld',
    },
  ];
}

const b64u = (length: number) => Buffer.alloc(length, 7).toString('base64').replace(/=+$/, '');

/** Hashes whose cost is beyond the bounds, and the import answer's message for each. */
export const BEYOND_BOUNDS: readonly { hashingAlgorithm: string; passwordHash: string; message: string }[] = [
  {
    hashingAlgorithm: 'PBKDF2',
    passwordHash: `$pbkdf2-sha256$i=1500001,l=32$${b64u(16)}$${b64u(32)}`,
    message: 'Password hash is in invalid PBKDF2 format: iterations 1500001 is above the limit of 1500000',
  },
  {
    hashingAlgorithm: 'PBKDF2',
    passwordHash: `$pbkdf2-sha1$i=600000,l=64$${b64u(16)}$${b64u(64)}`,
    message:
      'Password hash is in invalid PBKDF2 format: iterations × 4 output blocks 2400000 is above the limit of 1500000',
  },
  {
    hashingAlgorithm: 'SCRYPT',
    passwordHash: `$scrypt$ln=18,r=8,p=1$${b64u(16)}$${b64u(32)}`,
    message: 'Password hash is in invalid SCrypt format: ln 18 is above the limit of 17',
  },
  {
    hashingAlgorithm: 'PHPASS',
    passwordHash: `$P$G12345678${'a'.repeat(22)}`,
    message: 'Password hash is in invalid phpass format: log2 iterations 18 is above the limit of 17',
  },
  {
    hashingAlgorithm: 'PHPASS',
    passwordHash: `$S$H12345678${'a'.repeat(43)}`,
    message: 'Password hash is in invalid phpass format: log2 iterations 19 is above the limit of 18',
  },
  {
    hashingAlgorithm: 'PHPASS',
    passwordHash: `$wp$2y$15$${'a'.repeat(53)}`,
    message: 'Password hash is in invalid phpass format: cost 15 is above the limit of 14',
  },
];
