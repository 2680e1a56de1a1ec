/** `auth-core status` and `auth-core failures`: staged counts, and every FAILED row (optionally removed). */
import { closeSync, writeSync } from 'node:fs';
import type { CoreClient } from './core-client.js';
import { coreError } from './errors.js';
import { openPrivate } from './private-file.js';
import { excerpt, redact } from './redact.js';

const STATUSES = ['NEW', 'PROCESSING', 'FAILED'] as const;
export type StagedCounts = Record<(typeof STATUSES)[number], number>;

export async function stagedCounts(client: CoreClient): Promise<StagedCounts> {
  const counts = await Promise.all(
    STATUSES.map(async (status) => {
      const reply = client.checked(
        await client.request('GET', client.appPath(`/bulk-import/users/count?status=${status}`)),
        'counting',
      );
      const n = (reply.json as { count?: unknown } | undefined)?.count;
      if (reply.status !== 200 || typeof n !== 'number')
        throw coreError(`unexpected count answer: ${reply.status} ${excerpt(reply.text, 200)}`);
      return n;
    }),
  );
  return { NEW: counts[0] as number, PROCESSING: counts[1] as number, FAILED: counts[2] as number };
}

export interface FailedRow {
  readonly id: string;
  readonly [key: string]: unknown;
}

/**
 * Every entry of a paged list of the app (`{users, nextPaginationToken?}`, 500 a page): `path`,
 * with or without a query; `what` names the list in errors.
 */
export async function* pagedUsers(client: CoreClient, path: string, what: string): AsyncGenerator<unknown> {
  let token: string | undefined;
  do {
    const query = `${path}${path.includes('?') ? '&' : '?'}limit=500${token ? `&paginationToken=${encodeURIComponent(token)}` : ''}`;
    const reply = client.checked(await client.request('GET', client.appPath(query)), `listing ${what}`);
    const page = reply.json as { users?: unknown; nextPaginationToken?: unknown } | undefined;
    if (reply.status !== 200 || !Array.isArray(page?.users)) {
      throw coreError(`unexpected answer listing ${what}: ${reply.status} ${excerpt(reply.text, 200)}`);
    }
    yield* page.users as unknown[];
    token = typeof page.nextPaginationToken === 'string' ? page.nextPaginationToken : undefined;
  } while (token);
}

/** Every FAILED row of the app, all pages (500 a page), newest first. */
export async function* failedRows(client: CoreClient): AsyncGenerator<FailedRow> {
  for await (const row of pagedUsers(client, '/bulk-import/users?status=FAILED', 'FAILED rows')) {
    if (typeof (row as FailedRow | undefined)?.id === 'string') yield row as FailedRow;
  }
}

export interface RemovalResult {
  readonly rows: number;
  readonly deleted: number;
  /** Ids that came back in `invalidIds`, or did not come back in `deletedIds`. */
  readonly notDeleted: readonly string[];
}

/**
 * Writes every FAILED row as NDJSON (to `out`, a file path, or stdout when undefined); with `remove`,
 * removes them afterwards in requests of 500 ids and checks that each id came back in `deletedIds`.
 */
export async function exportFailures(
  client: CoreClient,
  out: string | undefined,
  remove: boolean,
): Promise<RemovalResult> {
  const fd = out === undefined ? undefined : openPrivate(out, 'w', 'failures file');
  const write = (line: string) => (fd === undefined ? process.stdout.write(line) : writeSync(fd, line));
  const ids: string[] = [];
  try {
    for await (const row of failedRows(client)) {
      write(`${redact(JSON.stringify(row))}\n`);
      ids.push(row.id);
    }
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (!remove) return { rows: ids.length, deleted: 0, notDeleted: [] };
  let deleted = 0;
  const notDeleted: string[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const batch = ids.slice(i, i + 500);
    const reply = client.checked(
      await client.request('POST', client.appPath('/bulk-import/users/remove'), {
        body: JSON.stringify({ ids: batch }),
      }),
      'removing FAILED rows',
    );
    const json = reply.json as { deletedIds?: unknown; invalidIds?: unknown } | undefined;
    if (reply.status !== 200 || !Array.isArray(json?.deletedIds)) {
      throw coreError(`unexpected answer removing FAILED rows: ${reply.status} ${excerpt(reply.text, 200)}`);
    }
    const gone = new Set((json.deletedIds as unknown[]).map(String));
    const invalid = new Set(Array.isArray(json.invalidIds) ? (json.invalidIds as unknown[]).map(String) : []);
    for (const id of batch) {
      if (gone.has(id) && !invalid.has(id)) deleted += 1;
      else notDeleted.push(id);
    }
  }
  return { rows: ids.length, deleted, notDeleted };
}
