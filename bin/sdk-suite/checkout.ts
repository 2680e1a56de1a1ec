/**
 * A local checkout of supertokens-node, as the SDK-suite runner uses it (docs/sdk-compatibility.md):
 * its version, its test files, and its development dependencies installed when they are missing.
 * No test file is changed, and the checkout's package.json and package-lock.json are left as they
 * were (the install runs against a copy of package.json without `mocha-split-tests`, a package
 * that installs from GitHub and that one mocha process per file does not need).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { withoutPackages } from './report.js';

/** Installs from GitHub, and only splits the SDK's tests across CI machines. */
const NOT_INSTALLED = ['mocha-split-tests'];
/** What a run needs from the checkout's node_modules. */
const NEEDED = ['node_modules/.bin/mocha', 'node_modules/supertest', 'node_modules/express'];

/** The checkout's package name and version; throws when it is not supertokens-node. */
export function sdkVersion(sdkDir: string): string {
  const manifestPath = join(sdkDir, 'package.json');
  if (!existsSync(manifestPath)) throw new Error(`${sdkDir} has no package.json: not a supertokens-node checkout`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { name?: string; version?: string };
  if (manifest.name !== 'supertokens-node') {
    throw new Error(`${sdkDir} holds ${manifest.name ?? 'an unnamed package'}, not supertokens-node`);
  }
  if (!existsSync(join(sdkDir, 'test', 'utils.js'))) throw new Error(`${sdkDir} has no test/utils.js`);
  return manifest.version ?? 'unknown';
}

/** Every file under the checkout's `test/` (relative, `/`-separated), `node_modules` folders skipped. */
export function listTestTree(sdkDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) out.push(relative(sdkDir, path).split(sep).join('/'));
    }
  };
  walk(join(sdkDir, 'test'));
  return out;
}

/** Whether the checkout still lacks what the tests need. */
export const needsInstall = (sdkDir: string) => NEEDED.some((path) => !existsSync(join(sdkDir, path)));

function run(command: string, args: readonly string[], cwd: string): Promise<void> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0 ? resolveRun() : reject(new Error(`${command} ${args.join(' ')} ended with ${signal ?? code}`)),
    );
  });
}

/**
 * `npm install` in the checkout with `mocha-split-tests` left out; package.json and
 * package-lock.json are put back byte for byte afterwards, whatever happened.
 */
export async function installDevDependencies(sdkDir: string, log: (line: string) => void): Promise<void> {
  const manifestPath = join(sdkDir, 'package.json');
  const lockPath = join(sdkDir, 'package-lock.json');
  const manifest = readFileSync(manifestPath);
  const lock = existsSync(lockPath) ? readFileSync(lockPath) : undefined;
  log(`installing the SDK's development dependencies in ${sdkDir} (without ${NOT_INSTALLED.join(', ')})`);
  try {
    writeFileSync(manifestPath, withoutPackages(manifest.toString('utf8'), NOT_INSTALLED));
    await run('npm', ['install', '--no-audit', '--no-fund'], sdkDir);
  } finally {
    writeFileSync(manifestPath, manifest);
    if (lock) writeFileSync(lockPath, lock);
    else rmSync(lockPath, { force: true });
  }
}
