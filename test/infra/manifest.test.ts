/**
 * Guards on the route manifest that CloudFormation or API Gateway would only reject at deploy time
 * (or that would silently shadow a route).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ROUTE_PATH, gatewayPaths, ROUTES } from '#functions/routes.js';
import { WORKERS } from '#functions/workers.js';
import { REPO_ROOT } from '../../lib/constants.js';

function duplicates(values: readonly string[]): string[] {
  return values.filter((value, i) => values.indexOf(value) !== i);
}

const EXPORTS_HANDLER = /export\s+(const|let|async\s+function|function)\s+handler\b|export\s*\{[^}]*\bhandler\b/;

const isVariable = (segment: string) => segment.startsWith('{') && segment.endsWith('}');

describe('route manifest', () => {
  it('has unique ids', () => {
    expect(duplicates(ROUTES.map((r) => r.id))).toEqual([]);
  });

  it('has unique method + path pairs', () => {
    expect(duplicates(ROUTES.map((r) => `${r.method} ${r.path}`))).toEqual([]);
  });

  it('has exactly one $default route', () => {
    expect(ROUTES.filter((r) => r.path === DEFAULT_ROUTE_PATH)).toHaveLength(1);
  });

  it('uses kebab-case ids', () => {
    expect(ROUTES.map((r) => r.id).filter((id) => !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(id))).toEqual([]);
  });

  it('points every entry at an existing handler module that exports `handler`', () => {
    const missing = ROUTES.filter((r) => !existsSync(join(REPO_ROOT, r.handler))).map((r) => r.handler);
    expect(missing).toEqual([]);
    const withoutExport = ROUTES.filter(
      (r) => !EXPORTS_HANDLER.test(readFileSync(join(REPO_ROOT, r.handler), 'utf8')),
    ).map((r) => r.handler);
    expect(withoutExport).toEqual([]);
  });

  it('uses only whole-segment path parameters', () => {
    const bad = ROUTES.filter((r) => r.path !== DEFAULT_ROUTE_PATH)
      .flatMap(gatewayPaths)
      .filter(
        (path) =>
          !path.startsWith('/') ||
          path.endsWith('/') ||
          path
            .split('/')
            .slice(1)
            .some((s) => s === '' || (/[{}]/.test(s) && !/^\{[A-Za-z0-9]+\+?\}$/.test(s))),
      );
    expect(bad).toEqual([]);
  });

  it('has at most one variable child name at each position of the path tree', () => {
    // children of each tree node ("/a/b" → the names of the variable segments that follow it)
    const variables = new Map<string, Set<string>>();
    for (const path of ROUTES.filter((r) => r.path !== DEFAULT_ROUTE_PATH).flatMap(gatewayPaths)) {
      const segments = path.split('/').slice(1);
      segments.forEach((segment, i) => {
        if (!isVariable(segment)) return;
        const parent = `/${segments.slice(0, i).join('/')}`;
        variables.set(parent, (variables.get(parent) ?? new Set()).add(segment));
      });
    }
    const conflicts = [...variables]
      .filter(([, names]) => names.size > 1)
      .map(([p, n]) => `${p}: ${[...n].join(', ')}`);
    expect(conflicts).toEqual([]);
  });

  it('keeps timeouts within the HTTP API integration limit (30 s)', () => {
    expect(ROUTES.filter((r) => (r.timeoutSeconds ?? 0) > 29).map((r) => r.id)).toEqual([]);
  });
});

describe('worker manifest', () => {
  it('has unique kebab-case ids, distinct from the route ids', () => {
    const ids = WORKERS.map((w) => w.id);
    expect(duplicates([...ids, ...ROUTES.map((r) => r.id)])).toEqual([]);
    expect(ids.filter((id) => !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(id))).toEqual([]);
  });

  it('points every entry at an existing handler module that exports `handler`', () => {
    const missing = WORKERS.filter((w) => !existsSync(join(REPO_ROOT, w.handler))).map((w) => w.handler);
    expect(missing).toEqual([]);
    const withoutExport = WORKERS.filter(
      (w) => !EXPORTS_HANDLER.test(readFileSync(join(REPO_ROOT, w.handler), 'utf8')),
    );
    expect(withoutExport.map((w) => w.handler)).toEqual([]);
  });

  it('stays within Lambda limits (timeout ≤ 900 s, memory 128–10,240 MB) and whole-minute schedules', () => {
    for (const worker of WORKERS) {
      expect(worker.timeoutSeconds, worker.id).toBeGreaterThan(0);
      expect(worker.timeoutSeconds, worker.id).toBeLessThanOrEqual(900);
      expect(worker.memoryMb, worker.id).toBeGreaterThanOrEqual(128);
      expect(worker.memoryMb, worker.id).toBeLessThanOrEqual(10_240);
      if (worker.source.kind === 'schedule') {
        expect(Number.isInteger(worker.source.everyMinutes) && worker.source.everyMinutes >= 1, worker.id).toBe(true);
      }
    }
  });
});
