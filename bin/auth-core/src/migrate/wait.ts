/**
 * Waiting for the import: polls the app's staged counts until NEW + PROCESSING = 0, then reads every
 * FAILED row and reports those this migration staged (by the ids in its journal).
 */
import { failedRows, stagedCounts } from '../admin.js';
import type { CoreClient } from '../core-client.js';
import { FingerprintTable } from '../fingerprints.js';
import { phoneSpellings } from '../personal.js';
import type { Progress } from '../progress.js';
import type { Report } from '../report.js';
import type { StateFile } from '../state.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface WaitContext {
  readonly client: CoreClient;
  readonly progress: Progress;
  readonly journal: StateFile;
  /** Payload index → the record's position in the export. */
  readonly positions: readonly number[];
  readonly report: Report;
  /** Delay between two count polls (ms). */
  readonly pollMs: number;
}

export async function waitForImport(context: WaitContext): Promise<{ imported: number; failed: number }> {
  const { client, progress, journal, positions, report } = context;
  const c = progress.counters;
  // Staged ids of this migration (every chunk in the journal) → index in the payload order.
  const staged = new FingerprintTable(1 << 12);
  let total = 0;
  for (const entry of journal.chunks.values()) {
    const refused = new Set(entry.rejected.map((r) => r.i));
    let k = 0;
    for (let local = 0; local < entry.users && k < entry.ids.length; local++) {
      if (refused.has(local)) continue;
      for (const id of entry.ids[k] as readonly string[]) staged.add(id, entry.start + local);
      k += 1;
      total += 1;
    }
  }
  const failedBefore = (await stagedCounts(client)).FAILED;
  progress.phase('waiting for the import', total);
  for (;;) {
    const counts = await stagedCounts(client);
    c.pending = counts.NEW + counts.PROCESSING;
    c.failed = Math.max(0, counts.FAILED - failedBefore);
    c.imported = Math.max(0, total - c.pending - c.failed);
    progress.update(total - c.pending);
    if (c.pending === 0) break;
    await sleep(context.pollMs);
  }

  let failed = 0;
  for await (const row of failedRows(client)) {
    const payloadIndex = staged.get(row.id);
    if (payloadIndex === undefined) continue;
    failed += 1;
    const external = typeof row.externalUserId === 'string' ? row.externalUserId : undefined;
    report.add({
      position: positions[payloadIndex] ?? 0,
      sourceId: external,
      externalUserId: external,
      stage: 'import',
      messages: [typeof row.errorMessage === 'string' ? row.errorMessage : 'FAILED'],
      phoneNumbers: phoneSpellings(row.loginMethods),
    });
  }
  c.failed = failed;
  c.imported = total - failed;
  return { imported: total - failed, failed };
}
