/**
 * The API-keys secret read through the AWS Parameters and Secrets Lambda Extension, against a real
 * HTTP server on an ephemeral port standing where the extension listens (its port variable).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { loadBaseConfig } from '#functions/config/base.js';
import {
  EXTENSION_PORT_ENV,
  EXTENSION_TOKEN_HEADER,
  SecretsExtensionError,
  secretsExtensionFetcher,
} from '#functions/config/secrets-manager-extension.js';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:auth-core/api-keys&x=1-AbC123';
const TOKEN = 'IQoJb3JpZ2luX2VjEXAMPLE-session-token/+=';
const KEYS = 'key-one-aaaaaaaaaaaaaaaaaaaa,key-two-bbbbbbbbbbbbbbbbbbbb';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface Extension {
  readonly port: number;
  readonly requests: { url: string; token: string | undefined; method: string }[];
  handler: Handler;
  close(): Promise<void>;
}

const servers: Server[] = [];

async function listen(server: Server, port = 0): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, 'localhost', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

async function startExtension(handler: Handler, port = 0): Promise<Extension> {
  const requests: Extension['requests'] = [];
  const extension = {
    port: 0,
    requests,
    handler,
    close: () => closeServer(server),
  };
  const server = createServer((req, res) => {
    const token = req.headers[EXTENSION_TOKEN_HEADER.toLowerCase()];
    requests.push({
      url: req.url ?? '',
      token: typeof token === 'string' ? token : undefined,
      method: req.method ?? '',
    });
    extension.handler(req, res);
  });
  extension.port = await listen(server, port);
  return extension;
}

/** A port nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await closeServer(server);
  return port;
}

const json =
  (status: number, body: unknown): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };

const secretValue = (secretString: string) =>
  json(200, {
    ARN,
    Name: 'auth-core/api-keys',
    SecretString: secretString,
    VersionId: 'v1',
    VersionStages: ['AWSCURRENT'],
  });

const envFor = (port: number) => ({ [EXTENSION_PORT_ENV]: String(port), AWS_SESSION_TOKEN: TOKEN });

const rejection = (promise: Promise<unknown>): Promise<Error> =>
  promise.then(
    () => Promise.reject(new Error('expected a rejection')),
    (error: unknown) => error as Error,
  );

/** Every message of an error and its causes. */
function messages(error: unknown): string[] {
  const out: string[] = [];
  for (let e: unknown = error; e instanceof Error; e = e.cause) out.push(e.message, String(e.stack));
  return out;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => (s.listening ? closeServer(s) : undefined)));
});

