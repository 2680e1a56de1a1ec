#!/usr/bin/env node
/**
 * A reference legacy endpoint for Auth Core's password-migration hook
 * (docs/password-migration-hook.md): plain Node, no dependencies. It checks the request's
 * `X-Auth-Core-Signature` (HMAC-SHA-256 over "<t>.<body>", 5-minute replay window) and answers
 * `{"status":"PASSWORD_MATCH"}` or `{"status":"PASSWORD_MISMATCH"}` from a JSON file that maps
 * emails to scrypt hashes (`scrypt$<N>$<r>$<p>$<salt, base64>$<hash, base64>`, the format
 * `hashForStore` writes). Adapt `checkPassword` to your legacy store: a database query, or — for a
 * provider that only offers a password grant — a call of its token endpoint with the email and
 * password (a token means PASSWORD_MATCH, `invalid_grant` PASSWORD_MISMATCH, anything else must
 * NOT answer 200, so the core reports the old system as unavailable rather than the password as
 * wrong).
 *
 *   HOOK_SECRET=… node bin/examples/legacy-password-endpoint.mjs --port 8788 --hashes users.json
 *   node bin/examples/legacy-password-endpoint.mjs --hash 'the password'   # a line for the file
 */
import { createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt);
const REPLAY_WINDOW_SECONDS = 300;
const MAX_BODY_BYTES = 16 * 1024;

/** A stored form of `password` for the hashes file. */
export async function hashForStore(password, { N = 16384, r = 8, p = 1 } = {}) {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, 32, { N, r, p, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${Buffer.from(hash).toString('base64')}`;
}

/** Whether `password` matches a stored form written by {@link hashForStore}. */
export async function checkPassword(stored, password) {
  const [kind, n, r, p, salt, hash] = String(stored).split('$');
  if (kind !== 'scrypt' || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 64 * 1024 * 1024,
  });
  return timingSafeEqual(expected, Buffer.from(actual));
}

/** 'ok', or why the signature is refused: 'malformed', 'stale' or 'mismatch'. */
export function checkSignature(secret, header, rawBody, nowSeconds = Math.floor(Date.now() / 1000)) {
  const match = /^t=(\d{1,15}),v1=([0-9a-f]{64})$/.exec(String(header ?? '').trim());
  if (!match) return 'malformed';
  const t = Number(match[1]);
  if (Math.abs(nowSeconds - t) > REPLAY_WINDOW_SECONDS) return 'stale';
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(match[2], 'hex')) ? 'ok' : 'mismatch';
}

function answer(response, status, body) {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

/**
 * Starts the endpoint. `hashes`: email → stored form. Resolves to `{ port, close() }`. `onRequest`
 * (optional) sees each request's verdict, never the password.
 */
export function startLegacyEndpoint({ secret, hashes, port = 0, host = '127.0.0.1', onRequest }) {
  const server = createServer((request, response) => {
    if (request.method !== 'POST') return answer(response, 405, { error: 'POST only' });
    const chunks = [];
    let size = 0;
    request.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) request.destroy();
      else chunks.push(chunk);
    });
    request.on('end', async () => {
      const raw = Buffer.concat(chunks);
      // The signature covers the exact bytes received: check it before parsing anything.
      const signature = checkSignature(secret, request.headers['x-auth-core-signature'], raw);
      if (signature !== 'ok') {
        onRequest?.({ verdict: `signature-${signature}` });
        return answer(response, 401, { error: `signature ${signature}` });
      }
      let body;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return answer(response, 400, { error: 'invalid JSON' });
      }
      const stored = typeof body.email === 'string' ? hashes[body.email] : undefined;
      const match =
        stored !== undefined && typeof body.password === 'string' && (await checkPassword(stored, body.password));
      onRequest?.({ verdict: match ? 'match' : 'mismatch', email: body.email });
      answer(response, 200, { status: match ? 'PASSWORD_MATCH' : 'PASSWORD_MISMATCH' });
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address ? address.port : port,
        close: () => new Promise((done) => server.close(() => done(undefined)).closeAllConnections()),
      });
    });
  });
}

async function main(argv) {
  const option = (name) => {
    const i = argv.indexOf(name);
    return i < 0 ? undefined : argv[i + 1];
  };
  const toHash = option('--hash');
  if (toHash !== undefined) {
    process.stdout.write(`${await hashForStore(toHash)}\n`);
    return;
  }
  const secret = process.env.HOOK_SECRET;
  const file = option('--hashes');
  if (!secret || !file) {
    process.stderr.write('usage: HOOK_SECRET=… legacy-password-endpoint.mjs --hashes <file.json> [--port <n>]\n');
    process.exitCode = 2;
    return;
  }
  const hashes = JSON.parse(readFileSync(file, 'utf8'));
  const { port } = await startLegacyEndpoint({ secret, hashes, port: Number(option('--port') ?? 8788) });
  process.stdout.write(`legacy password endpoint on http://127.0.0.1:${port}/\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main(process.argv.slice(2));
