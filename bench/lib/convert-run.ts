/**
 * Child process of the conversion measurement: streams an Auth0 export through the command's own
 * reader, hash index and converter, and builds each chunk's gzipped body as `migrate` does, sending
 * nothing. Prints one JSON line: users, milliseconds, and its RSS at the end of every tenth.
 * Usage: tsx bench/lib/convert-run.ts <export> <hashes> <records> <batch>
 */
import { gzipSync } from 'node:zlib';
import { PUBLIC_TENANT_ID } from '#functions/contract/tenants.js';
import { setupSource } from '../../bin/auth-core/src/sources/index.js';

const [exportPath, hashes, recordsArg, batchArg] = process.argv.slice(2);
if (!exportPath || !hashes || !recordsArg || !batchArg)
  throw new Error('usage: convert-run <export> <hashes> <records> <batch>');
const records = Number(recordsArg);
const batch = Number(batchArg);

const start = performance.now();
const setup = await setupSource('auth0', exportPath, { tenantId: PUBLIC_TENANT_ID, providerMap: new Map(), hashes });
const indexedMs = performance.now() - start;
const tenth = Math.max(1, Math.floor(records / 10));
const rssPerTenthMb: number[] = [];
let converted = 0;
let refused = 0;
let bytes = 0;
let chunk: unknown[] = [];
for await (const record of setup.records()) {
  if (!('value' in record)) throw new Error(record.error);
  const result = setup.convert(record.value);
  if (result.ok) {
    converted += 1;
    chunk.push(result.user);
    if (chunk.length === batch) {
      bytes += gzipSync(JSON.stringify({ users: chunk })).length;
      chunk = [];
    }
  } else refused += 1;
  if (record.position % tenth === 0 && rssPerTenthMb.length < 10)
    rssPerTenthMb.push(process.memoryUsage.rss() / 2 ** 20);
}
if (chunk.length > 0) bytes += gzipSync(JSON.stringify({ users: chunk })).length;
setup.close();
process.stdout.write(
  `${JSON.stringify({ converted, refused, ms: performance.now() - start, indexedMs, gzipBytes: bytes, rssPerTenthMb })}\n`,
);
