/**
 * Measurement 5 (cost model), and the write plan the bare-transaction baseline replays.
 *
 * In-process (see lib/in-process.ts): stage `users` into a fresh app with the real staging use
 * case (no queue message), then run the real import worker handler on SQS events of `batchSize`
 * records, one invocation at a time (as one Lambda instance would), recording every DynamoDB call.
 * Two passes over fresh apps:
 * - units pass: the recorder reads item images around every write and computes the request units
 *   with AWS's billing rules (lib/billing.ts), and keeps DynamoDB Local's own ConsumedCapacity
 *   ('INDEXES') beside them as a cross-check; the write plan comes from this pass;
 * - timing pass: no image reads (they would slow the calls down), only the handler milliseconds
 *   (≈ Lambda billed duration).
 * Per imported user: read/write units (staging vs worker; table vs each index; Local's figure),
 * calls, transactions and their action counts, and handler milliseconds.
 */
import { chunkMarker, idempotencyRecord } from '#functions/storage/idempotency-store.js';
import { STAGED_COUNTER_SHARDS } from '#functions/storage/keys/staging.js';
import { ROWS_PER_TRANSACTION, stagedCounter, stagedRow } from '#functions/storage/staging/rows.js';
import { stagingDataKey } from '#functions/storage/staging/sealing.js';
import {
  type ComputedUnits,
  INDEX_NAMES,
  type InProcess,
  type RecordedAction,
  type RecordedCall,
  type ReportedCapacity,
} from '../lib/in-process.js';
import { createApp, type Runtime, tableConfig } from '../lib/runtime.js';
import { round } from '../lib/stats.js';
import { cheapBcryptHash, importUsers, shortId } from '../lib/users.js';

export interface WritePlan {
  /** The app the recording imported into (its id appears in every key). */
  readonly appId: string;
  /** Recorded staging TransactWriteItems inputs (rows + counter update). */
  readonly staging: Record<string, unknown>[];
  /** Per SQS batch, in order: its users and the worker's TransactWriteItems inputs, as recorded. */
  readonly batches: {
    readonly users: { readonly id: string; readonly email: string }[];
    readonly transactions: Record<string, unknown>[];
  }[];
  /**
   * Per user, in order: the worker's TransactWriteItems that name the user, restricted to this
   * user's own items and the items no single user owns (counters): the per-user view of the
   * batch transactions (the per-user breakdown of the notes).
   */
  readonly perUser: {
    readonly id: string;
    readonly appId: string;
    readonly email: string;
    readonly transactions: Record<string, unknown>[];
  }[];
}

/** Request units per imported user of one phase. */
interface PhaseUnits {
  /** Computed with AWS's rules (lib/billing.ts): what the cost model uses. */
  readonly readUnitsPerUser: number;
  /** Table + index write units. */
  readonly writeUnitsPerUser: number;
  readonly tableWriteUnitsPerUser: number;
  /** Per global secondary index. */
  readonly indexWriteUnitsPerUser: Record<string, number>;
  /** DynamoDB Local's ConsumedCapacity ('INDEXES'), summed the same way; for comparison only. */
  readonly local: {
    readonly readUnitsPerUser: number;
    readonly writeUnitsPerUser: number;
    /** Null when Local gave no table breakdown for some write call. */
    readonly tableWriteUnitsPerUser: number | null;
    readonly indexWriteUnitsPerUser: Record<string, number>;
    /** Calls for which Local reported no capacity at all (not in its sums). */
    readonly callsWithoutCapacityPerUser: number;
  };
  /** Calls that failed (condition failure, cancelled transaction); their units are counted. */
  readonly failedCallsPerUser: number;
  readonly transactionsPerUser: number;
}

export interface CostSample {
  readonly users: number;
  readonly staging: PhaseUnits;
  /**
   * What staging writes per group of rows — the counter update and the group's marker in each
   * transaction of ≤ 98 rows per counter shard touched, then the marker's "sent" update: per user
   * as measured on this small request, and as a 10,000-user request (the model's unit) pays.
   */
  readonly stagingCounters: { readonly measuredWruPerUser: number; readonly at10kWruPerUser: number };
  /**
   * What staging writes once per request: the item holding the wrapped data key of the staged
   * credentials (at most: a warm function reuses its key) and the request's idempotency record (its
   * claim, and its answer or its freeing): per user as measured on this small request, and as a
   * 10,000-user request pays.
   */
  readonly stagingDataKeys: { readonly measuredWruPerUser: number; readonly at10kWruPerUser: number };
  readonly worker: PhaseUnits & {
    readonly callsPerUser: Record<string, number>;
    readonly actionsPerTransaction: number[];
    readonly handlerMsPerUser: number;
    readonly handlerMsPerInvocation: number;
    /** The fastest full batch of the timing pass (what lib/capacity.ts sizes the ceiling from). */
    readonly handlerMsFastestFullBatch: number;
    readonly batchSize: number;
  };
}

