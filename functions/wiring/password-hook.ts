/**
 * Wiring of the sign-in's password check (functions/domain/users/password-verifier.ts): the
 * stored hash, or, in an app with a password-migration hook (docs/password-migration-hook.md),
 * the hook for the users pending it. The hook is the app's settings, its sealed secret (opened only when a pending user signs in), an HTTP
 * transport that calls only public addresses, never follows a redirect and reads at most 1 KB + 1
 * of an answer, a circuit breaker per app in this execution environment, and the hook's metrics.
 */
import { type EffectiveConfig, HOOK_SECRET_KEY } from '#functions/config/index.js';
import { UnreadableSecretError } from '#functions/domain/credentials/ports.js';
import { CircuitBreaker } from '#functions/domain/password-hook/breaker.js';
import type { HookTransport, PasswordHookPorts } from '#functions/domain/password-hook/check.js';
import { MAX_ANSWER_BYTES } from '#functions/domain/password-hook/protocol.js';
import { migrationHookVerifier } from '#functions/domain/password-hook/verifier.js';
import type { PasswordPorts, UsersDeps } from '#functions/domain/users/deps.js';
import type { PasswordVerifier } from '#functions/domain/users/password-verifier.js';
import { storedHashVerifier } from '#functions/domain/users/stored-hash.js';
import { DependencyUnavailableError } from '#functions/shared/errors.js';
import { LATENCY_METRIC, METRIC } from '#functions/shared/metric-names.js';
import { recordLatency, recordMetrics } from '#functions/shared/metrics.js';
import { openConfigSecret } from '#functions/storage/tenant-credentials.js';
import { credentialsEnvelope } from './credentials.js';
import { postOutbound } from './outbound-http.js';

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

/**
 * The hook's POST through the core's outbound client (functions/wiring/outbound-http.ts): the URL
 * and every address its host resolves to are checked at connection time, never a redirect, one
 * deadline, at most 1 KB + 1 of an answer read.
 */
const outboundTransport: HookTransport = {
  post: (url, headers, body, timeoutMs) => postOutbound(url, headers, body, timeoutMs, MAX_ANSWER_BYTES),
};

/** The app's hook, or undefined when it has none (`password_migration_hook_url` unset). */
function passwordHookPorts(
  config: EffectiveConfig,
  appId: string,
  transport: HookTransport = outboundTransport,
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

/** The app's password check: the stored hash, with the migration hook in front when the app has one. */
export function passwordVerifier(
  config: EffectiveConfig,
  appId: string,
  deps: UsersDeps,
  passwords: PasswordPorts,
): PasswordVerifier {
  const storedHash = storedHashVerifier(deps, passwords);
  const hook = passwordHookPorts(config, appId);
  if (!hook) return storedHash;
  const pendingDeps = { store: deps.store, warn: deps.warn, hash: passwords.hash, verify: passwords.verify };
  return migrationHookVerifier(pendingDeps, hook, storedHash);
}
