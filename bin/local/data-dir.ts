/**
 * The local runtime's data directory is private to its owner: the directory 0700, every file in it
 * 0600 — the database (password hashes, TOTP secrets, API-key digests), the key that seals staged
 * credentials, the pid file.
 *
 * New files get those modes from the runtime's umask (077, set once at start: DynamoDB Local, a
 * child process, inherits it, and so does the database file it creates). Files and the directory
 * that already exist with looser modes — a data directory from an earlier version, a copy, a
 * backup restored by hand — are tightened at start, and the runtime says which (docs/safe-defaults.md).
 * A directory the runtime cannot tighten (another user's) stops it with a message saying why.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const PRIVATE_DIR_MODE = 0o700;
const PRIVATE_FILE_MODE = 0o600;
/** The umask under which the runtime creates files: nothing for group or others. */
export const PRIVATE_UMASK = 0o077;

/** A data directory the runtime cannot make private; the message is meant for the user. */
export class DataDirModeError extends Error {
  override readonly name = 'DataDirModeError';
}

/** `0o755` → `0755`. */
export const octal = (mode: number): string => `0${(mode & 0o777).toString(8).padStart(3, '0')}`;

/** One path whose permissions were tightened: its name (relative to the data directory) and old mode. */
export interface Tightened {
  readonly name: string;
  readonly was: string;
}

function tighten(path: string, mode: number, name: string, done: Tightened[]): void {
  const stat = lstatSync(path);
  const current = stat.mode & 0o777;
  if ((current & ~mode) === 0) return;
  try {
    chmodSync(path, current & mode);
  } catch (error) {
    throw new DataDirModeError(
      `${path} is readable by others (${octal(current)}) and cannot be made private: ${(error as Error).message}. ` +
        `Make it yours with mode ${octal(mode)} (chmod ${octal(mode)} '${path}'), or choose another DATA_DIR.`,
    );
  }
  done.push({ name, was: octal(current) });
}

/** Creates `dir` (and missing parents) owner-only, or tightens it if it exists; returns what changed. */
export function ensurePrivateDir(dir: string): Tightened[] {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const done: Tightened[] = [];
  tighten(dir, PRIVATE_DIR_MODE, '.', done);
  return done;
}

/**
 * Makes the data directory private: the directory and its subdirectories at most 0700, every file
 * in them at most 0600 (bits beyond those removed, the owner's others kept). Symbolic links are
 * neither followed nor changed. Returns what was tightened, for the start-up banner.
 */
export function makeDataDirPrivate(dir: string): Tightened[] {
  const done = ensurePrivateDir(dir);
  const walk = (path: string, prefix: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      const name = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isSymbolicLink()) continue;
      if (entry.isDirectory()) {
        tighten(full, PRIVATE_DIR_MODE, name, done);
        walk(full, name);
      } else if (entry.isFile()) {
        tighten(full, PRIVATE_FILE_MODE, name, done);
      }
    }
  };
  walk(dir, '');
  return done;
}
