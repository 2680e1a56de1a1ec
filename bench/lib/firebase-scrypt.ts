/**
 * A Firebase Auth password hash, as Firebase's `auth:export` gives it, in the core's storage
 * format `$f_scrypt$<hash>$<salt>$m=<memCost>$r=<rounds>$s=<saltSeparator>` (docs/reference-behaviour.md "Password hash formats").
 * The core's password module only verifies these, so the bench builds them itself with
 * Firebase's modified scrypt (github.com/firebase/scrypt): key = scrypt(password,
 * salt ‖ saltSeparator, N = 2^memCost, r = rounds, p = 1, 64 bytes); hash = Base64 of the
 * project's signer key encrypted with AES-256-CTR under the key's first 32 bytes, all-zero IV.
 * scrypt comes from hash-wasm here (an implementation independent of the core's node:crypto one),
 * so a verify that succeeds also cross-checks the two.
 */
import { createCipheriv } from 'node:crypto';
import { scrypt } from 'hash-wasm';

export interface FirebaseHashParams {
  readonly password: string;
  /** Base64 per-user salt. */
  readonly salt: string;
  /** Base64 project salt separator (Firebase projects: `Bw==`). */
  readonly saltSeparator: string;
  /** Base64 project signer key (`firebase_password_hashing_signer_key`). */
  readonly signerKey: string;
  /** scrypt r (Firebase projects: 8). */
  readonly rounds: number;
  /** log2 of scrypt N (Firebase projects: 14). */
  readonly memCost: number;
}

/** The Base64 hash part alone (what Firebase exports as `passwordHash`). */
export async function firebaseScryptDigest(p: FirebaseHashParams): Promise<string> {
  const derived = await scrypt({
    password: p.password,
    salt: Buffer.concat([Buffer.from(p.salt, 'base64'), Buffer.from(p.saltSeparator, 'base64')]),
    costFactor: 2 ** p.memCost,
    blockSize: p.rounds,
    parallelism: 1,
    hashLength: 64,
    outputType: 'binary',
  });
  const cipher = createCipheriv('aes-256-ctr', derived.subarray(0, 32), Buffer.alloc(16));
  return Buffer.concat([cipher.update(Buffer.from(p.signerKey, 'base64')), cipher.final()]).toString('base64');
}

/** The full `$f_scrypt$…` string the core imports. */
export async function firebaseScryptHash(p: FirebaseHashParams): Promise<string> {
  const digest = await firebaseScryptDigest(p);
  return `$f_scrypt$${digest}$${p.salt}$m=${p.memCost}$r=${p.rounds}$s=${p.saltSeparator}`;
}
