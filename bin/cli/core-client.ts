/**
 * The command's only way to the core: HTTP, with the API key in the `api-key` header, gzipped staging
 * bodies, and retries with exponential backoff (and `Retry-After`) on 429, 502, 503, 504, 409 (an
 * Idempotency-Key still being processed), timeouts and lost connections.
 */
import { createHash } from 'node:crypto';
import { coreError } from './errors.js';
import { displayUrl, excerpt } from './redact.js';

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
  /** Attempts per request before giving up (default 8: ~2 minutes of backoff). */
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

const RETRY_STATUSES = new Set([409, 429, 502, 503, 504]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class CoreClient {
  readonly base: string;
  readonly shownUrl: string;

  constructor(readonly options: CoreClientOptions) {
    this.base = options.url.replace(/\/+$/, '');
    this.shownUrl = displayUrl(options.url);
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
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json; charset=utf-8';
      if (options.gzip) headers['content-encoding'] = 'gzip';
    }
    for (let attempt = 1; ; attempt++) {
      let what: string;
      let retryAfterMs: number | undefined;
      try {
        const response = await fetch(`${this.base}${path}`, {
          method,
          headers,
          body: options.body,
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 120_000),
        });
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
        what = describeFetchError(error);
        if (attempt >= attempts) {
          throw coreError(`the core at ${this.shownUrl} is unreachable (${method} ${stripQuery(path)}: ${what})`);
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

/**
 * The fingerprint the core shows for a configured credential (`sha256:` + the first 16 lowercase hex
 * digits of SHA-256 of its UTF-8 bytes).
 */
export function credentialFingerprint(value: string): string {
  return `sha256:${createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 16)}`;
}

/** Whether a value shown by the core (fingerprint, or the value itself on older cores) is `value`. */
export function sameCredential(shown: unknown, value: string): boolean {
  if (typeof shown !== 'string') return false;
  return shown === value || shown === credentialFingerprint(value);
}
