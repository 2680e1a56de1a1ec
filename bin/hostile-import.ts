/**
 * Sends what a hostile or careless importer might to a running core and prints each answer while
 * `/hello` is polled; exits 0 only if every answer is a 4xx and `/hello` always answered 200.
 * `npx tsx bin/hostile-import.ts [url]` (default $AUTH_CORE_URL or http://localhost:3567;
 * $AUTH_CORE_API_KEY: the core's base API key, if any). Creates an app and removes it.
 */
import { gzipSync } from 'node:zlib';

const url = process.argv[2] ?? process.env.AUTH_CORE_URL ?? 'http://localhost:3567';
const [app, key] = [`hostile-${Date.now().toString(36)}`, 'hostile-import-api-key-0123456789'];
const post = (path: string, body: string | Buffer, apiKey = key, encoding = 'identity', method = 'POST') =>
  fetch(`${url}${path}`, { method, body, headers: { 'api-key': apiKey, 'content-encoding': encoding } });
const ep = (hash: string, alg: string) =>
  `{"loginMethods":[{"recipeId":"emailpassword","email":"h@x.io","passwordHash":"${hash}","hashingAlgorithm":"${alg}"}]}`;
const pl = '[{"recipeId":"passwordless","email":"p@x.io"}]';
const salt = 'BwcHBwcHBwcHBwcHBwcHBw';
const [imp, users] = [`/appid-${app}/bulk-import/import`, `/appid-${app}/bulk-import/users`];
// 25 gzip members of 16 MiB of spaces: 400 MiB once inflated, about 400 KB as sent.
const bomb = Buffer.concat(Array(25).fill(gzipSync(Buffer.alloc(16 << 20, ' '), { level: 9 })));
const hostile: [string, string, string | Buffer, string?, string?][] = [
  ['bcrypt cost 20', imp, ep(`$2a$20$${'a'.repeat(53)}`, 'BCRYPT')],
  ['argon2 t=1000', imp, ep(`$argon2id$v=19$m=65536,t=1000,p=1$${salt}$${salt}${salt}`, 'ARGON2')],
  ['gzip bomb, no key', users, bomb, '', 'gzip'],
  ['gzip bomb, with the key', users, bomb, key, 'gzip'],
  [
    'TOTP period 1e308',
    users,
    `{"users":[{"totpDevices":[{"secretKey":"JBSWY3DPEHPK3PXP","period":1e308}],"loginMethods":${pl}}]}`,
  ],
  ['5,000-deep metadata', imp, `{"userMetadata":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)},"loginMethods":${pl}}`],
  ['10,000-character app id', `/appid-${'a'.repeat(10_000)}/bulk-import/import`, ep('x', 'BCRYPT')],
];

const base = process.env.AUTH_CORE_API_KEY ?? '';
const appBody = JSON.stringify({ appId: app, coreConfig: { api_keys: key, mfa_enabled: true } });
const created = await post('/recipe/multitenancy/app/v2', appBody, base, 'identity', 'PUT');
if (!created.ok) throw new Error(`could not create an app: ${created.status} ${await created.text()}`);
const hello = { sent: 0, ok: 0, slowestMs: 0, polling: true };
const poller = (async () => {
  for (; hello.polling; await new Promise((r) => setTimeout(r, 50))) {
    const started = Date.now();
    hello.sent++;
    const res = await fetch(`${url}/hello`).catch(() => undefined);
    if (res?.status === 200 && (await res.text()).trim() === 'Hello') hello.ok++;
    hello.slowestMs = Math.max(hello.slowestMs, Date.now() - started);
  }
})();
let all4xx = true;
for (const [name, path, body, apiKey, encoding] of hostile) {
  const res = await post(path, body, apiKey, encoding);
  const text = (await res.text()).trim();
  const json = text.startsWith('{') ? JSON.parse(text) : undefined;
  const message = json ? (json.errors?.[0] ?? `users[${json.users[0].index}]: ${json.users[0].errors[0]}`) : text;
  all4xx &&= res.status >= 400 && res.status < 500;
  console.log(`${res.status}  ${name.padEnd(24)} ${message}`);
}
hello.polling = false;
await poller;
await post('/recipe/multitenancy/app/remove', JSON.stringify({ appId: app }), base);
console.log(`/hello: ${hello.ok} of ${hello.sent} answered 200 meanwhile (slowest ${hello.slowestMs} ms)`);
process.exitCode = all4xx && hello.ok === hello.sent ? 0 : 1;
