/**
 * The Auth0 password-hash export (NDJSON: `_id.$oid`, `email`, `passwordHash`, optional `alt_id`),
 * looked up by user id while the user export streams. A plain file is indexed, not loaded: the index
 * keeps a fingerprint and a byte offset per line (16 bytes) and each lookup reads that one line back.
 * A gzipped file cannot be read at an offset, so its hashes are held in memory instead.
 */
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { isJsonObject, type JsonObject } from '../contract.js';
import { FingerprintTable } from '../fingerprints.js';
import { isGzip, ndjsonRecords } from '../input.js';
import { idText, text } from './common.js';

/**
 * The user id a line of the hash export belongs to: `auth0|<alt_id>` when `alt_id` exists, else
 * `auth0|<_id.$oid>`. Undefined for a line that has neither.
 */
export function auth0HashUserId(line: JsonObject): string | undefined {
  const alt = idText(line.alt_id);
  if (alt !== undefined) return `auth0|${alt}`;
  const id = line._id;
  const oid = isJsonObject(id) ? idText(id.$oid) : idText(id);
  return oid === undefined ? undefined : `auth0|${oid}`;
}

export interface HashLookup {
  readonly count: number;
  hashFor(userId: string): string | undefined;
  close(): void;
}

const NEWLINE = 0x0a;
/** A hash-export line is a few hundred bytes; anything longer than this is not one. */
const MAX_LINE = 1 << 20;

function parseLine(line: string): { userId: string; hash: string } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isJsonObject(value)) return undefined;
  const userId = auth0HashUserId(value);
  const hash = text(value.passwordHash);
  return userId === undefined || hash === undefined ? undefined : { userId, hash };
}

export async function loadAuth0Hashes(path: string): Promise<HashLookup> {
  if (await isGzip(path)) {
    const hashes = new Map<string, string>();
    for await (const record of ndjsonRecords(path)) {
      if (!('value' in record) || !isJsonObject(record.value)) continue;
      const parsed = parseLine(JSON.stringify(record.value));
      if (parsed && !hashes.has(parsed.userId)) hashes.set(parsed.userId, parsed.hash);
    }
    return { count: hashes.size, hashFor: (userId) => hashes.get(userId), close: () => undefined };
  }

  const index = new FingerprintTable(1 << 16);
  let offset = 0;
  let pending: Buffer[] = [];
  let pendingStart = 0;
  const indexLine = (line: Buffer, start: number) => {
    const parsed = line.length > 0 && line.length <= MAX_LINE ? parseLine(line.toString('utf8')) : undefined;
    if (parsed && index.candidates(parsed.userId).length === 0) index.add(parsed.userId, start);
  };
  for await (const chunk of createReadStream(path)) {
    const buffer = chunk as Buffer;
    let from = 0;
    for (let nl = buffer.indexOf(NEWLINE); nl !== -1; nl = buffer.indexOf(NEWLINE, from)) {
      const piece = buffer.subarray(from, nl);
      const line = pending.length > 0 ? Buffer.concat([...pending, piece]) : piece;
      indexLine(line, pending.length > 0 ? pendingStart : offset + from);
      pending = [];
      from = nl + 1;
    }
    if (from < buffer.length) {
      if (pending.length === 0) pendingStart = offset + from;
      pending.push(buffer.subarray(from));
    }
    offset += buffer.length;
  }
  if (pending.length > 0) indexLine(Buffer.concat(pending), pendingStart);

  const fd = openSync(path, 'r');
  const readLineAt = (start: number): string => {
    let size = 4096;
    for (;;) {
      const buffer = Buffer.alloc(size);
      const read = readSync(fd, buffer, 0, size, start);
      const nl = buffer.subarray(0, read).indexOf(NEWLINE);
      if (nl !== -1 || read < size || size >= MAX_LINE)
        return buffer.subarray(0, nl === -1 ? read : nl).toString('utf8');
      size *= 4;
    }
  };
  return {
    count: index.size,
    hashFor(userId) {
      for (const start of index.candidates(userId)) {
        const parsed = parseLine(readLineAt(start));
        if (parsed?.userId === userId) return parsed.hash;
      }
      return undefined;
    },
    close: () => closeSync(fd),
  };
}