describe('secretsExtensionFetcher', () => {
  it("returns the secret's SecretString, asking with the secret id and the session token header", async () => {
    const extension = await startExtension(secretValue(KEYS));
    const fetchSecret = secretsExtensionFetcher({ env: envFor(extension.port) });
    expect(await fetchSecret(ARN)).toBe(KEYS);
    expect(extension.requests).toHaveLength(1);
    const [request] = extension.requests;
    expect(request?.method).toBe('GET');
    expect(request?.token).toBe(TOKEN);
    const url = new URL(request?.url ?? '', 'http://localhost');
    expect(url.pathname).toBe('/secretsmanager/get');
    expect(url.searchParams.get('secretId')).toBe(ARN);
    expect([...url.searchParams.keys()]).toEqual(['secretId']);
  });

  it('is what loadBaseConfig uses by default: the secret becomes api_keys, beating API_KEYS', async () => {
    const extension = await startExtension(secretValue(` ${KEYS} `));
    const base = await loadBaseConfig({
      env: { ...envFor(extension.port), API_KEYS: 'other-key-cccccccccccccccccccc', API_KEYS_SECRET_ARN: ARN },
      file: {},
    });
    expect(base).toEqual({ api_keys: KEYS });
    expect(extension.requests.map((r) => r.token)).toEqual([TOKEN]);
  });

  it('asks nothing when no secret is configured', async () => {
    const extension = await startExtension(secretValue(KEYS));
    expect(await loadBaseConfig({ env: envFor(extension.port), file: {} })).toEqual({});
    expect(extension.requests).toEqual([]);
  });

  it('names the status of a 4xx or 5xx answer, never its body', async () => {
    for (const status of [400, 403, 404, 500, 502]) {
      const extension = await startExtension(
        json(status, `AccessDeniedException: not authorized for ${ARN}; token ${TOKEN}; ${KEYS}`),
      );
      const error = await rejection(
        loadBaseConfig({ env: { ...envFor(extension.port), API_KEYS_SECRET_ARN: ARN }, file: {} }),
      );
      expect(error.message).toBe(
        `could not read the secret named by API_KEYS_SECRET_ARN (the AWS Parameters and Secrets Lambda Extension answered HTTP ${status})`,
      );
      for (const text of messages(error)) {
        expect(text).not.toContain(KEYS);
        expect(text).not.toContain(TOKEN);
      }
      // An HTTP answer is not retried: the next request's load asks again.
      expect(extension.requests).toHaveLength(1);
      await extension.close();
    }
  });

  it('treats an answer without a SecretString (a binary secret) as a secret with no string value', async () => {
    const extension = await startExtension(json(200, { ARN, Name: 'n', SecretBinary: 'AAEC', VersionId: 'v1' }));
    const error = await rejection(
      loadBaseConfig({ env: { ...envFor(extension.port), API_KEYS_SECRET_ARN: ARN }, file: {} }),
    );
    expect(error.message).toBe('Invalid base config: the secret named by API_KEYS_SECRET_ARN has no string value');
    extension.handler = json(200, { ARN, SecretString: 42 });
    expect(await secretsExtensionFetcher({ env: envFor(extension.port) })(ARN)).toBeUndefined();
  });

  it('refuses a body that is not JSON without quoting it', async () => {
    const extension = await startExtension(json(200, `{"SecretString":"${KEYS}"`));
    const error = await rejection(secretsExtensionFetcher({ env: envFor(extension.port) })(ARN));
    expect(error).toBeInstanceOf(SecretsExtensionError);
    expect(error.message).toBe('the AWS Parameters and Secrets Lambda Extension answered with a body that is not JSON');
    expect(error.cause).toBeUndefined();
    expect(messages(error).join('\n')).not.toContain('key-one');
  });

  it('retries a refused connection while the extension starts, then reads the secret', async () => {
    const port = await freePort();
    const fetchSecret = secretsExtensionFetcher({ env: envFor(port), retryDelaysMs: [150, 150, 150, 150, 150] });
    const reading = fetchSecret(ARN);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const extension = await startExtension(secretValue(KEYS), port);
    expect(await reading).toBe(KEYS);
    expect(extension.requests).toHaveLength(1);
  });

  it('gives up after its bounded retries when the extension never listens', async () => {
    const port = await freePort();
    const error = await rejection(secretsExtensionFetcher({ env: envFor(port), retryDelaysMs: [10, 10] })(ARN));
    expect(error).toBeInstanceOf(SecretsExtensionError);
    expect(error.message).toBe('the AWS Parameters and Secrets Lambda Extension was not reachable after 3 attempts');
    const base = await rejection(loadBaseConfig({ env: { ...envFor(port), API_KEYS_SECRET_ARN: ARN }, file: {} }));
    expect(base.message).toMatch(
      /^could not read the secret named by API_KEYS_SECRET_ARN \(the AWS Parameters and Secrets Lambda Extension was not reachable after \d+ attempts\)$/,
    );
  });

  it('stops waiting for an extension that accepts the request but does not answer', async () => {
    const extension = await startExtension(() => {
      // never answers
    });
    const error = await rejection(secretsExtensionFetcher({ env: envFor(extension.port), timeoutMs: 200 })(ARN));
    expect(error.message).toBe('the AWS Parameters and Secrets Lambda Extension did not answer within 200 ms');
    expect(extension.requests).toHaveLength(1);
  });

  it('asks nothing without a session token, and refuses a port that is not one', async () => {
    const extension = await startExtension(secretValue(KEYS));
    const noToken = await rejection(
      secretsExtensionFetcher({ env: { [EXTENSION_PORT_ENV]: String(extension.port) } })(ARN),
    );
    expect(noToken.message).toBe('AWS_SESSION_TOKEN is not set: the extension refuses requests without it');
    for (const port of ['0', '65536', '27x3', '-1']) {
      const bad = await rejection(
        secretsExtensionFetcher({ env: { ...envFor(extension.port), [EXTENSION_PORT_ENV]: port } })(ARN),
      );
      expect(bad.message).toBe('PARAMETERS_SECRETS_EXTENSION_HTTP_PORT must be a port number (1-65535)');
    }
    expect(extension.requests).toEqual([]);
  });

  it('returns any secret string exactly, and no failure message holds it or the token', async () => {
    const extension = await startExtension(secretValue(KEYS));
    const fetchSecret = secretsExtensionFetcher({ env: envFor(extension.port) });
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 200, unit: 'grapheme' }),
        fc.integer({ min: 201, max: 599 }),
        async (secret, status) => {
          extension.handler = secretValue(secret);
          expect(await fetchSecret(ARN)).toBe(secret);
          extension.handler = json(status, `${secret} ${TOKEN}`);
          const failed = await rejection(fetchSecret(ARN));
          for (const text of messages(failed)) {
            if (secret.length > 3) expect(text).not.toContain(secret);
            expect(text).not.toContain(TOKEN);
          }
          extension.handler = json(200, `${secret}{`);
          const garbled = await rejection(fetchSecret(ARN));
          if (secret.length > 3) for (const text of messages(garbled)) expect(text).not.toContain(secret);
        },
      ),
      { numRuns: 40 },
    );
  });
});