const isTransaction = (c: RecordedCall) => c.command === 'TransactWriteItemsCommand';

export function transactItems(input: Record<string, unknown>): unknown[] {
  return (input.TransactItems as unknown[] | undefined) ?? [];
}

const zeroIndexes = () => Object.fromEntries(INDEX_NAMES.map((n) => [n, 0]));

/** Sums the recorded calls of one phase into per-user units. */
function phaseUnits(calls: readonly RecordedCall[], users: number): PhaseUnits {
  const per = (x: number) => x / users;
  let read = 0;
  let table = 0;
  const indexes = zeroIndexes();
  let localRead = 0;
  let localWrite = 0;
  let localTable: number | null = 0;
  const localIndexes = zeroIndexes();
  let missing = 0;
  for (const c of calls) {
    if (c.computed === undefined && c.kind !== 'other') throw new Error(`no computed units for ${c.command}`);
    if (c.computed) {
      read += c.computed.readUnits;
      table += c.computed.tableWriteUnits;
      for (const n of INDEX_NAMES) indexes[n] = (indexes[n] ?? 0) + (c.computed.indexWriteUnits[n] ?? 0);
    }
    const r = c.reported;
    if (!r) {
      if (c.kind !== 'other') missing++;
      continue;
    }
    if (c.kind === 'read') localRead += r.total;
    if (c.kind === 'write') {
      localWrite += r.total;
      localTable = r.table === undefined || localTable === null ? null : localTable + r.table;
      for (const n of INDEX_NAMES) localIndexes[n] = (localIndexes[n] ?? 0) + (r.indexes[n] ?? 0);
    }
  }
  const indexSum = Object.values(indexes).reduce((s, x) => s + x, 0);
  return {
    readUnitsPerUser: per(read),
    writeUnitsPerUser: per(table + indexSum),
    tableWriteUnitsPerUser: per(table),
    indexWriteUnitsPerUser: Object.fromEntries(Object.entries(indexes).map(([n, x]) => [n, per(x)])),
    local: {
      readUnitsPerUser: per(localRead),
      writeUnitsPerUser: per(localWrite),
      tableWriteUnitsPerUser: localTable === null ? null : per(localTable),
      indexWriteUnitsPerUser: Object.fromEntries(Object.entries(localIndexes).map(([n, x]) => [n, per(x)])),
      callsWithoutCapacityPerUser: per(missing),
    },
    failedCallsPerUser: per(calls.filter((c) => !c.ok).length),
    transactionsPerUser: per(calls.filter(isTransaction).length),
  };
}

interface Pass {
  readonly appId: string;
  readonly prefix: string;
  readonly messages: { appId: string; id: string }[];
  readonly calls: RecordedCall[];
  /** Per importBatch invocation: the messages and the index range of its calls. */
  readonly batches: { messages: { appId: string; id: string }[]; from: number; to: number }[];
  readonly handlerMs: number;
  /** Per invocation: its handler milliseconds and its batch's size. */
  readonly perBatch: { readonly ms: number; readonly users: number }[];
  readonly invocations: number;
}

async function pass(
  runtime: Runtime,
  inProcess: InProcess,
  users: number,
  batchSize: number,
  images: boolean,
  ownTable: boolean,
): Promise<Pass> {
  const appId = `cost-${shortId()}`;
  await createApp(runtime, appId, tableConfig(ownTable));
  const hash = await cheapBcryptHash('bench-password');
  const prefix = `cost-${shortId()}`;
  const payload = importUsers(prefix, users, {
    kind: 'hash',
    passwordHash: hash,
    hashingAlgorithm: 'BCRYPT',
  });
  inProcess.images = images;
  inProcess.calls.length = 0;
  try {
    inProcess.phase = 'staging';
    const messages = await inProcess.stage(appId, payload);
    inProcess.phase = 'worker';
    let handlerMs = 0;
    const perBatch: { ms: number; users: number }[] = [];
    let invocations = 0;
    const batches: Pass['batches'] = [];
    for (let i = 0; i < messages.length; i += batchSize) {
      const from = inProcess.calls.length;
      const batch = messages.slice(i, i + batchSize);
      const ms = await inProcess.importBatch(batch);
      handlerMs += ms;
      perBatch.push({ ms, users: batch.length });
      batches.push({ messages: batch, from, to: inProcess.calls.length });
      invocations++;
    }
    return { appId, prefix, messages, calls: [...inProcess.calls], batches, handlerMs, perBatch, invocations };
  } finally {
    inProcess.phase = 'idle';
    inProcess.images = true;
  }
}

