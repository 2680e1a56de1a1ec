/**
 * Reads a Secrets Manager secret through the AWS Parameters and Secrets Lambda Extension: a layer
 * (attached by lib/constructs/service-function.ts to the functions given the API-keys secret) that
 * serves `GET /secretsmanager/get?secretId=…` on localhost and makes the `GetSecretValue` call with
 * the function's own role. Node's global fetch is all the bundle needs: no SDK client.
 *
 * The extension answers during invocations only (not while the module is being initialised), which
 * is when the base config is loaded. Messages name the status or the failure, never a body, the
 * secret's value or the session token.
 */

/** The extension's port variable (its documented default is 2773). */
export const EXTENSION_PORT_ENV = 'PARAMETERS_SECRETS_EXTENSION_HTTP_PORT';
export const DEFAULT_EXTENSION_PORT = 2773;
/**
 * The header that must carry the function's session token (AWS_SESSION_TOKEN).
 * @internal Exported also for test/unit/secrets-manager-extension.test.ts, whose fake extension checks the header.
 */
export const EXTENSION_TOKEN_HEADER = 'X-Aws-Parameters-Secrets-Token';
const SESSION_TOKEN_ENV = 'AWS_SESSION_TOKEN';

/** A failure to read through the extension; the message never holds a response body. */
export class SecretsExtensionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SecretsExtensionError';
  }
}

export interface SecretsExtensionOptions {
  /** Defaults to `process.env` (read at each call). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Per attempt. @default 5000 */
  readonly timeoutMs?: number;
  /**
   * Waits before the attempts that follow a refused or reset connection (the extension's server
   * not listening yet); their count bounds the retries. @default [50, 100, 200]
   */
  readonly retryDelaysMs?: readonly number[];
}

const CONNECTION_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET']);

function connectionFailed(error: unknown): boolean {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === 'string' && CONNECTION_ERRORS.has(cause.code);
}

function portOf(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env[EXTENSION_PORT_ENV];
  if (raw === undefined || raw === '') return DEFAULT_EXTENSION_PORT;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 1 || port > 65535) {
    throw new SecretsExtensionError(`${EXTENSION_PORT_ENV} must be a port number (1-65535)`);
  }
  return port;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A fetcher of a secret's `SecretString` through the extension: `undefined` when the secret has
 * none (a binary secret). Retries only a connection the extension refused or reset, a bounded
 * number of times; any HTTP answer other than 200 is an error naming its status.
 */
export function secretsExtensionFetcher(
  options: SecretsExtensionOptions = {},
): (secretId: string) => Promise<string | undefined> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const retryDelaysMs = options.retryDelaysMs ?? [50, 100, 200];
  return async (secretId) => {
    const env = options.env ?? process.env;
    const token = env[SESSION_TOKEN_ENV];
    if (token === undefined || token === '') {
      throw new SecretsExtensionError(`${SESSION_TOKEN_ENV} is not set: the extension refuses requests without it`);
    }
    const url = `http://localhost:${portOf(env)}/secretsmanager/get?${new URLSearchParams({ secretId })}`;

    let response: Response | undefined;
    for (let attempt = 0; response === undefined; attempt++) {
      try {
        response = await fetch(url, {
          headers: { [EXTENSION_TOKEN_HEADER]: token },
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        const delay = retryDelaysMs[attempt];
        if (connectionFailed(error) && delay !== undefined) {
          await sleep(delay);
          continue;
        }
        const what =
          error instanceof Error && error.name === 'TimeoutError'
            ? `did not answer within ${timeoutMs} ms`
            : connectionFailed(error)
              ? `was not reachable after ${attempt + 1} attempts`
              : 'could not be asked';
        throw new SecretsExtensionError(`the AWS Parameters and Secrets Lambda Extension ${what}`, { cause: error });
      }
    }

    if (response.status !== 200) {
      // The body may quote the request; only the status is reported.
      await response.body?.cancel();
      throw new SecretsExtensionError(
        `the AWS Parameters and Secrets Lambda Extension answered HTTP ${response.status}`,
      );
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      // No cause: a JSON parser's message may quote the body, which holds the secret.
      throw new SecretsExtensionError(
        'the AWS Parameters and Secrets Lambda Extension answered with a body that is not JSON',
      );
    }
    const secretString =
      body !== null && typeof body === 'object' ? (body as { SecretString?: unknown }).SecretString : undefined;
    return typeof secretString === 'string' ? secretString : undefined;
  };
}
