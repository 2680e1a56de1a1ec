import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_GATEWAY_BODY_BYTES, LAMBDA_PAYLOAD_BYTES } from '#functions/http/body.js';
import { type DispatchResult, dispatch } from './dispatch.js';
import { localOnlyAnswer } from './openapi.js';
import { crossSiteRefusal, type RequestGuard, requestGuard } from './request-guard.js';
import type { RawRequest, Router } from './router.js';
import { ContextsBusyError, FunctionTimeoutError } from './timeouts.js';

/**
 * API Gateway HTTP API's request body limit. The same constants bound what the handlers decode
 * (functions/http/body.ts): a body as sent fits Lambda's payload limit, a gzipped one is capped
 * once inflated.
 */
const MAX_BODY_BYTES = API_GATEWAY_BODY_BYTES;
/** Lambda's synchronous invocation payload limit (the whole event, not just the body). */
const MAX_LAMBDA_PAYLOAD_BYTES = LAMBDA_PAYLOAD_BYTES;

const JSON_TYPE = 'application/json';
const TEXT_TYPE = 'text/plain; charset=utf-8';
const TOO_LARGE: DispatchResult = {
  statusCode: 413,
  headers: { 'content-type': JSON_TYPE },
  body: '{"message":"Request Entity Too Large"}',
};
const INTERNAL_ERROR: DispatchResult = {
  statusCode: 500,
  headers: { 'content-type': JSON_TYPE },
  body: '{"message":"Internal Server Error"}',
};
const UNAVAILABLE: DispatchResult = {
  statusCode: 503,
  headers: { 'content-type': JSON_TYPE },
  body: '{"message":"Service Unavailable"}',
};
/** Every worker thread of a CPU-bound route stayed busy (worker-pool.ts, ContextsBusyError). */
const BUSY: DispatchResult = { ...UNAVAILABLE, headers: { ...UNAVAILABLE.headers, 'retry-after': '1' } };

export interface LocalHttpServerOptions {
  /** A human-readable problem the runtime should print (never a request body). */
  readonly report: (message: string) => void;
  /** Host names besides the bound address that requests may name (ALLOWED_HOSTS, request-guard.ts). */
  readonly allowedHosts?: readonly string[];
}

export interface LocalHttpServer {
  readonly server: Server;
  /** Binds the port; rejects with the listen error (EADDRINUSE …). */
  listen(port: number, host: string): Promise<AddressInfo>;
  /** From now on requests are dispatched; those that arrived earlier were held until this call. */
  ready(router: Router): void;
  /** Stops accepting, lets requests in flight finish (up to `graceMs`), then drops the rest. */
  close(graceMs: number): Promise<void>;
}

class TooLargeError extends Error {}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolveBody, reject) => {
    // Over the limit: the rest is read and dropped before the 413 goes out. Answering (and closing)
    // while the client still sends would fail its request with EPIPE/ECONNRESET instead of a 413.
    let over = false;
    const tooLarge = () => {
      over = true;
      request.removeAllListeners('data');
      request.once('end', () => reject(new TooLargeError()));
      request.once('close', () => reject(new TooLargeError()));
      request.resume();
    };
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
      tooLarge();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        chunks.length = 0;
        tooLarge();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (!over) resolveBody(Buffer.concat(chunks));
    });
    request.on('error', reject);
  });
}

/**
 * The event's serialised size, as Lambda measures it: a body that would not fit the 6 MB limit
 * fails on AWS (send it with `Content-Encoding: gzip`), so it fails here too.
 */
function eventTooLarge(body: Buffer, headers: RawRequest['headers']): boolean {
  if (body.length < MAX_LAMBDA_PAYLOAD_BYTES / 2) return false;
  // An encoded body travels base64-encoded (4/3), a text body JSON-escaped (at least 1×).
  const encoded = headers['content-encoding'] !== undefined;
  const bodySize = encoded ? Math.ceil(body.length / 3) * 4 : Buffer.byteLength(JSON.stringify(body.toString('utf8')));
  return bodySize > MAX_LAMBDA_PAYLOAD_BYTES;
}

function send(response: ServerResponse, result: DispatchResult, requestId: string): void {
  if (response.headersSent || response.destroyed) return;
  const body = Buffer.from(result.body, 'utf8');
  response.writeHead(result.statusCode, {
    ...result.headers,
    'content-length': String(body.length),
    'apigw-requestid': requestId,
  });
  response.end(body);
}