export async function recordImport(
  runtime: Runtime,
  inProcess: InProcess,
  users: number,
  batchSize: number,
  options: { ownTable?: boolean } = {},
): Promise<{ sample: CostSample; plan: WritePlan; breakdown: string[] }> {
  const ownTable = options.ownTable === true;
  const units = await pass(runtime, inProcess, users, batchSize, true, ownTable);
  const timing = await pass(runtime, inProcess, users, batchSize, false, ownTable);
  const n = units.messages.length;
  const staging = units.calls.filter((c) => c.phase === 'staging');
  const worker = units.calls.filter((c) => c.phase === 'worker');
  const callsPerUser: Record<string, number> = {};
  for (const c of worker) callsPerUser[c.command] = (callsPerUser[c.command] ?? 0) + 1 / n;
  const workerTx = worker.filter(isTransaction);
  const sample: CostSample = {
    users: n,
    staging: phaseUnits(staging, n),
    stagingCounters: stagingCounters(units.calls, n),
    stagingDataKeys: stagingDataKeys(units.calls, n),
    worker: {
      ...phaseUnits(worker, n),
      callsPerUser,
      actionsPerTransaction: [...new Set(workerTx.map((c) => transactItems(c.input).length))].sort((a, b) => a - b),
      handlerMsPerUser: timing.handlerMs / timing.messages.length,
      handlerMsPerInvocation: timing.handlerMs / timing.invocations,
      handlerMsFastestFullBatch: Math.min(
        ...timing.perBatch.filter((b) => b.users === batchSize).map((b) => b.ms),
        Number.POSITIVE_INFINITY,
      ),
      batchSize,
    },
  };
  // Messages are sent in request order.
  const recorded = units.messages.map((m, i) => ({ id: m.id, email: `${units.prefix}-${i}@example.com` }));
  const email = new Map(recorded.map((u) => [u.id, u.email]));
  const names = (text: string, u: { id: string; email: string }) => text.includes(u.id) || text.includes(u.email);
  const plan: WritePlan = {
    appId: units.appId,
    staging: staging.filter(isTransaction).map((c) => c.input),
    batches: units.batches.map((b) => ({
      users: b.messages.map((m) => ({ id: m.id, email: email.get(m.id) ?? '' })),
      transactions: units.calls
        .slice(b.from, b.to)
        .filter(isTransaction)
        .map((c) => c.input),
    })),
    perUser: recorded.map((u) => ({
      ...u,
      appId: units.appId,
      transactions: workerTx
        .filter((c) => names(JSON.stringify(c.input), u))
        .map((c) => ({
          ...c.input,
          TransactItems: transactItems(c.input).filter((item) => {
            const text = JSON.stringify(item);
            return names(text, u) || !recorded.some((other) => names(text, other));
          }),
        })),
    })),
  };
  return { sample, plan, breakdown: userBreakdown(units.calls, plan.perUser) };
}

// ------------------------------------------------------------------------------------------------
// Where the units of one typical user go

const COMMAND = (c: string) => c.replace(/Command$/, '');
/** What staging writes per group of rows, and per request. */
const STAGING_GROUP_ENTITIES = new Set([stagedCounter.type, chunkMarker.type]);
const STAGING_REQUEST_ENTITIES = new Set([stagingDataKey.type, idempotencyRecord.type]);

function describeWrite(u: ComputedUnits): string {
  const parts = [`table ${round(u.tableWriteUnits)} WRU`];
  for (const n of INDEX_NAMES)
    if ((u.indexWriteUnits[n] ?? 0) > 0) parts.push(`${n} ${round(u.indexWriteUnits[n] ?? 0)}`);
  return parts.join(', ');
}

function describeLocal(r: ReportedCapacity | undefined, kind: RecordedCall['kind']): string {
  if (!r) return 'Local: none reported';
  if (kind === 'read') return `Local: ${round(r.total)} RRU`;
  const parts = [`table ${r.table === undefined ? '?' : round(r.table)}`];
  for (const n of INDEX_NAMES) if ((r.indexes[n] ?? 0) > 0) parts.push(`${n} ${round(r.indexes[n] ?? 0)}`);
  return `Local: ${round(r.total)} (${parts.join(', ')})`;
}

function callUnits(c: RecordedCall): number {
  if (!c.computed) return 0;
  const idx = Object.values(c.computed.indexWriteUnits).reduce((s, x) => s + x, 0);
  return c.computed.readUnits + c.computed.tableWriteUnits + idx;
}

const actionUnits = (a: RecordedAction) => a.units.table + Object.values(a.units.indexes).reduce((s, x) => s + x, 0);

