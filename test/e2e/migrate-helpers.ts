/** Running `auth-core` (bin/auth-core.js, what `npx auth-core` runs) as a child process in e2e tests. */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { LocalProcess } from '../helpers/local-process.js';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

export interface CommandResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function runCommand(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
  options: { command?: string; argsBefore?: readonly string[] } = {},
): Promise<CommandResult> {
  const fullEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined) fullEnv[k] = v;
  const child = spawn(options.command ?? process.execPath, [...(options.argsBefore ?? ['bin/auth-core.js']), ...args], {
    cwd: REPO_ROOT,
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
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, json, text };
  };
}
