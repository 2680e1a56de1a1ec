/**
 * HANDLER_BUNDLES: the local runtime maps each manifest entry to its bundle in a cdk.out directory,
 * and refuses to fall back to the sources when one is missing.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUNDLES_ENV, describeHandlerSource, handlerModulePath, readBundleMap } from '../../bin/local/bundles.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function cdkOut(functions: Record<string, { asset?: string; bundled?: boolean }>): string {
  const dir = mkdtempSync(join(tmpdir(), 'bundle-map-'));
  dirs.push(dir);
  const resources = Object.fromEntries(
    Object.entries(functions).map(([id, f], i) => [
      `Fn${i}`,
      {
        Type: 'AWS::Lambda::Function',
        Properties: { Description: `${id}: something`, Handler: 'index.handler' },
        Metadata: f.asset ? { 'aws:asset:path': f.asset, 'aws:asset:is-bundled': f.bundled ?? true } : {},
      },
    ]),
  );
  writeFileSync(
    join(dir, 'Stack.template.json'),
    JSON.stringify({ Resources: { ...resources, Other: { Type: 'AWS::SQS::Queue' } } }),
  );
  for (const f of Object.values(functions)) {
    if (!f.asset) continue;
    mkdirSync(join(dir, f.asset));
    writeFileSync(join(dir, f.asset, 'index.mjs'), 'export const handler = async () => 1;');
  }
  return dir;
}

describe('bundle map', () => {
  it("maps each function's manifest id to its asset's index.mjs", () => {
    const dir = cdkOut({ hello: { asset: 'asset.a' }, 'import-worker': { asset: 'asset.b' } });
    expect(readBundleMap(dir)).toEqual(
      new Map([
        ['hello', join(dir, 'asset.a', 'index.mjs')],
        ['import-worker', join(dir, 'asset.b', 'index.mjs')],
      ]),
    );
  });

  it('refuses a directory without templates and a function whose bundling was skipped', () => {
    const empty = mkdtempSync(join(tmpdir(), 'bundle-map-'));
    dirs.push(empty);
    expect(() => readBundleMap(empty)).toThrow(/holds no synthesized templates \(run `npm run synth` first\)/);
    expect(() => readBundleMap(cdkOut({ hello: { asset: 'asset.a', bundled: false } }))).toThrow(
      /the function of hello .* has no bundled asset/,
    );
  });

  it('loads sources without HANDLER_BUNDLES, and with it only bundles (never a silent fallback)', () => {
    const entry = { id: 'hello', handler: 'functions/http/hello/handler.ts' };
    expect(handlerModulePath(entry, {})).toBe(resolve(import.meta.dirname, '..', '..', entry.handler));
    expect(describeHandlerSource([entry], {})).toBe('TypeScript sources');
    const dir = cdkOut({ hello: { asset: 'asset.a' } });
    expect(handlerModulePath(entry, { [BUNDLES_ENV]: dir })).toBe(join(dir, 'asset.a', 'index.mjs'));
    expect(describeHandlerSource([entry], { [BUNDLES_ENV]: dir })).toBe(`1 bundles from ${dir} (${BUNDLES_ENV})`);
    expect(() => handlerModulePath({ id: 'signin', handler: 'x.ts' }, { [BUNDLES_ENV]: dir })).toThrow(
      `${BUNDLES_ENV}: no bundle for signin in ${dir}`,
    );
  });
});