function describeAction(a: RecordedAction, mask: (text: string) => string): string {
  const idx = INDEX_NAMES.filter((n) => (a.units.indexes[n] ?? 0) > 0).map((n) => `, ${n} ${a.units.indexes[n]}`);
  const what = a.entityType ?? `absent item (SK ${mask(String(a.key.SK ?? '?'))})`;
  return `${a.kind} ${what} ${a.beforeBytes} B → ${a.afterBytes} B: table ${a.units.table}${idx.join('')}`;
}

/**
 * Lines for the report: every call that names the median user (by computed units), with its
 * computed units and DynamoDB Local's figure; for writes, this user's items and the shared ones
 * (counters) action by action, and this user's share (own items + shared items ÷ users named by
 * the call). Then what the calls naming no user cost per user, and the staging counters' weight.
 */
function userBreakdown(
  calls: readonly RecordedCall[],
  users: readonly { readonly id: string; readonly email: string }[],
): string[] {
  if (users.length === 0) return [];
  const text = new Map(calls.map((c) => [c, JSON.stringify(c.input)]));
  const names = (json: string, u: { id: string; email: string }) => json.includes(u.id) || json.includes(u.email);
  const named = (c: RecordedCall) => users.filter((u) => names(text.get(c) ?? '', u));
  const owner = (a: RecordedAction) => users.find((u) => names(JSON.stringify(a.key), u));
  // Each user's share of every call: own actions, plus shared actions and reads split evenly.
  const share = new Map(users.map((u) => [u.id, 0]));
  for (const c of calls) {
    const who = named(c);
    if (who.length === 0) continue;
    let common = c.computed?.readUnits ?? 0;
    for (const a of c.actions) {
      const o = owner(a);
      if (o) share.set(o.id, (share.get(o.id) ?? 0) + actionUnits(a));
      else common += actionUnits(a);
    }
    for (const u of who) share.set(u.id, (share.get(u.id) ?? 0) + common / who.length);
  }
  const ranked = users.map((u, i) => ({ ...u, i, units: share.get(u.id) ?? 0 })).sort((a, b) => a.units - b.units);
  const typical = ranked[Math.floor(ranked.length / 2)] as (typeof ranked)[number];
  const mask = (t: string) => t.split(typical.id).join('<id>').split(typical.email).join('<email>');
  const lines = [
    `Units of one typical user (user ${typical.i + 1} of ${users.length}, the median by its share of the calls naming it: ${round(typical.units)} units), computed with AWS's rules | DynamoDB Local's figure for the whole call:`,
  ];
  const counters = new Map<string, number>();
  for (const c of calls) {
    const who = named(c);
    if (!who.some((u) => u.id === typical.id)) continue;
    const label = `${c.phase} ${COMMAND(c.command)}`;
    const k = (counters.get(label) ?? 0) + 1;
    counters.set(label, k);
    const failed = c.ok ? '' : ` FAILED (${c.error}; units still counted)`;
    const forWhom = who.length > 1 ? ` for ${who.length} users` : '';
    if (c.kind === 'read') {
      const consistent = (text.get(c) ?? '').includes('"ConsistentRead":true') ? 'consistent' : 'eventual';
      lines.push(
        `${label} #${k} (${consistent}${forWhom}): ${round(c.computed?.readUnits ?? 0)} RRU | ${describeLocal(c.reported, c.kind)}${failed}`,
      );
      continue;
    }
    if (c.kind !== 'write' || !c.computed) continue;
    const size = c.actions.length;
    lines.push(
      `${label} #${k} (${size} action${size === 1 ? '' : 's'}${forWhom}): ${describeWrite(c.computed)} | ${describeLocal(c.reported, c.kind)}${failed}`,
    );
    let own = 0;
    let common = 0;
    let hidden = 0;
    for (const a of c.actions) {
      const o = owner(a);
      if (o && o.id !== typical.id) {
        hidden++;
        continue;
      }
      if (o) own += actionUnits(a);
      else common += actionUnits(a);
      lines.push(`   ${o ? 'own' : 'shared'}: ${describeAction(a, mask)}`);
    }
    if (hidden > 0) lines.push(`   (+ ${hidden} actions on the other ${who.length - 1} users' items)`);
    if (who.length > 1) {
      lines.push(
        `   this user's share: ${round(own)} own + ${round(common)} shared ÷ ${who.length} = ${round(own + common / who.length)} WRU`,
      );
    }
  }
  // Calls naming no user at all: per-request and per-batch lookups (app, tenants, roles).
  const unnamed = calls.filter((c) => named(c).length === 0);
  const unnamedRead = unnamed.reduce((s, c) => s + (c.computed?.readUnits ?? 0), 0);
  const unnamedWrite = unnamed.reduce((s, c) => s + callUnits(c) - (c.computed?.readUnits ?? 0), 0);
  const stagingShare = stagingCounters(calls, users.length);
  const keyShare = stagingDataKeys(calls, users.length);
  const rowSizes = calls
    .filter((c) => c.phase === 'staging')
    .flatMap((c) => c.actions)
    .filter((a) => a.entityType === stagedRow.type && a.kind === 'Put')
    .map((a) => a.afterBytes)
    .sort((a, b) => a - b);
  lines.push(
    `Staged rows (credentials sealed): ${rowSizes[0] ?? 0}–${rowSizes.at(-1) ?? 0} B; the request's data key item and idempotency record: ${round(keyShare.measuredWruPerUser, 3)} WRU per user on this ${users.length}-user request, ` +
      `≈ ${round(keyShare.at10kWruPerUser, 5)} on a 10,000-user request (the same writes once per request), which is what the model prices.`,
  );
  lines.push(
    `Calls naming no user (app/tenant/role lookups per request or batch): ${unnamed.length} calls, ${round(unnamedRead / users.length, 3)} RRU and ${round(unnamedWrite / users.length, 3)} WRU per user.`,
    `Staging counter updates and group markers: one each per ${STAGED_COUNTER_SHARDS}-way counter shard touched per transaction of ≤ ${ROWS_PER_TRANSACTION - 1} rows, and the marker's "sent" update: ${round(stagingShare.measuredWruPerUser)} WRU per user on this ${users.length}-user request, ` +
      `≈ ${round(stagingShare.at10kWruPerUser, 3)} on a 10,000-user request, which is what the model prices (staging requests of 10,000 users).`,
  );
  return lines;
}

