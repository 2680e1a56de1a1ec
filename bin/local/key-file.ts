/**
 * The local runtime's key for credentials at rest (docs/security.md "Credentials at rest"): staged
 * passwords, hashes and TOTP secrets and apps' Firebase signer keys are sealed with data keys that
 * this key wraps (functions/storage/crypto/local-keys.ts).
 *
 * With a data directory it is the file `credentials.key` there: 32 random bytes, created on first
 * start with permissions 0600 (owner only), reused by every later start. It is part of the data:
 * back it up with the directory and never share it. Without it the staged users not yet imported
 * can no longer be imported — a new key is made on the next start and those rows end FAILED with
 * a message saying so — and apps' signer keys must be set again. With `--in-memory` the key lives
 * only as long as the process, like the data.
 */
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fsyncSync,
  linkSync,
  openSync,
  readdirSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { ENV } from '#functions/shared/env.js';
import { LOCAL_KEY_BYTES } from '#functions/storage/crypto/local-keys.js';

export const KEY_FILE_NAME = 'credentials.key';
const OWNER_ONLY = 0o600;

export interface LocalKey {
  /** The key file, or undefined for a process-lifetime key. */
  readonly path: string | undefined;
  /** Whether this start made it. */
  readonly created: boolean;
  /** A new key file in a directory that already held data: rows sealed before cannot be opened. */
  readonly replacedLostKey: boolean;
}

/** A problem with the key file; the message is meant for the user (it never shows the key). */
export class KeyFileError extends Error {
  override readonly name = 'KeyFileError';
}

/** Whether DynamoDB Local already keeps a database in `dataDir` (ask before it starts). */
export function holdsData(dataDir: string): boolean {
  return readdirSync(dataDir).some((name) => name.endsWith('.db'));
}

/**
 * Creates the key file atomically (written and flushed under a temporary name, then linked into
 * place, so a crash never leaves a short key), or checks the existing one: 32 bytes, and owner-only
 * permissions (tightened if loosened).
 */
function ensureKeyFile(dataDir: string, hadData: boolean): LocalKey {
  const path = join(dataDir, KEY_FILE_NAME);
  let created = false;
  try {
    statSync(path);
  } catch {
    const temporary = `${path}.${process.pid}.tmp`;
    const fd = openSync(temporary, 'wx', OWNER_ONLY);
    try {
      writeSync(fd, randomBytes(LOCAL_KEY_BYTES));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(temporary, path);
      created = true;
    } catch (error) {
      // Another start linked its key first: use that one.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      unlinkSync(temporary);
    }
  }
  const stat = statSync(path);
  if (stat.size !== LOCAL_KEY_BYTES) {
    throw new KeyFileError(
      `The key file ${path} is damaged (${stat.size} bytes instead of ${LOCAL_KEY_BYTES}). Restore it from a backup; ` +
        'or delete it to start with a new key (staged users not yet imported then end FAILED, and apps must set their Firebase signer key again).',
    );
  }
  if ((stat.mode & 0o777) !== OWNER_ONLY) chmodSync(path, OWNER_ONLY);
  return { path, created, replacedLostKey: created && hadData };
}

/**
 * Points the handlers (this process and the worker threads it starts) at the local key: the file
 * under `dataDir`, or a new process-lifetime key in memory. Any other key setting in the
 * environment is dropped, so a local runtime never reaches for a KMS key. `hadData`: whether the
 * directory held a database before this start (a key made now cannot open what it holds).
 */
export function useLocalKey(env: NodeJS.ProcessEnv, dataDir: string | undefined, hadData: boolean): LocalKey {
  delete env[ENV.credentialsKeyArn];
  delete env[ENV.credentialsKeyFile];
  delete env[ENV.credentialsKey];
  if (dataDir === undefined) {
    env[ENV.credentialsKey] = randomBytes(LOCAL_KEY_BYTES).toString('base64');
    return { path: undefined, created: true, replacedLostKey: false };
  }
  const key = ensureKeyFile(dataDir, hadData);
  env[ENV.credentialsKeyFile] = key.path;
  return key;
}
