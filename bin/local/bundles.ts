/**
 * Where the local runtime loads each handler module from: the TypeScript sources (the manifest's
 * `handler` path), or — with `HANDLER_BUNDLES=<cdk.out directory>` — the esbuild bundle the CDK
 * app built for that manifest entry, i.e. the very file Lambda would run. Each function in the
 * synthesized templates names its manifest entry (`<id>: …` description) and its code asset
 * (`aws:asset:path` metadata); nested stacks' templates are read too.
 *
 *   npm run synth                             # writes cdk.out (real esbuild bundling, no Docker)
 *   HANDLER_BUNDLES=cdk.out npm start         # the same core, running the bundles
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

/** The environment variable naming a cdk.out directory whose bundles the runtime runs. */
export const BUNDLES_ENV = 'HANDLER_BUNDLES';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

/** A manifest entry (route or worker): its id and its source module. */
export interface HandlerEntry {
  readonly id: string;
  readonly handler: string;
}

type FunctionResource = {
  Type?: string;
  Properties?: { Description?: unknown; Handler?: unknown };
  Metadata?: Record<string, unknown>;
};

/**
 * Manifest id → absolute path of its bundle's entry file, for every function of every template
 * in `cdkOut`. Throws when the directory holds no templates, or a function has no bundled asset.
 */
export function readBundleMap(cdkOut: string): Map<string, string> {
  const dir = isAbsolute(cdkOut) ? cdkOut : resolve(REPO_ROOT, cdkOut);
  const templates = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.template.json')) : [];
  if (templates.length === 0) {
    throw new Error(`${BUNDLES_ENV}: ${dir} holds no synthesized templates (run \`npm run synth\` first)`);
  }
  const bundles = new Map<string, string>();
  for (const file of templates) {
    const template = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
      Resources?: Record<string, FunctionResource>;
    };
    for (const resource of Object.values(template.Resources ?? {})) {
      if (resource.Type !== 'AWS::Lambda::Function') continue;
      const id = String(resource.Properties?.Description ?? '').split(':')[0] ?? '';
      const asset = resource.Metadata?.['aws:asset:path'];
      if (typeof asset !== 'string' || resource.Metadata?.['aws:asset:is-bundled'] !== true) {
        throw new Error(
          `${BUNDLES_ENV}: the function of ${id || file} in ${dir} has no bundled asset (was bundling skipped?)`,
        );
      }
      // Handler `index.handler` → the module `index.mjs` (ESM bundles).
      const module = `${String(resource.Properties?.Handler ?? 'index.handler').split('.')[0]}.mjs`;
      bundles.set(id, join(dir, asset, module));
    }
  }
  return bundles;
}

let cached: { readonly dir: string; readonly map: Map<string, string> } | undefined;

/**
 * The module file to import for `entry`: its bundle when `HANDLER_BUNDLES` is set (an entry
 * without one is an error, never a silent fallback to the sources), else its source file.
 */
export function handlerModulePath(entry: HandlerEntry, env: NodeJS.ProcessEnv = process.env): string {
  const dir = env[BUNDLES_ENV]?.trim();
  if (!dir) return resolve(REPO_ROOT, entry.handler);
  if (cached?.dir !== dir) cached = { dir, map: readBundleMap(dir) };
  const bundle = cached.map.get(entry.id);
  if (bundle === undefined || !existsSync(bundle)) {
    throw new Error(`${BUNDLES_ENV}: no bundle for ${entry.id} in ${dir} (synthesize the current manifests again)`);
  }
  return bundle;
}

/**
 * Checks up front that every entry has its bundle (when `HANDLER_BUNDLES` is set); returns the
 * banner line saying where handlers come from.
 */
export function describeHandlerSource(entries: readonly HandlerEntry[], env: NodeJS.ProcessEnv = process.env): string {
  const dir = env[BUNDLES_ENV]?.trim();
  if (!dir) return 'TypeScript sources';
  for (const entry of entries) handlerModulePath(entry, env);
  return `${entries.length} bundles from ${isAbsolute(dir) ? dir : resolve(REPO_ROOT, dir)} (${BUNDLES_ENV})`;
}

/**
 * `cdk synth` of the real app into `outDir`, bundling every function with esbuild exactly as a
 * deployment does (offline, no Docker). Used by the bundle tests and the bench.
 */
export function synthesizeBundles(outDir: string): void {
  const result = spawnSync('npx', ['cdk', 'synth', '--quiet', '--output', outDir], {
    cwd: REPO_ROOT,
    env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1' },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    throw new Error(`cdk synth failed (exit ${result.status}):\n${result.stderr.slice(-4000)}`);
  }
}