/** What staging writes per group of rows (counter updates, markers), per user: as measured and at 10,000 users per request. */
function stagingCounters(
  calls: readonly RecordedCall[],
  users: number,
): { measuredWruPerUser: number; at10kWruPerUser: number } {
  const staging = calls.filter((c) => c.phase === 'staging');
  const groupUnits = staging
    .flatMap((c) => c.actions)
    .filter((a) => a.entityType !== undefined && STAGING_GROUP_ENTITIES.has(a.entityType))
    .reduce((s, a) => s + actionUnits(a), 0);
  const groups = staging.filter(isTransaction).length;
  const perGroup = groups > 0 ? groupUnits / groups : 0;
  // A 10,000-user request: each counter shard's users in groups of ROWS_PER_TRANSACTION - 1 rows
  // (one action of each transaction is the group's marker).
  const groupsAt10k = STAGED_COUNTER_SHARDS * Math.ceil(10_000 / STAGED_COUNTER_SHARDS / (ROWS_PER_TRANSACTION - 1));
  return { measuredWruPerUser: groupUnits / users, at10kWruPerUser: (groupsAt10k * perGroup) / 10_000 };
}

/** What staging writes once per request (data key item, idempotency record), per user: as measured and at 10,000 users per request. */
function stagingDataKeys(
  calls: readonly RecordedCall[],
  users: number,
): { measuredWruPerUser: number; at10kWruPerUser: number } {
  const writes = calls
    .filter((c) => c.phase === 'staging')
    .flatMap((c) => c.actions)
    .filter((a) => a.entityType !== undefined && STAGING_REQUEST_ENTITIES.has(a.entityType));
  const units = writes.reduce((s, a) => s + actionUnits(a), 0);
  return { measuredWruPerUser: units / users, at10kWruPerUser: units / 10_000 };
}

// ------------------------------------------------------------------------------------------------
// Extrapolation to 1,000,000 users on AWS

/**
 * Prices (USD, us-east-1, as published on the AWS pricing pages; check before quoting):
 * - DynamoDB on-demand: $0.625 per million write request units, $0.125 per million read request
 *   units (aws.amazon.com/dynamodb/pricing/on-demand, after the Nov 2024 reduction). The units
 *   are the ones computed with AWS's rules from the recorded calls (lib/billing.ts: transactional
 *   writes 2 per KB, index writes 1 per KB per index entry written or removed), not DynamoDB
 *   Local's ConsumedCapacity.
 * - Lambda arm64: $0.0000133334 per GB-second, $0.20 per million requests (aws.amazon.com/lambda/pricing).
 * - SQS standard: $0.40 per million requests, 64 KB chunks (aws.amazon.com/sqs/pricing).
 * - API Gateway HTTP API: $1.00 per million requests (aws.amazon.com/api-gateway/pricing).
 */
const PRICES = {
  dynamodbWriteUnitPerMillion: 0.625,
  dynamodbReadUnitPerMillion: 0.125,
  lambdaGbSecond: 0.0000133334,
  lambdaRequestPerMillion: 0.2,
  sqsRequestPerMillion: 0.4,
  httpApiRequestPerMillion: 1.0,
} as const;

