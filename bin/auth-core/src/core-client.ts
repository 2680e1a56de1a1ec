/**
 * The command's only way to the core: HTTP, with the API key in the `api-key` header, gzipped staging
 * bodies, and retries with exponential backoff (and `Retry-After`) on 429, 502, 503, 504, 409 (an
 * Idempotency-Key still being processed), timeouts and lost connections.
 */
import { credentialFingerprint } from './contract.js';
import { CliError, coreError, EXIT, usageError } from './errors.js';
import { displayUrl, excerpt, registerSecret, UNPARSEABLE_URL } from './redact.js';
import { transportDecision } from './transport.js';

/** The core's URL taken apart: where requests go, what may be shown, and the credentials it carried. */
export interface CoreEndpoint {
  /** Origin and path prefix, no trailing slash: request paths are appended to it. */
  readonly base: string;
  /** The query string (without `?`) sent with every request, or '' (a gateway may want a token there). */
  readonly query: string;
  /** `Basic …` from the URL's user name and password (fetch refuses a URL that holds them). */
  readonly authorization: string | undefined;
  /** The URL as it may be shown: no user name, password, query string or fragment. */
  readonly shown: string;
  /** Set when the URL is `http:` off this machine and `--allow-insecure-http` allowed it (transport.ts). */
  readonly insecureWarning: string | undefined;
}

function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * Parses the core's URL (`--core`, `AUTH_CORE_URL`) with the WHATWG URL parser. Its user name,
 * password and query values are registered as secrets (never printed, even if a server echoes them).
 * A URL that does not parse, or is not http(s), is refused (exit 2) without being echoed; so is
 * `http:` to a host that is not loopback, unless `allowInsecureHttp` (transport.ts).
 */
