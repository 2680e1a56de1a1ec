/**
 * The command as `npx auth-core` runs it: the bin/auth-core workspace's launcher and the JavaScript
 * bundle it loads (`npm run build --workspace bin/auth-core`, run by `npm ci` through the root's
 * `prepare` and by `npm pack` through the workspace's `prepack`). Tests that start the command as a
 * process run the launcher; buildCommand (the unit and e2e projects' global setup) rebuilds the
 * bundle from the sources first, so they never run a stale one.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

/** The launcher, relative to the repository root. */
export const COMMAND_ENTRY = 'bin/auth-core/auth-core.js';

export default function buildCommand(): void {
  execFileSync('npm', ['run', 'build', '--silent', '--workspace', 'bin/auth-core'], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
  });
}
