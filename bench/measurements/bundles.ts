/**
 * Measurement 8: what each function costs a cold start before its first line runs — the size of
 * its bundle and the time to import it — beside a reference bundle that holds only the DynamoDB
 * document client, in the same run.
 *
 * The bundles are the real ones: `cdk synth` of the app (bin/local/bundles.ts), esbuild exactly as
 * a deployment runs it. The reference (bench/fixtures/reference-handler.ts) is built by the same
 * ServiceFunction construct in a throw-away stack, so both get the same bundling options.
 *
 * Import time: a fresh `node` process per sample imports the bundle, with the environment a
 * function has on Lambda (dummy values), and reports the CPU time (user + system) and the wall
 * time of the `import()` alone (process start-up excluded). CPU time is the figure: on a shared
 * machine wall time mostly measures who else is running, while a Lambda instance has its vCPU
 * share to itself. Every bundle sample is paired with a reference sample taken just before it,
 * and the ratio is taken per pair, so drift hits both sides of each ratio.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { ENV } from '#functions/shared/env.js';
import { readBundleMap, synthesizeBundles } from '../../bin/local/bundles.js';
import { ServiceFunction } from '../../lib/constructs/service-function.js';
import type { Row } from '../lib/report.js';
import { measure, type RunPlan, round, type Summary, summarise } from '../lib/stats.js';

/** Targets of the bundle work: every bundle at most 400 KB, importing in at most 1.5 × the reference's time. */
const BUNDLE_TARGETS = { maxKb: 400, maxImportRatio: 1.5 } as const;

const REFERENCE_ID = 'reference';

/** Builds the reference bundle with the functions' own construct; returns its entry file. */
function referenceBundle(outdir: string): string {
  // Asset metadata (what `cdk synth` turns on) names each function's bundle in the template.
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  const stack = new Stack(app, 'Reference');
  new ServiceFunction(stack, 'Reference', {
    entry: 'bench/fixtures/reference-handler.ts',
    description: `${REFERENCE_ID}: DynamoDB document client only`,
    logRemovalPolicy: RemovalPolicy.DESTROY,
  });
  app.synth();
  const bundle = readBundleMap(outdir).get(REFERENCE_ID);
  if (!bundle) throw new Error('the reference bundle was not built');
  return bundle;
}

/** What a function's module scope may read (names from functions/shared/env.ts), with dummy values. */
const LAMBDA_LIKE_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  AWS_SESSION_TOKEN: 'bench',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  [ENV.tableName]: 'bench',
  [ENV.importQueueUrl]: 'https://sqs.us-east-1.amazonaws.com/000000000000/bench',
  [ENV.importDlqUrl]: 'https://sqs.us-east-1.amazonaws.com/000000000000/bench-dlq',
  [ENV.logLevel]: 'error',
};

const IMPORT_SCRIPT = [
  'const cpu = process.cpuUsage(); const t = performance.now();',
  'await import(process.argv[1]);',
  'const used = process.cpuUsage(cpu);',
  'process.stdout.write(JSON.stringify({ cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - t }));',
].join(' ');

/** CPU and wall milliseconds a fresh Node process spends importing `file`. */
function importMs(file: string): { cpuMs: number; wallMs: number } {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', IMPORT_SCRIPT, file], {
    env: LAMBDA_LIKE_ENV,
    encoding: 'utf8',
  });
  let measured: { cpuMs: number; wallMs: number } | undefined;
  try {
    measured = JSON.parse(result.stdout);
  } catch {
    measured = undefined;
  }
  if (result.status !== 0 || !Number.isFinite(measured?.cpuMs) || !Number.isFinite(measured?.wallMs)) {
    throw new Error(`importing ${file} failed (exit ${result.status}): ${result.stderr.slice(-2000)}`);
  }
  return measured as { cpuMs: number; wallMs: number };
}

export interface BundleResults {
  readonly targets: typeof BUNDLE_TARGETS;
  /** Import CPU ms (the figure) and wall ms, over every reference sample of the run. */
  readonly reference: { readonly kb: number; readonly importMs: Summary; readonly importWallMs: Summary };
  readonly bundles: {
    readonly id: string;
    readonly kb: number;
    readonly importMs: Summary;
    readonly importWallMs: Summary;
    /** Import CPU ms over the paired reference sample's. */
    readonly ratio: Summary;
    readonly meetsTargets: boolean;
  }[];
}

