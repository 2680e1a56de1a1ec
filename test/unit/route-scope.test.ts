/**
 * The manifest's `scope` (functions/routes.ts) decides which prefix forms are gateway routes; the
 * handler's `scope` decides what the route refuses. They must agree: an app-specific API declared
 * 'tenant' in the manifest only costs a route key, but a tenant API declared 'app' there would
 * lose its `/appid-<app>/<tenant>` form to the fallback.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ROUTE_PATH, ROUTES } from '#functions/routes.js';
import { REPO_ROOT } from '../../lib/constants.js';

interface DeclaredHandler {
  readonly route?: { readonly id: string; readonly scope: 'app' | 'tenant' };
}

describe('route scope', () => {
  it("matches each handler's declared scope and id", async () => {
    const mismatches: string[] = [];
    for (const entry of ROUTES.filter((r) => r.path !== DEFAULT_ROUTE_PATH)) {
      const { handler } = (await import(join(REPO_ROOT, entry.handler))) as { handler: DeclaredHandler };
      const declared = handler.route;
      const manifest = entry.scope ?? 'tenant';
      if (declared?.id !== entry.id || declared.scope !== manifest) {
        mismatches.push(`${entry.id}: manifest ${manifest}, handler ${declared?.id} ${declared?.scope}`);
      }
    }
    expect(mismatches).toEqual([]);
  }, 120_000); // imports every handler module

  it('has app-specific APIs in the manifest (the check above compares something)', () => {
    expect(ROUTES.filter((r) => r.scope === 'app').length).toBeGreaterThan(0);
    expect(
      ROUTES.filter((r) => r.path !== DEFAULT_ROUTE_PATH && (r.scope ?? 'tenant') === 'tenant').length,
    ).toBeGreaterThan(0);
  });
});
