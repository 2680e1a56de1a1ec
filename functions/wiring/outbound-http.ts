/**
 * The core's own outbound HTTP requests (docs/security.md "Outbound requests"): today the
 * password-migration hook's POST. The URL is checked as written (functions/shared/outbound-address.ts),
 * then every connection resolves its host through {@link guardedLookup}: each address the name
 * resolves to is checked, and the socket connects to an address of that same answer — there is no
 * second lookup an attacker's DNS could answer differently (DNS rebinding). An IP-literal host is
 * never looked up: the URL check has judged it. Redirects are never followed (`node:http` does
 * not follow them), one deadline covers the lookup, connecting, the headers and the body, and the
 * answer body is read up to a limit.
 */
import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import {
  forbiddenAddress,
  forbiddenHost,
  isLocalRuntime,
  type OutboundRules,
  outboundUrlProblem,
} from '#functions/shared/outbound-address.js';

/** What a name resolves to (every address, as `dns.lookup(name, {all: true})` answers). */
export type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>;

const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

let resolver: Resolver = systemResolver;

/**
 * @internal Tests answer lookups themselves (test/integration/outbound-rebinding.test.ts: a name
 * that resolves to a public address when the configuration is stored and to an internal one when
 * the request is made); `undefined` restores the system's resolver.
 */
export function useResolverForTests(next: Resolver | undefined): void {
  resolver = next ?? systemResolver;
}

/** A lookup answered an address the core never calls (its code names the failure in logs). */
class ForbiddenAddressError extends Error {
  override name = 'ForbiddenAddressError';
  readonly code = 'EFORBIDDENADDRESS';
}

/** Every address `hostname` resolves to, each checked; throws ForbiddenAddressError when one is refused. */
async function checkedAddresses(hostname: string, rules: OutboundRules): Promise<LookupAddress[]> {
  const answers = [...(await resolver(hostname))];
  if (answers.length === 0) throw Object.assign(new Error(`${hostname} resolves to no address`), { code: 'ENOTFOUND' });
  for (const answer of answers) {
    const why = forbiddenAddress(answer.address, rules);
    if (why !== undefined) throw new ForbiddenAddressError(`${hostname} resolves to ${why}`);
  }
  return answers;
}

/**
 * The `lookup` of every outbound socket: resolves, refuses the whole answer when any address in
 * it is refused, and hands the socket only addresses that were checked (all of them when the
 * socket asks for all, to try each family in turn).
 */
function guardedLookup(rules: OutboundRules): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    checkedAddresses(hostname, rules).then(
      (answers) => {
        const family = options.family === 4 || options.family === 6 ? options.family : undefined;
        const usable = family === undefined ? answers : answers.filter((a) => a.family === family);
        const first = usable[0];
        if (!first) {
          callback(Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: 'ENOTFOUND' }), '', 0);
        } else if (options.all) callback(null, usable);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/**
 * Keep-alive agents with the guarded lookup, one pair per rule set (the rules follow
 * LOCAL_RUNTIME, fixed for a process). A kept socket was connected to a checked address.
 * Idle sockets close after 4 s, before a server's usual 5-second keep-alive would drop them.
 */
const agents = new Map<boolean, { http: HttpAgent; https: HttpsAgent }>();

function agentsFor(rules: OutboundRules) {
  let pair = agents.get(rules.allowLoopback);
  if (!pair) {
    const options = { keepAlive: true, timeout: 4000, lookup: guardedLookup(rules) };
    pair = { http: new HttpAgent(options), https: new HttpsAgent(options) };
    agents.set(rules.allowLoopback, pair);
  }
  return pair;
}

/**
 * Why the core must not call `url` (its form, then the addresses its host resolves to now), or
 * undefined: what a configuration is checked with when it is stored. A lookup that fails or takes
 * longer than `timeoutMs` is no verdict (undefined): every request checks again anyway.
 */
export async function outboundTargetProblem(url: string, timeoutMs = 2000): Promise<string | undefined> {
  const local = isLocalRuntime();
  const problem = outboundUrlProblem(url, local);
  if (problem !== undefined) return problem;
  const { hostname } = new URL(url);
  if (hostname.startsWith('[') || isIP(hostname) !== 0) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  try {
    return await Promise.race([
      checkedAddresses(hostname, { allowLoopback: local }).then(
        () => undefined,
        (error: unknown) => (error instanceof ForbiddenAddressError ? error.message : undefined),
      ),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export type OutboundOutcome =
  | { readonly kind: 'answer'; readonly status: number; readonly body: string | undefined }
  | { readonly kind: 'failed'; readonly cause: 'timeout' | 'refused' | 'network' | 'forbidden-address' };

/** The error codes of a connection the host refused (nothing listens there). */
const REFUSED = new Set(['ECONNREFUSED']);

function failureOf(error: unknown): OutboundOutcome {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (error instanceof ForbiddenAddressError) return { kind: 'failed', cause: 'forbidden-address' };
  return { kind: 'failed', cause: typeof code === 'string' && REFUSED.has(code) ? 'refused' : 'network' };
}

/**
 * POSTs `body` to `url` and reads the answer: the status, and for a 200 its body up to
 * `maxAnswerBytes` (undefined when longer; the rest is not read). Another status's body is not
 * read. Never follows a redirect; gives up after `timeoutMs` in all. A URL or an address the core
 * must not call fails as `forbidden-address` without a connection.
 */
export function postOutbound(
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string,
  timeoutMs: number,
  maxAnswerBytes: number,
): Promise<OutboundOutcome> {
  const local = isLocalRuntime();
  if (outboundUrlProblem(url, local) !== undefined) {
    return Promise.resolve({ kind: 'failed', cause: 'forbidden-address' });
  }
  const target = new URL(url);
  const rules = { allowLoopback: local };
  // An IP-literal host is connected to without a lookup: judged here (the URL check did too).
  if (forbiddenHost(target.hostname, rules) !== undefined) {
    return Promise.resolve({ kind: 'failed', cause: 'forbidden-address' });
  }
  const pair = agentsFor(rules);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<OutboundOutcome>((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (outcome: OutboundOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = send(
      target,
      {
        method: 'POST',
        agent: target.protocol === 'https:' ? pair.https : pair.http,
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body, 'utf8')) },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status !== 200) {
          finish({ kind: 'answer', status, body: '' });
          request.destroy();
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.byteLength;
          if (size > maxAnswerBytes) {
            finish({ kind: 'answer', status, body: undefined });
            request.destroy();
          } else chunks.push(chunk);
        });
        response.on('end', () => finish({ kind: 'answer', status, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', (error) => finish(failureOf(error)));
        response.on('aborted', () => finish({ kind: 'failed', cause: 'network' }));
      },
    );
    timer = setTimeout(
      () => {
        finish({ kind: 'failed', cause: 'timeout' });
        request.destroy();
      },
      Math.max(1, Math.floor(timeoutMs)),
    );
    request.on('error', (error) => finish(failureOf(error)));
    request.end(body);
  });
}