/**
 * How fast DynamoDB lets a migration write (sources: Amazon DynamoDB Developer Guide, "DynamoDB
 * on-demand capacity mode" (initial throughput and scaling), "Pre-warming a table for on-demand
 * capacity mode" and "Understanding DynamoDB warm throughput",
 * docs.aws.amazon.com/amazondynamodb/latest/developerguide/; "Service, account, and table
 * quotas": 40,000 write request units per second per on-demand table by default):
 * - a new on-demand table, and each new GSI, serves up to 4,000 write units per second (12,000
 *   read): its previous peak is set to half that, and it accommodates up to double its previous
 *   peak; beyond double the previous peak within 30 minutes it may throttle. So a table driven at
 *   its capacity doubles it 30 minutes later ({@link onDemandImport} models exactly that, as the
 *   local runtime's `--write-capacity` does);
 * - warm throughput raises that at once, up to the table quota (40,000 by default, adjustable);
 *   raising it is billed once per increase ("you will be charged" — its price is on the DynamoDB
 *   pricing page, not in this model), the writes themselves cost the same.
 * The table and each GSI have their own capacity; the base table takes the most write units per
 * user, so it is the bound.
 */
export const THROUGHPUT = {
  newTableWriteUnits: 4_000,
  /** The default per-table on-demand quota: what `-c warmWriteUnits` can warm to without a quota increase. */
  warmedWriteUnits: 40_000,
  /** On demand: a sustained peak is doubled this long after it. */
  doublingSeconds: 1_800,
} as const;

/**
 * An import of `users` into a new on-demand table whose capacity grows as AWS documents: at time
 * t the table serves max(4,000, 2 × the highest one-second rate reached at least 30 minutes
 * earlier), at most the quota; the import uses `utilization` of it (what the pace achieved in the
 * capacity-limited rehearsal, measurement 13), or what its invocations can import if that is less.
 * Returns the minutes, the table's capacity when it finished and how often it doubled.
 */
export function onDemandImport(options: {
  readonly users: number;
  readonly tableWruPerUser: number;
  readonly utilization: number;
  /** Users per second the invocations can import at most (the ceiling × one invocation's rate). */
  readonly invocationsAllow: number;
  readonly initialUnits?: number;
  readonly quota?: number;
  readonly doublingSeconds?: number;
}): { minutes: number; finalUnits: number; doublings: number } {
  const initial = options.initialUnits ?? THROUGHPUT.newTableWriteUnits;
  const quota = options.quota ?? THROUGHPUT.warmedWriteUnits;
  const doubling = options.doublingSeconds ?? THROUGHPUT.doublingSeconds;
  const rates: number[] = [];
  let settledPeak = 0;
  let imported = 0;
  let capacity = initial;
  let seconds = 0;
  while (imported < options.users && seconds < 7 * 24 * 3600) {
    const settled = seconds - doubling;
    if (settled >= 0) settledPeak = Math.max(settledPeak, rates[settled] ?? 0);
    capacity = Math.min(quota, Math.max(initial, 2 * settledPeak));
    const rate = Math.min(options.utilization * capacity, options.invocationsAllow * options.tableWruPerUser);
    rates.push(rate);
    const users = rate / options.tableWruPerUser;
    // The last second counts only the part of it the remaining users took.
    seconds += Math.min(1, (options.users - imported) / users);
    imported += users;
  }
  return { minutes: seconds / 60, finalUnits: capacity, doublings: Math.round(Math.log2(capacity / initial)) };
}

/**
 * The share of a table's capacity the paced import keeps, as measurement 13 (the rehearsal on a
 * capacity-limited table) measured it in the run docs/performance.md publishes; a bench run that
 * includes measurement 13 prices the model with its own figure instead.
 */
export const REHEARSED_UTILIZATION = 0.69;

/** One way to run the import: its rate and the wall time of `users`. */
interface WallScenario {
  readonly scenario: string;
  readonly concurrency: number;
  readonly usersPerSecond: number;
  readonly minutes: number;
  readonly arithmetic: string;
}

export interface CostModel {
  readonly users: number;
  readonly concurrency: number;
  readonly workerMemoryGb: number;
  readonly lines: { item: string; arithmetic: string; usd: number }[];
  readonly totalUsd: number;
  /** The headline: a new on-demand table, untuned (the pace follows it, under the default ceiling). */
  readonly wallMinutes: number;
  readonly wallArithmetic: string;
  /** A new on-demand table untuned; a table warmed to the quota, untuned. */
  readonly wall: readonly WallScenario[];
  /** Base-table write units per imported user (staging at 10,000 per request + import). */
  readonly tableWriteUnitsPerUser: number;
}

