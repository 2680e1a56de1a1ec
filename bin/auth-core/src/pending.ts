/**
 * `auth-core pending`: every user of the app still pending the password-migration hook, as NDJSON
 * `{"userId","email","timeJoined"}` (docs/password-migration-hook.md "Readiness"), so the team can
 * mail them a reset link at cutover or import their hashes later. Reads
 * `GET /password-migration/status` and `GET /password-migration/pending` (500 a page).
 */
import { closeSync, writeSync } from 'node:fs';
import { pagedUsers } from './admin.js';
import type { CoreClient } from './core-client.js';
import { coreError } from './errors.js';
import { openPrivate } from './private-file.js';
import { excerpt } from './redact.js';

interface PendingUser {
  readonly userId: string;
  readonly email: string;
  readonly timeJoined: number;
}

/** Every pending user, page after page. */
async function* pendingUsers(client: CoreClient): AsyncGenerator<PendingUser> {
  for await (const entry of pagedUsers(client, '/password-migration/pending', 'pending users')) {
    const user = entry as PendingUser;
    yield { userId: user.userId, email: user.email, timeJoined: user.timeJoined };
  }
}

/** The app's counters: users still pending, and users the hook migrated. */
export async function pendingCounts(client: CoreClient): Promise<{ pending: number; migrated: number }> {
  const reply = client.checked(
    await client.request('GET', client.appPath('/password-migration/status')),
    'reading the password migration status',
  );
  const json = reply.json as { pending?: unknown; migrated?: unknown } | undefined;
  if (reply.status !== 200 || typeof json?.pending !== 'number' || typeof json.migrated !== 'number') {
    throw coreError(`unexpected password migration status: ${reply.status} ${excerpt(reply.text, 200)}`);
  }
  return { pending: json.pending, migrated: json.migrated };
}

/** Writes every pending user as NDJSON to `out` (a private file) or stdout; returns how many. */
export async function exportPending(client: CoreClient, out: string | undefined): Promise<number> {
  const fd = out === undefined ? undefined : openPrivate(out, 'w', 'pending users file');
  const write = (line: string) => (fd === undefined ? process.stdout.write(line) : writeSync(fd, line));
  let rows = 0;
  try {
    for await (const user of pendingUsers(client)) {
      write(`${JSON.stringify(user)}\n`);
      rows += 1;
    }
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return rows;
}
