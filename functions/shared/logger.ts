/**
 * Structured JSON logging to stdout (CloudWatch on AWS), through AWS Powertools Logger. Three things
 * are this project's own, each a documented extension point of Powertools:
 *
 * - the record's shape (`RedactingFormatter`): `{ level, time, message, ...fields }`, level in lower
 *   case, as the runbooks, the local runtime's output and the tests read it;
 * - redaction: every record's fields pass through `redact` in that formatter, so credentials
 *   (passwords, hashes, TOTP secrets, API keys, signer keys, hook secrets) never reach a log line
 *   even when a caller logs a whole object by mistake (Powertools has no redaction of its own);
 * - where a line goes (`SinkLogger.printLog`): one sink, stdout for every level, that the tests swap
 *   to capture the log.
 *
 * The threshold is `LOG_LEVEL` (`debug`, `info`, `warn`, `error`; anything else is `info`), read at
 * every record as before, so a test or the local runtime that changes it is obeyed at once.
 */
import { LogFormatter, Logger, LogItem } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';

type Level = 'debug' | 'info' | 'warn' | 'error';
const LEVELS: readonly Level[] = ['debug', 'info', 'warn', 'error'];

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

/** The record's shape (see the module comment): every field is redacted here, whoever added it. */
class RedactingFormatter extends LogFormatter {
  override formatAttributes(attributes: UnformattedAttributes, additional: LogAttributes): LogItem {
    return new LogItem({
      attributes: {
        level: attributes.logLevel.toLowerCase(),
        time: attributes.timestamp.toISOString(),
        message: attributes.message,
        ...(redact(additional) as LogAttributes),
      },
    });
  }
}

export type LogSink = (line: string) => void;
let sink: LogSink = (line) => process.stdout.write(`${line}\n`);

/** Powertools Logger writing every level to {@link sink} (its own console splits stdout and stderr). */
class SinkLogger extends Logger {
  protected override printLog(_level: number, log: LogItem): void {
    sink(JSON.stringify(log.getAttributes(), this.getJsonReplacer()));
  }
}

/**
 * Tests capture log output through this to prove no credential is ever written.
 * @internal Exported for the tests, which capture the log to prove no credential is written.
 */
export function setLogSink(next: LogSink): LogSink {
  const previous = sink;
  sink = next;
  return previous;
}

function configuredLevel(): Level {
  const configured = (process.env.LOG_LEVEL ?? 'info').toLowerCase() as Level;
  return LEVELS.includes(configured) ? configured : 'info';
}

const powertools = new SinkLogger({
  logLevel: configuredLevel().toUpperCase() as Uppercase<Level>,
  logFormatter: new RedactingFormatter(),
});
let applied = configuredLevel();

/** Powertools' threshold follows `LOG_LEVEL` whenever it changes. */
function current(): Logger {
  const level = configuredLevel();
  if (level !== applied) {
    powertools.setLogLevel(level.toUpperCase() as Uppercase<Level>);
    applied = level;
  }
  return powertools;
}

export const logger = {
  debug: (message: string, fields?: Record<string, unknown>) => current().debug(message, fields ?? {}),
  info: (message: string, fields?: Record<string, unknown>) => current().info(message, fields ?? {}),
  warn: (message: string, fields?: Record<string, unknown>) => current().warn(message, fields ?? {}),
  error: (message: string, fields?: Record<string, unknown>) => current().error(message, fields ?? {}),
};