export function coreEndpoint(raw: string, allowInsecureHttp = false): CoreEndpoint {
  const what = "the core's URL (--core or AUTH_CORE_URL)";
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(`${what} does not parse as a URL: ${UNPARSEABLE_URL} (not shown: it may hold a credential)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usageError(`${what} must be an http or https URL, got ${displayUrl(raw)}`);
  }
  const user = decoded(url.username);
  const password = decoded(url.password);
  for (const secret of [url.username, url.password, user, password]) registerSecret(secret);
  const { warning } = transportDecision(url, displayUrl(raw), allowInsecureHttp);
  for (const [, value] of url.searchParams) registerSecret(value);
  for (const secret of [url.search.slice(1), url.hash.slice(1)]) registerSecret(secret);
  const authorization =
    url.username === '' && url.password === ''
      ? undefined
      : `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
  return {
    base: `${url.origin}${url.pathname.replace(/\/+$/, '')}`,
    query: url.search.slice(1),
    authorization,
    shown: displayUrl(raw),
    insecureWarning: warning,
  };
}

/** No answer from the core after the request's attempts: a timeout, a refused or lost connection (exit 3). */
export class UnreachableError extends CliError {
  constructor(message: string) {
    super(message, EXIT.core);
    this.name = 'UnreachableError';
  }
}

export interface CoreReply {
  readonly status: number;
  readonly text: string;
  readonly json: unknown;
  readonly headers: Headers;
}

export interface CoreClientOptions {
  readonly url: string;
  readonly apiKey?: string;
  readonly appId: string;
  /** `--allow-insecure-http`: accept `http:` to a host that is not loopback (with a warning). */
  readonly allowInsecureHttp?: boolean;
  /** Attempts per request before giving up (default 8: seven jittered sleeps of 0.25–30 s, 31–62 s in all, plus the requests' own time). */
  readonly attempts?: number;
  /** First backoff delay in ms (default 500), doubled each attempt up to `maxDelayMs`. */
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  /** Per-request timeout in ms (default 120 s: staging 10,000 users takes tens of seconds). */
  readonly timeoutMs?: number;
  /** Told about every retry (status or error, attempt, delay). */
  readonly onRetry?: (what: string, attempt: number, delayMs: number) => void;
}

export interface RequestOptions {
  readonly body?: Buffer | string;
  readonly gzip?: boolean;
  readonly headers?: Record<string, string>;
  /** Whether this request may be retried (false for the first reachability check). */
  readonly attempts?: number;
}

/** Answers that mean "not now": the same request may be sent again. */
const RETRY_STATUSES: ReadonlySet<number> = new Set([409, 429, 502, 503, 504]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class CoreClient {
  private readonly endpoint: CoreEndpoint;

  /**
   * Throws a usage error (exit 2) for a URL that does not parse, is not http(s), or is `http:` to a
   * host that is not loopback without `allowInsecureHttp` — before any request is made.
   */
  constructor(readonly options: CoreClientOptions) {
    this.endpoint = coreEndpoint(options.url, options.allowInsecureHttp === true);
  }

  /** The core's URL as it may be shown (no user name, password, query string or fragment). */
  get shownUrl(): string {
    return this.endpoint.shown;
  }

  /** The warning every run shows when `--allow-insecure-http` let `http:` go off this machine. */
  get insecureWarning(): string | undefined {
    return this.endpoint.insecureWarning;
  }

  /** The URL a request for `path` (which may have its own query) goes to. */
  private urlFor(path: string): string {
    const { base, query } = this.endpoint;
    if (query === '') return `${base}${path}`;
    return `${base}${path}${path.includes('?') ? '&' : '?'}${query}`;
  }

  /** Path of an app-specific API: `/appid-<app>[/<tenant>]<path>`. */
  appPath(path: string, tenantId?: string): string {
    const app = encodeURIComponent(this.options.appId);
    return tenantId === undefined ? `/appid-${app}${path}` : `/appid-${app}/${encodeURIComponent(tenantId)}${path}`;
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<CoreReply> {
    const attempts = options.attempts ?? this.options.attempts ?? 8;
    const baseDelay = this.options.baseDelayMs ?? 500;
    const maxDelay = this.options.maxDelayMs ?? 30_000;
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (this.options.apiKey) headers['api-key'] = this.options.apiKey;
    if (this.endpoint.authorization) headers.authorization = this.endpoint.authorization;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json; charset=utf-8';
      if (options.gzip) headers['content-encoding'] = 'gzip';
    }
    for (let attempt = 1; ; attempt++) {
      let what: string;
      let retryAfterMs: number | undefined;
      try {
        const url = this.urlFor(path);
        const response = await fetch(url, {
          method,
          headers,
          body: options.body,
          // A redirect is not followed: fetch would send the api-key header to wherever it points.
          redirect: 'manual',
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 120_000),
        });
        if (response.status >= 300 && response.status < 400) {
          await response.body?.cancel();
          const location = response.headers.get('location');
          const target =
            location === null
              ? 'nowhere'
              : URL.canParse(location, url)
                ? displayUrl(new URL(location, url).toString())
                : UNPARSEABLE_URL;
          throw coreError(
            `the core at ${this.shownUrl} answered ${method} ${stripQuery(path)} with ${response.status}, a redirect to ${target}: ` +
              'give the address of the core itself as --core (redirects are not followed: the API key would go along)',
          );
        }
        const text = await response.text();
        if (!RETRY_STATUSES.has(response.status) || attempt >= attempts) {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          return { status: response.status, text: text.replace(/\n$/, ''), json, headers: response.headers };
        }
        what = `${response.status} ${excerpt(text.trim(), 200)}`;
        const retryAfter = Number(response.headers.get('retry-after'));
        if (Number.isFinite(retryAfter) && retryAfter > 0) retryAfterMs = Math.min(retryAfter * 1000, maxDelay);
      } catch (error) {
        if (error instanceof CliError) throw error;
        what = describeFetchError(error);
        if (attempt >= attempts) {
          throw new UnreachableError(
            `the core at ${this.shownUrl} is unreachable (${method} ${stripQuery(path)}: ${what})`,
          );
        }
      }
      const backoff = Math.min(maxDelay, baseDelay * 2 ** (attempt - 1));
      const delay = retryAfterMs ?? Math.round(backoff / 2 + Math.random() * (backoff / 2));
      this.options.onRetry?.(what, attempt, delay);
      await sleep(delay);
    }
  }

  /** Fails with exit 3 on a refused key or a missing app; otherwise returns the reply. */
  checked(reply: CoreReply, what: string): CoreReply {
    if (reply.status === 401) throw coreError(`the core at ${this.shownUrl} refused the API key (401 ${reply.text})`);
    if (reply.status === 400 && reply.text.startsWith('AppId or tenantId not found')) {
      throw coreError(`the app ${this.options.appId} does not exist on the core at ${this.shownUrl} (${reply.text})`);
    }
    if (reply.status >= 500) throw coreError(`${what}: the core answered ${reply.status} ${excerpt(reply.text, 300)}`);
    return reply;
  }
}

function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'timed out';
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? error.message;
}

function stripQuery(path: string): string {
  return path.replace(/\?.*$/, '');
}

/** Whether a value shown by the core (fingerprint, or the value itself on older cores) is `value`. */
export function sameCredential(shown: unknown, value: string): boolean {
  if (typeof shown !== 'string') return false;
  return shown === value || shown === credentialFingerprint(value);
}
