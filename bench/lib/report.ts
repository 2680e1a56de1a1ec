/** Machine info and the results files (bench/results/latest.json and latest.md). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { round, type Summary } from './stats.js';

export function machineInfo() {
  const cpu = cpus();
  return {
    cpuModel: cpu[0]?.model ?? 'unknown',
    cores: cpu.length,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    totalMemoryMb: Math.round(totalmem() / 2 ** 20),
    loadAverageAtStart: loadavg().map((l) => round(l)),
  };
}

export interface Row {
  readonly measurement: string;
  readonly metric: string;
  readonly unit: string;
  readonly summary: Summary;
  readonly target?: string;
}

/** One row per `[metric, unit, key, target?]`: the summary `measure` returned under `key`. */
export function summaryRows(
  measurement: string,
  runs: Readonly<Record<string, Summary>>,
  specs: ReadonlyArray<readonly [metric: string, unit: string, key: string, target?: string]>,
): Row[] {
  return specs.map(([metric, unit, key, target]) => ({
    measurement,
    metric,
    unit,
    summary: runs[key] as Summary,
    ...(target !== undefined ? { target } : {}),
  }));
}

export function markdown(meta: Record<string, unknown>, rows: readonly Row[], notes: readonly string[]): string {
  const head = [
    `# Benchmark results (${meta.mode} mode, ${meta.date})`,
    '',
    `Machine: ${JSON.stringify(meta.machine)}`,
    '',
    'Each figure: median of the measured runs, with min and max (warm-up runs discarded).',
    '',
    '| Measurement | Metric | Median | Min | Max | Runs | Target |',
    '| --- | --- | ---: | ---: | ---: | ---: | --- |',
  ];
  const lines = rows.map(
    (r) =>
      `| ${r.measurement} | ${r.metric} (${r.unit}) | ${round(r.summary.median)} | ${round(r.summary.min)} | ` +
      `${round(r.summary.max)} | ${r.summary.samples.length} | ${r.target ?? ''} |`,
  );
  return [...head, ...lines, '', ...notes.map((n) => `- ${n}`), ''].join('\n');
}

export function writeResults(json: unknown, md: string): { json: string; md: string } {
  const dir = resolve(import.meta.dirname, '..', 'results');
  mkdirSync(dir, { recursive: true });
  const paths = { json: resolve(dir, 'latest.json'), md: resolve(dir, 'latest.md') };
  writeFileSync(paths.json, `${JSON.stringify(json, null, 2)}\n`);
  writeFileSync(paths.md, md);
  return paths;
}