export function costModel(
  sample: CostSample,
  options: {
    users: number;
    /** The import worker's maximum concurrency: the ceiling the pace works under. */
    concurrency: number;
    /**
     * The ceiling the stack sets for a table warmed to the quota (`-c warmWriteUnits=40000`:
     * lib/capacity.ts); the same as `concurrency` unless given.
     */
    warmConcurrency?: number;
    workerMemoryMb: number;
    /**
     * The share of a table's capacity the paced import uses (measurement 13, the rehearsal on a
     * capacity-limited table: table units used ÷ the budget, median over the windows).
     */
    utilization: number;
  },
): CostModel {
  const n = options.users;
  const gb = options.workerMemoryMb / 1024;
  const s = sample.staging;
  const w = sample.worker;
  // Staging priced as 10,000-user requests: the measured request was small, so what it writes per
  // group (counter updates, markers: table units) weighs more per user than it would; so does what
  // it writes per request (data key item, idempotency record).
  const counterSaving =
    sample.stagingCounters.measuredWruPerUser -
    sample.stagingCounters.at10kWruPerUser +
    (sample.stagingDataKeys.measuredWruPerUser - sample.stagingDataKeys.at10kWruPerUser);
  const stagingWru = s.writeUnitsPerUser - counterSaving;
  const wru = stagingWru + w.writeUnitsPerUser;
  const tableWru = s.tableWriteUnitsPerUser - counterSaving + w.tableWriteUnitsPerUser;
  const indexWru = wru - tableWru;
  const rru = s.readUnitsPerUser + w.readUnitsPerUser;
  const invocations = n / w.batchSize;
  // Per 10 users: one SendMessageBatch, one ReceiveMessage, one DeleteMessageBatch (+ empty polls, ignored).
  const sqsRequests = (n / 10) * 3;
  const stagingRequests = n / 10_000;

  // Wall time: the import runs at the lower of what its invocations import (each its batch in
  // handlerMsPerInvocation, at most `concurrency` at once) and the share of the table's capacity
  // the pace keeps (`utilization`), on a new on-demand table growing as AWS documents it, and on
  // a table warmed to the quota.
  const perInvocation = (w.batchSize * 1000) / w.handlerMsPerInvocation;
  const invocationsAllow = options.concurrency * perInvocation;
  const u = options.utilization;
  const fresh = onDemandImport({ users: n, tableWruPerUser: tableWru, utilization: u, invocationsAllow });
  const warmConcurrency = options.warmConcurrency ?? options.concurrency;
  const warmInvocationsAllow = warmConcurrency * perInvocation;
  const warmTableAllows = (u * THROUGHPUT.warmedWriteUnits) / tableWru;
  const warmRate = Math.min(warmInvocationsAllow, warmTableAllows);
  const warmMinutes = n / warmRate / 60;
  const limitsOf = (c: number, allow: number) =>
    `${c} invocations × ${w.batchSize} users / ${w.handlerMsPerInvocation.toFixed(0)} ms = ${allow.toFixed(0)} users/s`;
  const limits = limitsOf(options.concurrency, invocationsAllow);
  const wall: WallScenario[] = [
    {
      scenario: 'new on-demand table, untuned',
      concurrency: options.concurrency,
      usersPerSecond: n / (fresh.minutes * 60),
      minutes: fresh.minutes,
      arithmetic:
        `new on-demand table, untuned: the pace keeps ${(100 * u).toFixed(0)} % of the table's capacity (4,000 WRU/s, doubled 30 min after a sustained peak: ` +
        `${fresh.doublings} doubling${fresh.doublings === 1 ? '' : 's'}, ${fresh.finalUnits.toFixed(0)} WRU/s at the end) ÷ ${tableWru.toFixed(2)} table WRU per user, ` +
        `at most ${limits} → ${n} users in ${fresh.minutes.toFixed(1)} min`,
    },
    {
      scenario: `table warmed to ${THROUGHPUT.warmedWriteUnits} WRU/s, untuned`,
      concurrency: warmConcurrency,
      usersPerSecond: warmRate,
      minutes: warmMinutes,
      arithmetic:
        `table warmed to ${THROUGHPUT.warmedWriteUnits} WRU/s, untuned: min(${(100 * u).toFixed(0)} % × ${THROUGHPUT.warmedWriteUnits} WRU/s ÷ ${tableWru.toFixed(2)} = ${warmTableAllows.toFixed(0)} users/s, ` +
        `${limitsOf(warmConcurrency, warmInvocationsAllow)}) = ${warmRate.toFixed(0)} users/s (${warmInvocationsAllow <= warmTableAllows ? 'concurrency-bound' : 'table-bound'}) → ${n} users in ${warmMinutes.toFixed(1)} min`,
    },
  ];
  // Lambda bills every invocation's duration: while a backlog waits, `concurrency` invocations
  // run, importing or waiting for the pace — on the new table (the headline) most of them wait.
  const workSeconds = (n * w.handlerMsPerUser) / 1000;
  const gbSeconds = Math.max(workSeconds, options.concurrency * fresh.minutes * 60) * gb;
  const lines = [
    {
      item: 'DynamoDB writes (AWS rules)',
      arithmetic:
        `${n} users × ${wru.toFixed(2)} WRU (staging ${stagingWru.toFixed(2)} at 10,000 users per request [${s.writeUnitsPerUser.toFixed(2)} measured on ${sample.users}] + worker ${w.writeUnitsPerUser.toFixed(2)}; ` +
        `table ${tableWru.toFixed(2)} + indexes ${indexWru.toFixed(2)}) × $${PRICES.dynamodbWriteUnitPerMillion}/M`,
      usd: n * wru * (PRICES.dynamodbWriteUnitPerMillion / 1e6),
    },
    {
      item: 'DynamoDB reads (AWS rules)',
      arithmetic:
        `${n} users × ${rru.toFixed(2)} RRU (staging ${s.readUnitsPerUser.toFixed(2)} + worker ${w.readUnitsPerUser.toFixed(2)}) ` +
        `× $${PRICES.dynamodbReadUnitPerMillion}/M`,
      usd: n * rru * (PRICES.dynamodbReadUnitPerMillion / 1e6),
    },
    {
      item: 'Lambda compute (import worker)',
      arithmetic:
        `max(${n} users × ${w.handlerMsPerUser.toFixed(1)} ms working, ${options.concurrency} invocations × ${fresh.minutes.toFixed(1)} min on the new table, paced) ` +
        `× ${gb.toFixed(3)} GB × $${PRICES.lambdaGbSecond}/GB-s`,
      usd: gbSeconds * PRICES.lambdaGbSecond,
    },
    {
      item: 'Lambda requests',
      arithmetic: `${invocations} invocations × $${PRICES.lambdaRequestPerMillion}/M`,
      usd: invocations * (PRICES.lambdaRequestPerMillion / 1e6),
    },
    {
      item: 'SQS requests',
      arithmetic: `${sqsRequests} (send + receive + delete per 10 users) × $${PRICES.sqsRequestPerMillion}/M`,
      usd: sqsRequests * (PRICES.sqsRequestPerMillion / 1e6),
    },
    {
      item: 'API requests (staging)',
      arithmetic: `${stagingRequests} × $${PRICES.httpApiRequestPerMillion}/M`,
      usd: stagingRequests * (PRICES.httpApiRequestPerMillion / 1e6),
    },
  ];

  const headline = wall[0] as WallScenario;
  return {
    users: n,
    concurrency: options.concurrency,
    workerMemoryGb: gb,
    lines,
    totalUsd: lines.reduce((sum, l) => sum + l.usd, 0),
    wallMinutes: headline.minutes,
    wallArithmetic: wall.map((x) => x.arithmetic).join('; '),
    wall,
    tableWriteUnitsPerUser: tableWru,
  };
}

