/**
 * Measurement 4: sign-in latency per hash format, against a bare verify of the same hash.
 * One user per format is imported (`POST /bulk-import/import`, the hash given) into an app of its
 * own (with the format's app config, e.g. the Firebase signer key); each run then signs in
 * `requests` times sequentially over HTTP, and verifies the same hash `requests` times in the
 * bench process with the core's own `verifyPassword` (#functions/domain/passwords — what sign-in
 * runs, minus HTTP, lookup and response), given the same app settings (the Firebase signer key).
 * p50/p99 per run. The legacy families' apps turn the upgrade on sign-in off
 * (`legacy_password_hash_upgrade_enabled: false`), so every sign-in verifies the legacy hash; the
 * upgrade itself is measured in signin-upgrade.ts.
 */
import { createHash, pbkdf2Sync, randomBytes, scryptSync } from 'node:crypto';
import { argon2id, bcrypt } from 'hash-wasm';
import { type HashingAlgorithm, normaliseImportedHash, verifyPassword } from '#functions/domain/passwords/index.js';
import { firebaseScryptHash } from '../lib/firebase-scrypt.js';
import { phpassHash } from '../lib/phpass.js';
import { callOk, type Runtime } from '../lib/runtime.js';
import { percentile, timed } from '../lib/stats.js';
import { shortId } from '../lib/users.js';

export interface HashFormat {
  readonly name: string;
  readonly hashingAlgorithm: HashingAlgorithm;
  /** As imported. */
  readonly hash: string;
  /** As stored (the family's canonical form), what sign-in verifies. */
  readonly stored: string;
  /** The app's core config the format needs (e.g. `firebase_password_hashing_signer_key`). */
  readonly coreConfig?: Readonly<Record<string, string | boolean>>;
  readonly verify: (password: string, hash: string) => Promise<boolean>;
}

/**
 * Firebase project parameters as Firebase's password hash config shows them for every project:
 * rounds 8, mem_cost 14 (N = 16,384, 16 MiB), salt separator `Bw==`; a random 64-byte signer key
 * and a 16-byte per-user salt.
 */
const FIREBASE = { rounds: 8, memCost: 14, saltSeparator: 'Bw==' } as const;

export const PASSWORD = 'correct horse battery staple';

export async function hashFormats(): Promise<HashFormat[]> {
  const salt = () => crypto.getRandomValues(new Uint8Array(16));
  const noKey = async (password: string, hash: string) =>
    (await verifyPassword(password, hash, { firebaseSignerKey: undefined })).ok;
  return [
    format(
      'bcrypt (cost 10)',
      'BCRYPT',
      await bcrypt({ password: PASSWORD, salt: salt(), costFactor: 10, outputType: 'encoded' }),
      noKey,
    ),
    format(
      'argon2id (m=19456 t=2 p=1)',
      'ARGON2',
      await argon2id({
        password: PASSWORD,
        salt: salt(),
        parallelism: 1,
        iterations: 2,
        memorySize: 19456,
        hashLength: 32,
        outputType: 'encoded',
      }),
      noKey,
    ),
    await firebaseFormat(),
    ...legacyFormats(noKey),
  ];
}

function format(
  name: string,
  hashingAlgorithm: HashingAlgorithm,
  hash: string,
  verify: HashFormat['verify'],
  coreConfig?: HashFormat['coreConfig'],
): HashFormat {
  const imported = normaliseImportedHash(hashingAlgorithm, hash);
  if (!imported.ok) throw new Error(`${name}: the core refuses the bench's hash (${imported.error})`);
  return { name, hashingAlgorithm, hash, stored: imported.storedHash, verify, ...(coreConfig ? { coreConfig } : {}) };
}

/**
 * One representative of each legacy family at the cost its best-known source writes today, each
 * computed here as that source computes it (node:crypto): Django 5.2's PBKDF2 (SHA-256, 1,000,000
 * iterations), passlib's scrypt defaults (N = 2^16, r 8, p 1), WordPress's phpass (`$P$B`, 2^13
 * MD5 rounds), a salted SHA-256 of a home-grown login and an LDAP `{SSHA}`.
 */
