/** Running `auth-core` (its bundle, what `npx auth-core` runs: test/helpers/command.ts) as a child process in e2e tests. */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import supertokens from 'supertokens-node';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import Session from 'supertokens-node/recipe/session';
import { expect } from 'vitest';
import { COMMAND_ENTRY, REPO_ROOT } from '../helpers/command.js';
import { jsonOr } from '../helpers/json.js';
import { LocalProcess, removeDir } from '../helpers/local-process.js';

export { REPO_ROOT };

export interface CommandResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function runCommand(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
  options: { command?: string; argsBefore?: readonly string[]; cwd?: string } = {},
): Promise<CommandResult> {
  const fullEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined) fullEnv[k] = v;
  const child = spawn(options.command ?? process.execPath, [...(options.argsBefore ?? [COMMAND_ENTRY]), ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: fullEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}

export function readNdjson(text: string): any[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

export interface CoreAnswer {
  readonly status: number;
  readonly json: any;
  readonly text: string;
}

/** Plain HTTP calls to a runtime with an API key (JSON in, text and parsed JSON out). */
export function coreCaller(runtime: () => LocalProcess, apiKey: string) {
  return async (method: string, path: string, body?: unknown): Promise<CoreAnswer> => {
    const response = await runtime().fetch(path, {
      method,
      headers: { 'api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, json: jsonOr(text), text };
  };
}

/** `npm start`'s runtime in memory, ready, and a scratch directory for the command's files. */
export async function startRuntime(
  env: Readonly<Record<string, string>>,
  dirPrefix: string,
): Promise<{ runtime: LocalProcess; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), dirPrefix));
  let runtime: LocalProcess | undefined;
  try {
    runtime = await LocalProcess.start({ args: ['--in-memory'], env });
    await runtime.waitUntilReady();
    return { runtime, dir };
  } catch (error) {
    await stopRuntime(runtime, dir);
    throw error;
  }
}

/** Stops what `startRuntime` started and removes its data and scratch directories. */
export async function stopRuntime(runtime: LocalProcess | undefined, dir: string | undefined): Promise<void> {
  if (runtime) {
    await runtime.dispose();
    removeDir(runtime.dataDir);
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
}

/** Creates an app through the app-management route; fails unless the core answers 200. */
export async function createApp(
  core: ReturnType<typeof coreCaller>,
  appId: string,
  coreConfig: Record<string, unknown> = {},
): Promise<void> {
  const reply = await core('PUT', '/recipe/multitenancy/app/v2', { appId, coreConfig });
  expect(reply.status, reply.text).toBe(200);
}

/** Points supertokens-node (email-password and sessions) at one app of the runtime. */
export function initSdk(appName: string, runtime: LocalProcess, appId: string, apiKey: string): void {
  supertokens.init({
    appInfo: { appName, apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
    supertokens: { connectionURI: `${runtime.url}/appid-${appId}`, apiKey },
    telemetry: false,
    recipeList: [EmailPassword.init(), Session.init()],
  });
}

/** Nothing secret in what the command printed or wrote, and no hash of the forms `hashForms` matches. */
export function expectNoCredential(
  result: CommandResult,
  files: readonly string[],
  secrets: readonly string[],
  hashForms: RegExp,
): void {
  const outputs = [result.stdout, result.stderr, ...files.filter(existsSync).map((f) => readFileSync(f, 'utf8'))];
  for (const secret of secrets) {
    for (const text of outputs)
      expect(text.includes(secret), `a credential leaked: ${secret.slice(0, 6)}…`).toBe(false);
  }
  expect(outputs.join('\n')).not.toMatch(hashForms);
}
