/**
 * The local runtime's HTTP server (bin/local/http-server.ts) ends a function at its timeout as
 * Lambda does, and answers then as an HTTP API answers a failed invocation: 500
 * `{"message":"Internal Server Error"}`; it refuses cross-site requests before any function runs.
 */

import { afterEach, expect, it } from 'vitest';
import type { RouteDefinition } from '#functions/routes.js';
import { createRouter, useHandler } from '../../bin/local/dispatch.js';
import { createLocalHttpServer, type LocalHttpServer } from '../../bin/local/http-server.js';

const servers: LocalHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close(100)));
});

const route = (id: string, timeoutSeconds: number): RouteDefinition => ({
  id,
  method: 'GET',
  path: `/${id}`,
  handler: `functions/http/${id}/handler.ts`,
  access: {},
  timeoutSeconds,
});

async function serve(routes: RouteDefinition[], reports: string[]): Promise<string> {
  const server = createLocalHttpServer({ report: (m) => reports.push(m) });
  servers.push(server);
  const address = await server.listen(0, '127.0.0.1');
  server.ready(createRouter(routes));
  return `http://127.0.0.1:${address.port}`;
}

it('answers 500 as API Gateway does when the function runs past its timeout, and says why', async () => {
  let calls = 0;
  useHandler('test-hangs', async () => {
    calls++;
    return new Promise(() => undefined);
  });
  useHandler('test-answers', async () => ({ statusCode: 200, body: 'fine' }));
  const reports: string[] = [];
  const url = await serve([route('test-hangs', 1), route('test-answers', 1)], reports);

  const hung = await fetch(`${url}/test-hangs`);
  expect(hung.status).toBe(500);
  expect(await hung.text()).toBe('{"message":"Internal Server Error"}');
  expect(calls).toBe(1);
  expect(reports).toEqual(["GET /test-hangs: Task timed out after 1.00 seconds (the function's timeout) → 500"]);

  const fine = await fetch(`${url}/test-answers`);
  expect(fine.status).toBe(200);
  expect(await fine.text()).toBe('fine');
});

it('refuses a foreign Origin before the function runs', async () => {
  let calls = 0;
  useHandler('test-counted', async () => {
    calls++;
    return { statusCode: 200, body: 'ran' };
  });
  const url = await serve([route('test-counted', 1)], []);
  const refused = await fetch(`${url}/test-counted`, { headers: { origin: 'https://attacker.example' } });
  expect(refused.status).toBe(403);
  expect(refused.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  expect(calls).toBe(0);
  expect((await fetch(`${url}/test-counted`)).status).toBe(200);
  expect(calls).toBe(1);
});
