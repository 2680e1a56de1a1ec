import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { envVariableName } from '#functions/config/registry.js';
import { isAwsEndpoint } from '#functions/shared/clients.js';
import {
  IN_MEMORY_FEATURE_VARIABLES,
  inMemoryFeatureEnv,
  type LocalOptions,
  OptionsError,
  parseCommand,
} from '../../bin/local/options.js';
import { functionTimeoutSeconds, LOCAL_FUNCTION_TIMEOUT_ENV } from '../../bin/local/timeouts.js';
import { DEFAULT_ROUTE_TIMEOUT_SECONDS } from '../../lib/constants.js';

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

describe('ALLOWED_HOSTS', () => {
  it('unset: no extra host', () => {
    expect(options({}).allowedHosts).toEqual([]);
  });

  it('takes names and addresses, each with an optional port', () => {
    expect(options({ ALLOWED_HOSTS: ' core.internal, core:8080,[::1]:3567 ,10.0.0.5' }).allowedHosts).toEqual([
      'core.internal',
      'core:8080',
      '[::1]:3567',
      '10.0.0.5',
    ]);
  });

  it.each(['http://core.internal', 'core internal', 'core/x', '*.example.com', 'core:port'])(
    'refuses %s, naming the variable',
    (entry) => {
      expect(refusal({ ALLOWED_HOSTS: entry })).toBe(
        `ALLOWED_HOSTS must list host names or addresses, each optionally with :port (e.g. core.internal,core.internal:8080), got '${entry.trim()}'`,
      );
    },
  );
});

describe('function timeouts', () => {
  it('a route without its own timeout runs at most the stack default (10 s), others their own', () => {
    expect(functionTimeoutSeconds(undefined, {})).toBe(DEFAULT_ROUTE_TIMEOUT_SECONDS);
    expect(DEFAULT_ROUTE_TIMEOUT_SECONDS).toBe(10);
    expect(functionTimeoutSeconds(29, {})).toBe(29);
    expect(functionTimeoutSeconds(300, {})).toBe(300);
  });

  it('LOCAL_FUNCTION_TIMEOUT_SECONDS caps every function, and says so in the options', () => {
    const env = { [LOCAL_FUNCTION_TIMEOUT_ENV]: '15' };
    expect(functionTimeoutSeconds(undefined, env)).toBe(10);
    expect(functionTimeoutSeconds(60, env)).toBe(15);
    expect(options(env).functionTimeoutCap).toBe(15);
    expect(options({}).functionTimeoutCap).toBeUndefined();
  });

  it.each(['14', '0', '-1', '1.5', 'ten', '901'])('refuses LOCAL_FUNCTION_TIMEOUT_SECONDS=%s', (value) => {
    expect(refusal({ [LOCAL_FUNCTION_TIMEOUT_ENV]: value })).toBe(
      `LOCAL_FUNCTION_TIMEOUT_SECONDS must be a whole number of seconds from 15 to 900, got '${value}'`,
    );
  });
});

describe('--in-memory: the features the reference turns on for its in-memory database', () => {
  it('names the environment variables of the two feature switches', () => {
    expect(IN_MEMORY_FEATURE_VARIABLES).toEqual(
      ['account_linking_enabled', 'mfa_enabled', 'oauth_provider_enabled'].map(envVariableName),
    );
  });

  it('defaults ACCOUNT_LINKING_ENABLED, MFA_ENABLED and OAUTH_PROVIDER_ENABLED to true when the environment leaves them unset', () => {
    expect(inMemoryFeatureEnv(options({}, ['--in-memory']), {})).toEqual({
      ACCOUNT_LINKING_ENABLED: 'true',
      MFA_ENABLED: 'true',
      OAUTH_PROVIDER_ENABLED: 'true',
    });
    expect(inMemoryFeatureEnv(options({}, ['--in-memory']), { MFA_ENABLED: '' })).toEqual({
      ACCOUNT_LINKING_ENABLED: 'true',
      MFA_ENABLED: 'true',
      OAUTH_PROVIDER_ENABLED: 'true',
    });
  });

  it('leaves a switch the environment sets, whatever its value', () => {
    expect(inMemoryFeatureEnv(options({}, ['--in-memory']), { MFA_ENABLED: 'false' })).toEqual({
      ACCOUNT_LINKING_ENABLED: 'true',
      OAUTH_PROVIDER_ENABLED: 'true',
    });
  });

  it('adds nothing for persisted data or an external DynamoDB', () => {
    expect(inMemoryFeatureEnv(options({}), {})).toEqual({});
    expect(inMemoryFeatureEnv(options({ DYNAMODB_ENDPOINT: 'http://localhost:8000' }), {})).toEqual({});
  });
});
