/**
 * The log (functions/shared/logger.ts, Powertools Logger with the project's formatter): one JSON
 * line per record in the shape the runbooks read, `LOG_LEVEL` obeyed at once, and no credential
 * ever written, wherever it sits in what a caller logs.
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { logger, setLogSink } from '#functions/shared/logger.js';

let lines: string[] = [];
let previousSink: ((line: string) => void) | undefined;
let previousLevel: string | undefined;
beforeEach(() => {
  lines = [];
  previousSink = setLogSink((line) => lines.push(line));
  previousLevel = process.env.LOG_LEVEL;
});
afterEach(() => {
  if (previousSink) setLogSink(previousSink);
  if (previousLevel === undefined) delete process.env.LOG_LEVEL;
  else process.env.LOG_LEVEL = previousLevel;
});

const records = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

describe('the logger', () => {
  it('writes one JSON line per record: level in lower case, time, message, then the fields', () => {
    process.env.LOG_LEVEL = 'info';
    logger.warn('staged user will be retried', { messageId: 'm-1', count: 2, nothing: null });
    expect(lines).toHaveLength(1);
    const [record] = records();
    expect(Object.keys(record ?? {})).toEqual(['level', 'time', 'message', 'messageId', 'count', 'nothing']);
    expect(record).toMatchObject({ level: 'warn', message: 'staged user will be retried', messageId: 'm-1' });
    expect(new Date(record?.time as string).toISOString()).toBe(record?.time);
  });

  it('obeys LOG_LEVEL as soon as it changes; anything but debug, info, warn or error means info', () => {
    const levels = (setting: string | undefined) => {
      if (setting === undefined) delete process.env.LOG_LEVEL;
      else process.env.LOG_LEVEL = setting;
      lines = [];
      logger.debug('d');
      logger.info('i');
      logger.warn('w');
      logger.error('e');
      return records().map((r) => r.level);
    };
    expect(levels('debug')).toEqual(['debug', 'info', 'warn', 'error']);
    expect(levels('WARN')).toEqual(['warn', 'error']);
    expect(levels('error')).toEqual(['error']);
    expect(levels('verbose')).toEqual(['info', 'warn', 'error']);
    expect(levels(undefined)).toEqual(['info', 'warn', 'error']);
    expect(levels('debug')).toEqual(['debug', 'info', 'warn', 'error']);
  });

  it('writes an error as its name, message and stack', () => {
    logger.error('request failed', { error: new TypeError('boom') });
    expect(records()[0]?.error).toMatchObject({ name: 'TypeError', message: 'boom' });
  });

  it('never writes the value of a credential-named field, at any depth, in objects or arrays', () => {
    process.env.LOG_LEVEL = 'debug';
    const secretKey = fc.constantFrom(
      'password',
      'plainTextPassword',
      'passwordHash',
      'totpSecret',
      'secretKey',
      'apiKey',
      'api_keys',
      'authorization',
      'signerKey',
      'refreshToken',
      'privateKey',
      'cookie',
      'sessionId',
      'hookSecret',
    );
    const secret = fc.string({ minLength: 12 }).map((s) => `SECRET<${s}>`);
    const nested = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.tuple(secretKey, secret).map(([k, v]) => ({ [k]: v })),
        fc.tuple(fc.constantFrom('user', 'loginMethods', 'detail'), tie('node')).map(([k, v]) => ({ [k]: v })),
        fc.array(tie('node'), { maxLength: 3 }),
      ),
    })).node;
    fc.assert(
      fc.property(nested, fc.constantFrom('debug', 'info', 'warn', 'error') as fc.Arbitrary<'info'>, (value, level) => {
        lines = [];
        logger[level]('a caller logged a whole object', { value });
        expect(lines.join('\n')).not.toContain('SECRET<');
      }),
    );
  });
});
