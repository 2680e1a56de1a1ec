/**
 * The capacity-limited mode of the local runtime (`npm start -- --write-capacity=<units>`): an HTTP
 * proxy between the handlers and DynamoDB Local that meters every table's request units against
 * the budget of an on-demand table (capacity.ts) and answers what DynamoDB answers a table at its
 * capacity — HTTP 400 with `ProvisionedThroughputExceededException` (its `ThrottlingReasons` saying
 * `TableWriteKeyRangeThroughputExceeded` or `TableReadKeyRangeThroughputExceeded`, as a table
 * still scaling does), or for TransactWriteItems a `TransactionCanceledException` whose throttled
 * actions' reason is `ThrottlingError`. The SDK then treats them exactly as it treats DynamoDB's:
 * its own retries with its throttling backoff, then the core's. A refused request reaches DynamoDB
 * Local not at all, so it wrote nothing.
 *
 * Units come from the request (functions/shared/request-units.ts: a Put by its item's size, any
 * other write one KB; transactional writes twice), reads count a third of a write unit, Query and
 * Scan by the bytes they return; each table (the base table, each app table) has a budget of its
 * own. Every 10 seconds with traffic it prints, per table, what was used of the budget and how many
 * requests were refused: `Capacity: table <name> used <u> of <b> WRU/s over 10 s (<p> %), <n> of
 * <m> requests throttled`.
 */
import { Agent, createServer, request as forward, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readUnitsOf, responseReadUnits, writeUnitsOf } from '#functions/shared/request-units.js';
import { type CapacitySettings, READ_UNIT_WEIGHT, TableCapacity } from './capacity.js';

export interface CapacityProxy {
  /** What the handlers use as DYNAMODB_ENDPOINT. */
  readonly endpoint: string;
  stop(): Promise<void>;
}

const REPORT_EVERY_MS = 10_000;

/** The message DynamoDB gives a request beyond an on-demand table's current capacity. */
const AT_CAPACITY =
  'Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your ' +
  'table or index so please try again shortly. If exceptions persist, check if you have a hot key: ' +
  'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html';

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);
const READS = new Set(['GetItem', 'BatchGetItem', 'TransactGetItems']);
const PAGED_READS = new Set(['Query', 'Scan']);

type Json = Record<string, unknown>;

function throttlingBody(operation: string, input: Json, tables: ReadonlySet<string>, region: string): Json {
  const arn = (table: string) => `arn:aws:dynamodb:${region}:000000000000:table/${table}`;
  if (operation === 'TransactWriteItems') {
    const reasons = ((input.TransactItems ?? []) as Json[]).map((entry) => {
      const action = Object.values(entry ?? {})[0] as Json | undefined;
      return tables.has(String(action?.TableName))
        ? { Code: 'ThrottlingError', Message: AT_CAPACITY }
        : { Code: 'None' };
    });
    return {
      __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
      Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
      CancellationReasons: reasons,
    };
  }
  const kind = WRITES.has(operation) ? 'Write' : 'Read';
  return {
    __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
    message: AT_CAPACITY,
    ThrottlingReasons: [...tables].map((t) => ({ reason: `Table${kind}KeyRangeThroughputExceeded`, resource: arn(t) })),
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startCapacityProxy(options: {
  /** DynamoDB Local's endpoint. */
  readonly target: string;
  readonly settings: CapacitySettings;
  readonly region: string;
  /** Prints a capacity line (the runtime's stdout). */
  readonly say: (line: string) => void;
  readonly clock?: () => number;
}): Promise<CapacityProxy> {
  const clock = options.clock ?? Date.now;
  const target = new URL(options.target);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const tables = new Map<string, TableCapacity>();
  const tableNamed = (name: string) => {
    let table = tables.get(name);
    if (!table) {
      table = new TableCapacity(options.settings, clock());
      tables.set(name, table);
    }
    return table;
  };

  /** Admits the units of every table a request names, or none of them: the tables that refused. */
  const admitAll = (units: ReadonlyMap<string, number>, weight: number): Set<string> => {
    const now = clock();
    const admitted: [TableCapacity, number][] = [];
    const refused = new Set<string>();
    for (const [name, n] of units) {
      const table = tableNamed(name);
      if (table.admit(n * weight, now)) admitted.push([table, n * weight]);
      else refused.add(name);
    }
    if (refused.size > 0) for (const [table, n] of admitted) table.charge(-n, now);
    return refused;
  };

  const send = (req: IncomingMessage, res: ServerResponse, body: Buffer, onBody?: (bytes: number) => void) => {
    const upstream = forward(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host, 'content-length': String(body.length) },
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        let bytes = 0;
        answer.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          res.write(chunk);
        });
        answer.on('end', () => {
          res.end();
          onBody?.(bytes);
        });
      },
    );
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`DynamoDB Local did not answer: ${error.message}`);
    });
    upstream.end(body);
  };

  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
      if (!WRITES.has(operation) && !READS.has(operation) && !PAGED_READS.has(operation)) return send(req, res, body);
      let input: Json;
      try {
        input = JSON.parse(body.toString('utf8')) as Json;
      } catch {
        return send(req, res, body);
      }
      const paged = PAGED_READS.has(operation);
      const units = WRITES.has(operation)
        ? writeUnitsOf(operation, input)
        : paged
          ? new Map([[String(input.TableName), 0.5]])
          : readUnitsOf(operation, input);
      const weight = WRITES.has(operation) ? 1 : READ_UNIT_WEIGHT;
      const refused = admitAll(units, weight);
      if (refused.size > 0) {
        res.writeHead(400, {
          'content-type': 'application/x-amz-json-1.0',
          'x-amzn-requestid': `capacity-${clock()}`,
        });
        res.end(JSON.stringify(throttlingBody(operation, input, refused, options.region)));
        return;
      }
      if (!paged) return send(req, res, body);
      // A Query or Scan is priced by what it read: charged once answered (beyond the half unit taken).
      send(req, res, body, (bytes) =>
        tableNamed(String(input.TableName)).charge((responseReadUnits(input, bytes) - 0.5) * READ_UNIT_WEIGHT, clock()),
      );
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`capacity proxy: ${String(error)}`);
    });
  });

  const report = setInterval(() => {
    const now = clock();
    for (const [name, table] of tables) {
      const totals = table.takeTotals();
      if (totals.admitted + totals.throttled === 0) continue;
      const seconds = REPORT_EVERY_MS / 1000;
      const used = totals.units / seconds;
      const budget = table.budget(now);
      options.say(
        `Capacity: table ${name} used ${Math.round(used)} of ${Math.round(budget)} WRU/s over ${seconds} s ` +
          `(${Math.round((100 * used) / budget)} %), ${totals.throttled} of ${totals.throttled + totals.admitted} requests throttled`,
      );
    }
  }, REPORT_EVERY_MS);
  report.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: async () => {
      clearInterval(report);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
