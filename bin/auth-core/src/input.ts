/**
 * Reading exports as streams: gzip is recognised by its magic bytes and inflated on the fly, NDJSON is
 * read line by line, CSV record by record (csv-parse), and JSON documents element by element
 * (stream-json), so memory does not grow with the size of the file.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { parse as parseCsv } from 'csv-parse';
import chain from 'stream-chain';
import { parser as jsonParser } from 'stream-json';
import { pick } from 'stream-json/filters/pick.js';
import { streamArray } from 'stream-json/streamers/stream-array.js';

/** One record of an export: its 1-based position and the parsed value, or why it could not be read. */
export type SourceRecord =
  | { readonly position: number; readonly value: unknown }
  | { readonly position: number; readonly error: string };

export async function isGzip(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    return bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

/** Counts the bytes read from the file as stored (for progress). */
export interface ByteCounter {
  bytes: number;
}

/** The file's bytes, inflated when it is gzipped. */
async function openText(path: string, counter?: ByteCounter): Promise<Readable> {
  const gzipped = await isGzip(path);
  const raw = createReadStream(path);
  if (counter) {
    raw.on('data', (chunk) => {
      counter.bytes += chunk.length;
    });
  }
  if (!gzipped) return raw;
  const gunzip = createGunzip();
  raw.on('error', (error) => gunzip.destroy(error));
  return raw.pipe(gunzip);
}

/** SHA-256 (hex) of the file as stored (not inflated). */
export async function fileDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The first `bytes` characters of the (inflated) file, to tell JSON from NDJSON from CSV. */
export async function peek(path: string, bytes = 4096): Promise<string> {
  const stream = await openText(path);
  let text = '';
  try {
    for await (const chunk of stream) {
      text += (chunk as Buffer).toString('utf8');
      if (text.length >= bytes) break;
    }
  } finally {
    stream.destroy();
  }
  return text.replace(/^\uFEFF/, '').slice(0, bytes);
}

export type Layout = 'ndjson' | 'json-array' | 'json-users' | 'csv';

/**
 * How a file is laid out: a JSON document `{"users":[…]}`, a JSON array, NDJSON (one object per line),
 * or anything else (CSV).
 */
export async function detectLayout(path: string): Promise<Layout> {
  const head = (await peek(path)).trimStart();
  if (head.startsWith('[')) return 'json-array';
  if (/^\{\s*"users"\s*:/.test(head)) return 'json-users';
  if (head.startsWith('{')) return 'ndjson';
  return 'csv';
}

/** NDJSON, one JSON value per non-blank line. */
export async function* ndjsonRecords(path: string, counter?: ByteCounter): AsyncGenerator<SourceRecord> {
  const lines = createInterface({ input: await openText(path, counter), crlfDelay: Number.POSITIVE_INFINITY });
  let position = 0;
  for await (const line of lines) {
    if (line.trim() === '') continue;
    position += 1;
    try {
      yield { position, value: JSON.parse(line) };
    } catch {
      yield { position, error: `record ${position} is not valid JSON` };
    }
  }
}

/**
 * CSV records: objects keyed by the header row when `header`, else arrays of cells. PostgreSQL's and
 * Firebase's writers are followed: quotes may appear inside unquoted fields, rows may be ragged.
 */
async function* csvRecords(path: string, header: boolean, counter?: ByteCounter): AsyncGenerator<SourceRecord> {
  const records = (await openText(path, counter)).pipe(
    parseCsv({
      bom: true,
      columns: header,
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
    }),
  );
  let position = 0;
  for await (const record of records) {
    position += 1;
    yield { position, value: record as unknown };
  }
}

/** Elements of a JSON array, at the top level (`at` undefined) or under a top-level key (`users`). */
export async function* jsonArrayRecords(
  path: string,
  at?: string,
  counter?: ByteCounter,
): AsyncGenerator<SourceRecord> {
  const stages: unknown[] = [await openText(path, counter), jsonParser()];
  if (at !== undefined) stages.push(pick({ filter: at }));
  stages.push(streamArray());
  const pipeline = chain(stages as never);
  let position = 0;
  for await (const item of pipeline as AsyncIterable<{ key: number; value: unknown }>) {
    position += 1;
    yield { position, value: item.value };
  }
}

/** Records of a file in a given layout. */
export function recordsOf(
  path: string,
  layout: Layout,
  csvHeader = true,
  counter?: ByteCounter,
): AsyncGenerator<SourceRecord> {
  switch (layout) {
    case 'ndjson':
      return ndjsonRecords(path, counter);
    case 'json-array':
      return jsonArrayRecords(path, undefined, counter);
    case 'json-users':
      return jsonArrayRecords(path, 'users', counter);
    case 'csv':
      return csvRecords(path, csvHeader, counter);
  }
}