/** Report lines comparing the computed units with DynamoDB Local's figure, phase by phase. */
export function unitNotes(sample: CostSample): string[] {
  const fmt = (x: number | null) => (x === null ? '?' : String(round(x)));
  const idx = (r: Record<string, number>) => INDEX_NAMES.map((n) => `${n} ${fmt(r[n] ?? 0)}`).join(', ');
  return (['staging', 'worker'] as const).map((phase) => {
    const p = sample[phase];
    const l = p.local;
    const diff = p.writeUnitsPerUser - l.writeUnitsPerUser;
    return (
      `${phase}: computed ${fmt(p.writeUnitsPerUser)} WRU/user (table ${fmt(p.tableWriteUnitsPerUser)}; ${idx(p.indexWriteUnitsPerUser)}), ` +
      `${fmt(p.readUnitsPerUser)} RRU/user | DynamoDB Local reported ${fmt(l.writeUnitsPerUser)} WRU/user ` +
      `(table ${fmt(l.tableWriteUnitsPerUser)}; ${idx(l.indexWriteUnitsPerUser)}), ${fmt(l.readUnitsPerUser)} RRU/user` +
      `${l.callsWithoutCapacityPerUser > 0 ? `, no figure for ${fmt(l.callsWithoutCapacityPerUser)} calls/user` : ''}; ` +
      `difference ${diff >= 0 ? '+' : ''}${fmt(diff)} WRU/user` +
      `${p.failedCallsPerUser > 0 ? `; ${fmt(p.failedCallsPerUser)} failed calls/user (units counted)` : ''}`
    );
  });
}
