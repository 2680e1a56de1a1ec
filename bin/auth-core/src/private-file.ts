/**
 * Files the command writes (the report, the state file, `failures --out`) hold personal data and ids:
 * only their owner may read them. `open(…, 0o600)` sets that mode only when it creates the file, so
 * a file that already exists (an earlier run's report, a file made by hand or by a looser umask) is
 * set to 0600 through its descriptor before anything is written to it.
 */
import { closeSync, fchmodSync, fstatSync, openSync } from 'node:fs';
import { usageError } from './errors.js';

const PRIVATE_MODE = 0o600;

/**
 * Opens `path` for writing (`w`: truncated, `a`: appended to); a regular file gets mode 0600, created
 * or not. Anything else (`/dev/null`, a pipe) is written as it is: its mode is not the file's to change.
 * Fails with exit 2 when it cannot be opened or made private.
 */
export function openPrivate(path: string, flags: 'w' | 'a', what: string): number {
  let fd: number;
  try {
    fd = openSync(path, flags, PRIVATE_MODE);
  } catch (error) {
    throw usageError(`cannot write the ${what} ${path}: ${(error as Error).message}`);
  }
  try {
    if (fstatSync(fd).isFile()) fchmodSync(fd, PRIVATE_MODE);
  } catch (error) {
    closeSync(fd);
    throw usageError(`cannot make the ${what} ${path} private (mode 0600): ${(error as Error).message}`);
  }
  return fd;
}
