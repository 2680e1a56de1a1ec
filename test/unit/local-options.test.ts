import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAwsEndpoint } from '#functions/shared/clients.js';
import { type LocalOptions, OptionsError, parseCommand } from '../../bin/local/options.js';

function options(env: Record<string, string>, argv: string[] = []): LocalOptions {
  const command = parseCommand(argv, env, '/work');
  if (command.help) throw new Error('help');
  return command.options;
}

function refusal(env: Record<string, string>, argv: string[] = []): string {
  try {
    options(env, argv);
  } catch (error) {
    if (error instanceof OptionsError) return error.message;
    throw error;
  }
  throw new Error('accepted');
}

describe('DYNAMODB_ENDPOINT', () => {
  it('unset: the bundled DynamoDB Local, with its data directory', () => {
    const o = options({});
    expect(o.dynamodbEndpoint).toBeUndefined();
    expect(o.dataDir).toBe('/work/.data');
  });

  it('a DynamoDB Local container: no data directory of its own, tables created (not AWS)', () => {
    const o = options({ DYNAMODB_ENDPOINT: 'http://localhost:8000/' });
    expect(o.dynamodbEndpoint).toEqual({ url: 'http://localhost:8000', aws: false });
    expect(o.dataDir).toBeUndefined();
    expect(o.region).toBe('us-east-1');
  });

  it("a region's endpoint: AWS, its region taken from the host name", () => {
    const o = options({ DYNAMODB_ENDPOINT: 'https://dynamodb.eu-west-1.amazonaws.com' });
    expect(o.dynamodbEndpoint).toEqual({ url: 'https://dynamodb.eu-west-1.amazonaws.com', aws: true });
    expect(o.region).toBe('eu-west-1');
    expect(options({ DYNAMODB_ENDPOINT: 'https://dynamodb-fips.us-gov-west-1.amazonaws.com' }).region).toBe(
      'us-gov-west-1',
    );
    expect(refusal({ DYNAMODB_ENDPOINT: 'https://dynamodb.eu-west-1.amazonaws.com', AWS_REGION: 'us-east-1' })).toBe(
      "AWS_REGION is 'us-east-1' but DYNAMODB_ENDPOINT is the endpoint of 'eu-west-1': set one region",
    );
  });

  it('refuses what only applies to the bundled DynamoDB Local', () => {
    expect(refusal({ DYNAMODB_ENDPOINT: 'http://localhost:8000' }, ['--in-memory'])).toMatch(
      /^--in-memory applies to the bundled DynamoDB Local/,
    );
    expect(refusal({ DYNAMODB_ENDPOINT: 'http://localhost:8000', DYNAMODB_PORT: '8001' })).toMatch(
      /^DYNAMODB_PORT applies to the bundled DynamoDB Local/,
    );
  });

  it('refuses anything but an http(s) URL, naming the variable; what does not parse is not echoed', () => {
    const prefix = 'DYNAMODB_ENDPOINT must be an http(s) URL such as http://localhost:8000, got ';
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }).filter((s) => s.trim() !== '' && !/^https?:\/\/[^/\s]/i.test(s.trim())),
        (value) => {
          const message = refusal({ DYNAMODB_ENDPOINT: value });
          if (URL.canParse(value.trim())) expect(message.startsWith(prefix)).toBe(true);
          else expect(message).toBe(`${prefix}'<unparseable URL>'`);
        },
      ),
    );
    expect(refusal({ DYNAMODB_ENDPOINT: 'localhost:8000' })).toBe(`${prefix}'localhost:8000'`);
  });

  it('property: a user name, password or query in the URL is never in a message', () => {
    const secret = fc.string({ unit: 'grapheme', minLength: 6, maxLength: 20 });
    fc.assert(
      fc.property(secret, secret, secret, fc.constantFrom('ftp:', 'ws:', 'file:'), (user, password, token, scheme) => {
        const url = new URL(`${scheme}//example.com/x`);
        url.username = user;
        url.password = password;
        url.searchParams.set('token', token);
        url.hash = token;
        const message = refusal({ DYNAMODB_ENDPOINT: url.toString() });
        for (const value of [user, password, token, url.username, url.password, encodeURIComponent(token)]) {
          if (value !== '') expect(message).not.toContain(value);
        }
      }),
    );
  });
});

describe('isAwsEndpoint', () => {
  it("is true for AWS's own host names only", () => {
    expect(isAwsEndpoint('https://dynamodb.eu-west-1.amazonaws.com')).toBe(true);
    expect(isAwsEndpoint('https://dynamodb.cn-north-1.amazonaws.com.cn')).toBe(true);
    expect(isAwsEndpoint('http://localhost:8000')).toBe(false);
    expect(isAwsEndpoint('http://dynamodb:8000')).toBe(false);
    expect(isAwsEndpoint('http://amazonaws.com.evil.example')).toBe(false);
    expect(isAwsEndpoint('not a url')).toBe(false);
  });
});