export function createLocalHttpServer(options: LocalHttpServerOptions): LocalHttpServer {
  let router: Router | undefined;
  let markReady: () => void = () => undefined;
  const readyPromise = new Promise<void>((r) => {
    markReady = r;
  });
  let closing = false;
  let counter = 0;
  let guard: RequestGuard | undefined;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const requestId = `local-${Date.now().toString(36)}-${(counter++).toString(36)}`;
    // Cross-site use (a web page, DNS rebinding) is refused before anything else, body unread.
    const refusal = guard ? crossSiteRefusal(guard, request.headers) : 'Request refused: the core is not listening yet';
    if (refusal !== undefined) {
      request.resume();
      response.setHeader('connection', 'close');
      send(response, { statusCode: 403, headers: { 'content-type': TEXT_TYPE }, body: `${refusal}\n` }, requestId);
      return;
    }
    let body: Buffer;
    try {
      body = await readBody(request);
    } catch (error) {
      if (error instanceof TooLargeError) {
        options.report(`${request.method} ${request.url}: request body over 10 MB (API Gateway's limit) → 413`);
        response.setHeader('connection', 'close');
        send(response, TOO_LARGE, requestId);
      }
      return;
    }
    await readyPromise;
    if (closing || !router) {
      send(response, UNAVAILABLE, requestId);
      return;
    }
    const raw: RawRequest = {
      method: request.method ?? 'GET',
      url: request.url ?? '/',
      headers: request.headers,
      body,
      sourceIp: request.socket.remoteAddress?.replace(/^::ffff:/, ''),
    };
    if (eventTooLarge(body, raw.headers)) {
      options.report(
        `${raw.method} ${raw.url}: event over Lambda's 6 MB payload limit → 413 (send large bodies with Content-Encoding: gzip)`,
      );
      send(response, TOO_LARGE, requestId);
      return;
    }
    let result: DispatchResult;
    try {
      // The API description and its page (bin/local/openapi.ts): this runtime's own, not a route.
      result = localOnlyAnswer(raw.method, raw.url.split('?', 1)[0] ?? '/') ?? (await dispatch(router, raw));
    } catch (error) {
      const path = raw.url.split('?', 1)[0];
      if (error instanceof ContextsBusyError) {
        // Every worker thread was busy for as long as the request could wait: where Lambda would
        // have started another environment, the local runtime says it is busy (docs/configuration.md).
        options.report(`${raw.method} ${path}: ${error.message} → 503`);
        send(response, BUSY, requestId);
        return;
      }
      // What API Gateway (HTTP API) answers when the function fails: throws, cannot load, crashes,
      // or runs past its timeout (docs/safe-defaults.md, "No hung request").
      options.report(
        error instanceof FunctionTimeoutError
          ? `${raw.method} ${path}: ${error.message} (the function's timeout) → 500`
          : `${raw.method} ${path}: handler failed → 500: ${describe(error)}`,
      );
      result = INTERNAL_ERROR;
    }
    send(response, result, requestId);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      options.report(`request failed: ${describe(error)}`);
      send(response, INTERNAL_ERROR, 'local');
    });
  });
  // Generous, like API Gateway's 30 s integration timeout plus upload time.
  server.requestTimeout = 120_000;

  return {
    server,
    listen(port, host) {
      return new Promise((resolveListen, reject) => {
        const onError = (error: Error) => reject(error);
        server.once('error', onError);
        server.listen(port, host, () => {
          server.off('error', onError);
          const address = server.address() as AddressInfo;
          guard = requestGuard({
            address: address.address,
            port: address.port,
            configuredHost: host,
            extraHosts: options.allowedHosts ?? [],
          });
          resolveListen(address);
        });
      });
    },
    ready(next) {
      router = next;
      markReady();
    },
    close(graceMs) {
      closing = true;
      markReady();
      return new Promise((resolveClose) => {
        if (!server.listening) {
          resolveClose();
          return;
        }
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close(() => {
          clearTimeout(timer);
          resolveClose();
        });
        server.closeIdleConnections();
      });
    },
  };
}

export function describe(error: unknown): string {
  if ((error as NodeJS.ErrnoException | undefined)?.code === 'ERR_MODULE_NOT_FOUND') return (error as Error).message;
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}
