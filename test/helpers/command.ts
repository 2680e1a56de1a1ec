/**
 * The command as `npx auth-core` runs it: the JavaScript bundle of the bin/auth-core workspace
 * (`npm run build --workspace bin/auth-core`, also run by `npm ci` through the workspace's `prepare`).
 * Tests that start the command as a process run this file; buildCommand (the unit and e2e projects'
 * global setup) rebuilds it from the sources first, so they never run a stale bundle.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

/** The bundle, relative to the repository root. */
export const COMMAND_ENTRY = 'bin/auth-core/dist/auth-core.js';

export default function buildCommand(): void {
  execFileSync('npm', ['run', 'build', '--silent', '--workspace', 'bin/auth-core'], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
  });
}