export async function measureBundles(
  plan: RunPlan,
  log: (line: string) => void,
): Promise<{ results: BundleResults; rows: Row[] }> {
  const work = mkdtempSync(join(tmpdir(), 'auth-core-bundles-'));
  try {
    log('  cdk synth (esbuild bundling of every function) …');
    const cdkOut = join(work, 'cdk.out');
    synthesizeBundles(cdkOut);
    const bundles = [...readBundleMap(cdkOut)].sort(([a], [b]) => a.localeCompare(b));
    const reference = referenceBundle(join(work, 'reference.out'));
    const kb = (file: string) => statSync(file).size / 1024;
    log(`  ${bundles.length} bundles; reference ${round(kb(reference), 1)} KB`);

    const runs = await measure(
      'import',
      plan,
      async () => {
        const metrics: Record<string, number> = {};
        const referenceCpu: number[] = [];
        const referenceWall: number[] = [];
        for (const [id, file] of bundles) {
          const before = importMs(reference);
          const ms = importMs(file);
          referenceCpu.push(before.cpuMs);
          referenceWall.push(before.wallMs);
          metrics[id] = ms.cpuMs;
          metrics[`${id}/wall`] = ms.wallMs;
          metrics[`${id}/ratio`] = ms.cpuMs / before.cpuMs;
        }
        metrics[REFERENCE_ID] = summarise(referenceCpu).median;
        metrics[`${REFERENCE_ID}/wall`] = summarise(referenceWall).median;
        return metrics;
      },
      () => undefined,
    );
    const summary = (key: string) => runs[key] as Summary;
    const results: BundleResults = {
      targets: BUNDLE_TARGETS,
      reference: {
        kb: kb(reference),
        importMs: summary(REFERENCE_ID),
        importWallMs: summary(`${REFERENCE_ID}/wall`),
      },
      bundles: bundles.map(([id, file]) => {
        const ratio = summary(`${id}/ratio`);
        return {
          id,
          kb: kb(file),
          importMs: summary(id),
          importWallMs: summary(`${id}/wall`),
          ratio,
          meetsTargets: kb(file) <= BUNDLE_TARGETS.maxKb && ratio.median <= BUNDLE_TARGETS.maxImportRatio,
        };
      }),
    };
    const constant = (value: number): Summary => ({ median: value, min: value, max: value, samples: [value] });
    const rows: Row[] = [
      {
        measurement: '8. Bundle, reference (document client only)',
        metric: 'size',
        unit: 'KB',
        summary: constant(results.reference.kb),
      },
      {
        measurement: '8. Bundle, reference (document client only)',
        metric: 'import',
        unit: 'ms',
        summary: results.reference.importMs,
      },
      ...results.bundles.flatMap((b): Row[] => [
        {
          measurement: `8. Bundle ${b.id}`,
          metric: 'size',
          unit: 'KB',
          summary: constant(b.kb),
          target: `≤ ${BUNDLE_TARGETS.maxKb}`,
        },
        {
          measurement: `8. Bundle ${b.id}`,
          metric: 'import / reference',
          unit: '×',
          summary: b.ratio,
          target: `≤ ${BUNDLE_TARGETS.maxImportRatio}`,
        },
      ]),
    ];
    const met = results.bundles.filter((b) => b.meetsTargets).length;
    log(
      `  ${met} of ${results.bundles.length} bundles meet both targets; reference import ${round(results.reference.importMs.median, 1)} ms CPU (${round(results.reference.importWallMs.median, 1)} ms wall)`,
    );
    for (const b of results.bundles.filter((x) => !x.meetsTargets)) {
      log(`  over target: ${b.id} ${round(b.kb, 1)} KB, ${round(b.ratio.median, 2)} × the reference`);
    }
    return { results, rows };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The report's note on measurement 8. */
export function bundleNotes(results: BundleResults | undefined): string[] {
  if (!results) return ['8. Bundles: not measured in this run (see --only).'];
  const sorted = [...results.bundles].sort((a, b) => b.kb - a.kb);
  return [
    `8. Bundles: the esbuild bundles of \`cdk synth\` (index.mjs, minified, source maps apart) and a reference bundle holding only the DynamoDB document client built by the same ServiceFunction; import = CPU milliseconds (user + system) of \`import()\` in a fresh Node ${process.versions.node} process per sample (wall time beside it), each bundle sample paired with a reference sample taken just before it; ratio per pair. Targets: ≤ ${results.targets.maxKb} KB and ≤ ${results.targets.maxImportRatio} × the reference.`,
    `   reference: ${round(results.reference.kb, 1)} KB, ${round(results.reference.importMs.median, 1)} ms; largest: ${sorted
      .slice(0, 5)
      .map((b) => `${b.id} ${round(b.kb, 1)} KB ${round(b.ratio.median, 2)}×`)
      .join(
        ', ',
      )}; ${results.bundles.filter((b) => b.meetsTargets).length} of ${results.bundles.length} meet both targets.`,
  ];
}