function legacyFormats(verify: HashFormat['verify']): HashFormat[] {
  const off = { legacy_password_hash_upgrade_enabled: false };
  const salt = randomBytes(16);
  const textSalt = randomBytes(9).toString('base64url');
  const b64 = (bytes: Buffer) => bytes.toString('base64');
  const unpadded = (bytes: Buffer) => b64(bytes).replace(/=+$/, '');
  const scryptKey = scryptSync(PASSWORD, salt, 32, { N: 2 ** 16, r: 8, p: 1, maxmem: 256 * 1024 * 1024 });
  const sha256 = createHash('sha256')
    .update(Buffer.concat([salt, Buffer.from(PASSWORD)]))
    .digest();
  const ssha = createHash('sha1')
    .update(Buffer.concat([Buffer.from(PASSWORD), salt]))
    .digest();
  return [
    format(
      'PBKDF2-SHA256 (Django, 1,000,000 iterations)',
      'PBKDF2',
      `pbkdf2_sha256$1000000$${textSalt}$${b64(pbkdf2Sync(PASSWORD, textSalt, 1_000_000, 32, 'sha256'))}`,
      verify,
      off,
    ),
    format(
      'scrypt (passlib, ln=16 r=8 p=1)',
      'SCRYPT',
      `$scrypt$ln=16,r=8,p=1$${unpadded(salt)}$${unpadded(scryptKey)}`,
      verify,
      off,
    ),
    format('phpass (WordPress $P$B, 2^13 rounds)', 'PHPASS', phpassHash(PASSWORD, 13), verify, off),
    format(
      'salted SHA-256 (salt first)',
      'SHA256',
      `$sha256$pf=${b64(Buffer.from('{SALT}{PASSWORD}'))}$${b64(salt)}$${b64(sha256)}`,
      verify,
      off,
    ),
    format('LDAP {SSHA}', 'LDAP', `{SSHA}${b64(Buffer.concat([ssha, salt]))}`, verify, off),
  ];
}

async function firebaseFormat(): Promise<HashFormat> {
  const signerKey = randomBytes(64).toString('base64');
  const hash = await firebaseScryptHash({
    password: PASSWORD,
    salt: randomBytes(16).toString('base64'),
    signerKey,
    ...FIREBASE,
  });
  return format(
    `firebase scrypt (m=${FIREBASE.memCost} r=${FIREBASE.rounds} s=${FIREBASE.saltSeparator})`,
    'FIREBASE_SCRYPT',
    hash,
    // What sign-in runs: the module's verifyPassword with the app's signer key.
    async (password, stored) => (await verifyPassword(password, stored, { firebaseSignerKey: signerKey })).ok,
    { firebase_password_hashing_signer_key: signerKey },
  );
}

export async function prepareSignIn(runtime: Runtime, format: HashFormat): Promise<{ appId: string; email: string }> {
  const appId = `signin-${shortId()}`;
  const email = `signin-${shortId()}@example.com`;
  await callOk(runtime, 'PUT', '/recipe/multitenancy/app/v2', { appId, coreConfig: format.coreConfig ?? {} });
  await callOk(runtime, 'POST', `/appid-${appId}/bulk-import/import`, {
    loginMethods: [
      { recipeId: 'emailpassword', email, passwordHash: format.hash, hashingAlgorithm: format.hashingAlgorithm },
    ],
  });
  return { appId, email };
}

export async function signInRun(
  runtime: Runtime,
  format: HashFormat,
  target: { appId: string; email: string },
  requests: number,
) {
  const http: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < requests; i++) {
    await timed(http, () =>
      callOk(runtime, 'POST', `/appid-${target.appId}/recipe/signin`, { email: target.email, password: PASSWORD }),
    );
    await timed(bare, async () => {
      if (!(await format.verify(PASSWORD, format.stored))) throw new Error(`bare verify failed for ${format.name}`);
    });
  }
  return {
    signInP50: percentile(http, 50),
    signInP99: percentile(http, 99),
    verifyP50: percentile(bare, 50),
    verifyP99: percentile(bare, 99),
    ratioP50: percentile(http, 50) / percentile(bare, 50),
  };
}
