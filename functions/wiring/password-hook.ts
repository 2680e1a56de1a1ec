/**
 * Wiring of the password-migration hook for the sign-in route (docs/password-migration-hook.md):
 * the app's settings, its sealed secret (opened only when a pending user signs in), an HTTP
 * transport on `fetch` that never follows a redirect and reads at most 1 KB + 1 of an answer, a
 * circuit breaker per app in this execution environment, and the hook's metrics.
 */
import { type EffectiveConfig, HOOK_SECRET_KEY } from '#functions/config/index.js';
import { UnreadableSecretError } from '#functions/domain/credentials/ports.js';
import { CircuitBreaker } from '#functions/domain/password-hook/breaker.js';
import type { HookTransport, PasswordHookPorts, TransportOutcome } from '#functions/domain/password-hook/check.js';
import { MAX_ANSWER_BYTES } from '#functions/domain/password-hook/protocol.js';
import { DependencyUnavailableError } from '#functions/shared/errors.js';
import { LATENCY_METRIC, METRIC } from '#functions/shared/metric-names.js';
import { recordLatency, recordMetrics } from '#functions/shared/metrics.js';
import { openConfigSecret } from '#functions/storage/tenant-credentials.js';
import { credentialsEnvelope } from './credentials.js';

/** One breaker per app (and hook URL) in this execution environment. */
const breakers = new Map<string, CircuitBreaker>();

function breakerOf(appId: string, url: string): CircuitBreaker {
  const key = `${appId}\u0000${url}`;
  let breaker = breakers.get(key);
  if (!breaker) {
    breaker = new CircuitBreaker(() => performance.now());
    breakers.set(key, breaker);
  }
  return breaker;
}

/** The error codes of a connection the host refused (nothing listens there). */
const REFUSED = new Set(['ECONNREFUSED']);

function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Reads a body up to `limit` bytes; undefined when it is longer (the rest is not read). */
async function readCapped(response: Response, limit: number): Promise<string | undefined> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** `fetch` with `redirect: "manual"` and one deadline over connecting, the headers and the body. */
const fetchTransport: HookTransport = {
  async post(url, headers, body, timeoutMs): Promise<TransportOutcome> {
    const signal = AbortSignal.timeout(Math.max(1, Math.floor(timeoutMs)));
    try {
      const response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal });
      if (response.status !== 200) {
        await response.body?.cancel().catch(() => undefined);
        return { kind: 'answer', status: response.status, body: '' };
      }
      return { kind: 'answer', status: 200, body: await readCapped(response, MAX_ANSWER_BYTES) };
    } catch (error) {
      if (signal.aborted) return { kind: 'failed', cause: 'timeout' };
      const code = causeCode(error);
      return { kind: 'failed', cause: code !== undefined && REFUSED.has(code) ? 'refused' : 'network' };
    }
  },
};

/** The app's hook, or undefined when it has none (`password_migration_hook_url` unset). */
export function passwordHookPorts(
  config: EffectiveConfig,
  appId: string,
  transport: HookTransport = fetchTransport,
): PasswordHookPorts | undefined {
  const settings = config.passwordMigrationHook;
  if (!settings) return undefined;
  return {
    url: settings.url,
    timeoutMs: settings.timeoutMs,
    async secret() {
      if (!settings.secret) throw new Error('the password-migration hook has no secret');
      try {
        return await openConfigSecret(HOOK_SECRET_KEY, settings.secret, credentialsEnvelope);
      } catch (error) {
        if (!(error instanceof UnreadableSecretError)) throw error;
        throw new DependencyUnavailableError(
          'unavailable',
          `the password-migration hook secret cannot be opened (${error.reason}); set it again`,
          'The legacy password system is unavailable; retry later',
        );
      }
    },
    transport,
    breaker: breakerOf(appId, settings.url),
    now: () => performance.now(),
    epochSeconds: () => Math.floor(Date.now() / 1000),
    observe(verdict, elapsedMs) {
      const name =
        verdict.kind === 'match'
          ? METRIC.passwordHookMatch
          : verdict.kind === 'mismatch'
            ? METRIC.passwordHookMismatch
            : METRIC.passwordHookUnavailable;
      // A call the breaker refused made no request: counted, but not a latency.
      if (verdict.kind === 'unavailable' && verdict.cause === 'circuit-open') recordMetrics({ [name]: 1 });
      else recordLatency(LATENCY_METRIC.passwordHookLatency, elapsedMs, { [name]: 1 });
    },
  };
}
