/**
 * One Node.js for Lambda, stated once (lib/constants.ts LAMBDA_NODE_MAJOR): every function of the
 * stage runs on it, the bundles are built for it, the local runtime's `engines` range accepts it,
 * and every handler is what its runtime requires — an async function of (event, context), since
 * Node.js 24's Lambda runtime no longer accepts callback handlers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '#functions/routes.js';
import { WORKERS } from '#functions/workers.js';
import { LAMBDA_NODE_MAJOR, REPO_ROOT } from '../../lib/constants.js';
import { BUNDLE_TARGET, LAMBDA_RUNTIME } from '../../lib/constructs/service-function.js';
import { resources, type Synthesized, synth } from './synth.js';

const packageJson = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
};
const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

/** `>=<major>.<minor>`, the only form of `engines.node` this project uses. */
function engineMinimum(range: string): [number, number] {
  const match = /^>=(\d+)\.(\d+)$/.exec(range);
  if (!match) throw new Error(`engines.node should be ">=<major>.<minor>", not ${JSON.stringify(range)}`);
  return [Number(match[1]), Number(match[2])];
}

const atLeast = (version: readonly number[], minimum: readonly number[]) =>
  (version[0] as number) > (minimum[0] as number) ||
  (version[0] === minimum[0] && (version[1] as number) >= (minimum[1] as number));

describe('the Lambda runtime', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synth();
  });

  it('is one Node.js major, for the runtime and the bundler target alike', () => {
    expect(LAMBDA_RUNTIME.name).toBe(`nodejs${LAMBDA_NODE_MAJOR}.x`);
    expect(BUNDLE_TARGET).toBe(`node${LAMBDA_NODE_MAJOR}`);
    expect(LAMBDA_NODE_MAJOR).toBe(24);
  });

  it('runs every function of every stack on it', () => {
    const templates = [s.dataTemplate, s.apiTemplate, s.workersTemplate, ...s.groupTemplates];
    const runtimes = templates.flatMap((t) =>
      Object.values(resources(t))
        .filter((r) => r.Type === 'AWS::Lambda::Function')
        .map((r) => r.Properties?.Runtime),
    );
    expect(runtimes.length).toBeGreaterThanOrEqual(ROUTES.length + WORKERS.length);
    expect(new Set(runtimes)).toEqual(new Set([`nodejs${LAMBDA_NODE_MAJOR}.x`]));
  });
});

describe('the local Node.js', () => {
  const minimum = engineMinimum(packageJson.engines.node);

  it('accepts the Lambda runtime’s Node.js, so what runs locally runs there', () => {
    expect(atLeast([LAMBDA_NODE_MAJOR, 0], minimum)).toBe(true);
  });

  it('is the one these tests run on (a Node.js below the engines range fails here)', () => {
    const running = process.versions.node.split('.').map(Number);
    expect(atLeast(running, minimum), `Node.js ${process.versions.node} is below ${packageJson.engines.node}`).toBe(
      true,
    );
  });

  it('is stated in the README as the engines field says, with the Lambda runtime', () => {
    expect(readme).toContain(`Needs Node.js ${minimum[0]}.${minimum[1]} or later`);
    expect(readme).toContain(`\`nodejs${LAMBDA_NODE_MAJOR}.x\``);
    expect(readme).not.toMatch(/nodejs2[0-3]\.x|Node\.js 22 \/|the Node\.js 22\b/);
  });
});

describe('every handler', () => {
  const modules = [...ROUTES, ...WORKERS].map((entry) => entry.handler);

  it.each(modules)('%s exports an async handler of (event, context)', async (path) => {
    const module = (await import(join(REPO_ROOT, path))) as { handler: unknown };
    const handler = module.handler as (...args: unknown[]) => unknown;
    expect(typeof handler).toBe('function');
    expect(handler.constructor.name).toBe('AsyncFunction');
    // A third parameter would be Lambda's callback, which Node.js 24's runtime refuses.
    expect(handler.length).toBeLessThanOrEqual(2);
  });
});
