/**
 * Measurement 4: sign-in latency per hash format, against a bare verify of the same hash.
 * One user per format is imported (`POST /bulk-import/import`, the hash given) into an app of its
 * own (with the format's app config, e.g. the Firebase signer key); each run then signs in
 * `requests` times sequentially over HTTP, and verifies the same hash `requests` times in the
 * bench process with the core's own `verifyPassword` (#functions/domain/passwords — what sign-in
 * runs, minus HTTP, lookup and response), given the same app settings (the Firebase signer key).
 * p50/p99 per run.
 */
import { randomBytes } from 'node:crypto';
import { argon2id, bcrypt } from 'hash-wasm';
import { verifyPassword } from '#functions/domain/passwords/index.js';
import { firebaseScryptHash } from '../lib/firebase-scrypt.js';
import { callOk, type Runtime } from '../lib/runtime.js';
import { percentile } from '../lib/stats.js';
import { shortId } from '../lib/users.js';

export interface HashFormat {
  readonly name: string;
  readonly hashingAlgorithm: 'BCRYPT' | 'ARGON2' | 'FIREBASE_SCRYPT';
  readonly hash: string;
  /** The app's core config the format needs (e.g. `firebase_password_hashing_signer_key`). */
  readonly coreConfig?: Readonly<Record<string, string>>;
  readonly verify: (password: string, hash: string) => Promise<boolean>;
}

/**
 * Firebase project parameters as Firebase's password hash config shows them for every project:
 * rounds 8, mem_cost 14 (N = 16,384, 16 MiB), salt separator `Bw==`; a random 64-byte signer key
 * and a 16-byte per-user salt.
 */
const FIREBASE = { rounds: 8, memCost: 14, saltSeparator: 'Bw==' } as const;

const PASSWORD = 'correct horse battery staple';

export async function hashFormats(): Promise<HashFormat[]> {
  const salt = () => crypto.getRandomValues(new Uint8Array(16));
  return [
    {
      name: 'bcrypt (cost 10)',
      hashingAlgorithm: 'BCRYPT',
      hash: await bcrypt({ password: PASSWORD, salt: salt(), costFactor: 10, outputType: 'encoded' }),
      verify: async (password, hash) => (await verifyPassword(password, hash, { firebaseSignerKey: undefined })).ok,
    },
    {
      name: 'argon2id (m=19456 t=2 p=1)',
      hashingAlgorithm: 'ARGON2',
      hash: await argon2id({
        password: PASSWORD,
        salt: salt(),
        parallelism: 1,
        iterations: 2,
        memorySize: 19456,
        hashLength: 32,
        outputType: 'encoded',
      }),
      verify: async (password, hash) => (await verifyPassword(password, hash, { firebaseSignerKey: undefined })).ok,
    },
    await firebaseFormat(),
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
  return {
    name: `firebase scrypt (m=${FIREBASE.memCost} r=${FIREBASE.rounds} s=${FIREBASE.saltSeparator})`,
    hashingAlgorithm: 'FIREBASE_SCRYPT',
    hash,
    coreConfig: { firebase_password_hashing_signer_key: signerKey },
    // What sign-in runs: the module's verifyPassword with the app's signer key.
    verify: async (password, stored) => (await verifyPassword(password, stored, { firebaseSignerKey: signerKey })).ok,
  };
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
    let start = performance.now();
    await callOk(runtime, 'POST', `/appid-${target.appId}/recipe/signin`, { email: target.email, password: PASSWORD });
    http.push(performance.now() - start);
    start = performance.now();
    if (!(await format.verify(PASSWORD, format.hash))) throw new Error(`bare verify failed for ${format.name}`);
    bare.push(performance.now() - start);
  }
  return {
    signInP50: percentile(http, 50),
    signInP99: percentile(http, 99),
    verifyP50: percentile(bare, 50),
    verifyP99: percentile(bare, 99),
    ratioP50: percentile(http, 50) / percentile(bare, 50),
  };
}
