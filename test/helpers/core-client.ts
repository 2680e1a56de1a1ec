import { gzipSync } from 'node:zlib';
import { ROUTES } from '#functions/routes.js';
import { createRouter, dispatch } from '../../bin/local/dispatch.js';
import { jsonOr } from './json.js';

const router = createRouter(ROUTES);

export interface CoreReply {
  readonly status: number;
  readonly text: string;
  readonly contentType: string;
  /** Response headers (lower-case names). */
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed body when it is JSON, else undefined. */
  readonly json: any;
}

export interface CallOptions {
  readonly body?: unknown;
  /** Sent verbatim instead of JSON-encoding `body`. */
  readonly rawBody?: string | Buffer;
  readonly headers?: Record<string, string>;
  readonly gzip?: boolean;
}

/**
 * Calls the core in-process through the same router and handlers the local runtime serves, so
 * handler-level integration tests exercise the real middleware chain against DynamoDB Local.
 */
export async function call(method: string, url: string, options: CallOptions = {}): Promise<CoreReply> {
  let body: Buffer | undefined;
  if (options.rawBody !== undefined) body = Buffer.from(options.rawBody);
  else if (options.body !== undefined) body = Buffer.from(JSON.stringify(options.body));
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (body && options.gzip) {
    body = gzipSync(body);
    headers['content-encoding'] = 'gzip';
  }
  if (body && !headers['content-type']) headers['content-type'] = 'application/json; charset=utf-8';
  const result = await dispatch(router, { method, url, headers, body });
  const contentType = result.headers['content-type'] ?? '';
  return {
    status: result.statusCode,
    text: result.body.replace(/\n$/, ''),
    contentType,
    json: jsonOr(result.body),
    headers: result.headers,
  };
}

/** Creates (or updates) app `appId` with `coreConfig`, then its `tenants`; throws on any answer but 200. */
export async function createAppWith(
  appId: string,
  coreConfig: Record<string, unknown> = {},
  tenants: readonly string[] = [],
): Promise<void> {
  const puts: [string, unknown][] = [
    ['/recipe/multitenancy/app/v2', { appId, coreConfig }],
    ...tenants.map((tenantId): [string, unknown] => [`/appid-${appId}/recipe/multitenancy/tenant/v2`, { tenantId }]),
  ];
  for (const [url, body] of puts) {
    const reply = await call('PUT', url, { body });
    if (reply.status !== 200) throw new Error(`PUT ${url} → ${reply.status}: ${reply.text}`);
  }
}

/** A fresh, collision-free app id for one test file. */
export function uniqueAppId(prefix = 'app'): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
}
