/**
 * Structured JSON logging to stdout (CloudWatch on AWS). Every record passes through `redact`,
 * so credentials (passwords, hashes, TOTP secrets, API keys) never reach a log line even when a
 * caller logs a whole object by mistake.
 */
type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Field names that hold credentials; `sessionId` is the dashboard's bearer credential (docs/dashboard.md). */
const SECRET_KEY_PATTERN =
  /pass(word)?|hash|secret|api[-_]?keys?|authorization|signer|token|totp|private[-_]?key|cookie|session[-_]?id/i;
const REDACTED = '[redacted]';

/** Returns a deep copy of `value` with every credential-looking field replaced by a marker. */
function redact(value: unknown, depth = 0): unknown {
  if (depth > 8) return '[truncated]';
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value instanceof Error) {
    return { name: value.name, message: value.message, stack: value.stack };
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = SECRET_KEY_PATTERN.test(k) ? REDACTED : redact(v, depth + 1);
    }
    return out;
  }
  return value;
}

function threshold(): number {
  const configured = (process.env.LOG_LEVEL ?? 'info').toLowerCase() as Level;
  return ORDER[configured] ?? ORDER.info;
}

export type LogSink = (line: string) => void;
let sink: LogSink = (line) => process.stdout.write(`${line}\n`);

/**
 * Tests capture log output through this to prove no credential is ever written.
 * @internal Exported for the tests, which capture the log to prove no credential is written.
 */
export function setLogSink(next: LogSink): LogSink {
  const previous = sink;
  sink = next;
  return previous;
}

function write(level: Level, message: string, fields?: Record<string, unknown>): void {
  if (ORDER[level] < threshold()) return;
  const record = { level, time: new Date().toISOString(), message, ...(fields ? (redact(fields) as object) : {}) };
  sink(JSON.stringify(record));
}

export const logger = {
  debug: (message: string, fields?: Record<string, unknown>) => write('debug', message, fields),
  info: (message: string, fields?: Record<string, unknown>) => write('info', message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write('warn', message, fields),
  error: (message: string, fields?: Record<string, unknown>) => write('error', message, fields),
};
