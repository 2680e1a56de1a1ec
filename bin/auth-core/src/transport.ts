/**
 * Which core URLs the command may use (docs/migrating.md "Options", and docs/security.md
 * "Transport"). Everything it sends — the API key, the URL's user name and password, whole exports
 * with hashes, TOTP secrets and plain-text passwords, the Firebase signer key — travels in the
 * request, so `http:` is accepted only to this machine:
 *
 * - an IPv4 literal in 127.0.0.0/8, the IPv6 literal `::1`, or an IPv4-mapped `::ffff:127.x.y.z`;
 * - the name `localhost` (or `localhost.`), which the system's hosts file answers.
 *
 * The decision is taken on the host as the WHATWG URL parser reads it — the parser `fetch` itself
 * uses, so `http://127.0.0.1@evil.example` is `evil.example`, `http://127.1` and `http://0x7f.1`
 * are `127.0.0.1`, and upper case is lower case. No name is looked up: any other name, even one
 * that resolves to loopback (`app.localhost`, an `/etc/hosts` alias), is refused over `http:`,
 * because a lookup the command did could answer otherwise when `fetch` connects.
 * `--allow-insecure-http` lets a run go on anyway and says so on every run.
 */
import { isLoopbackHost } from './contract.js';
import { usageError } from './errors.js';

export { isLoopbackHost };

/** The flag that allows `http:` to a host that is not loopback. */
export const ALLOW_INSECURE_HTTP = '--allow-insecure-http';

/** How a core URL may be used: a warning to show on every run when `http:` goes off this machine. */
export interface TransportDecision {
  /** Present when the URL is `http:` to a host that is not loopback and the flag allowed it. */
  readonly warning: string | undefined;
}

/**
 * Refuses (exit 2) `http:` to a host that is not loopback unless `allowInsecureHttp`; then returns the
 * warning to show. `shown` is the URL as it may be printed (no credentials).
 */
export function transportDecision(url: URL, shown: string, allowInsecureHttp: boolean): TransportDecision {
  if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return { warning: undefined };
  if (!allowInsecureHttp) {
    throw usageError(
      `refusing to talk to the core at ${shown} over plain http: the API key, the export's password hashes, ` +
        'TOTP secrets and passwords, and the Firebase signer key would cross the network unencrypted. ' +
        `Use an https:// URL (or a loopback address: 127.0.0.1, [::1], localhost), or add ${ALLOW_INSECURE_HTTP} ` +
        'if the network between here and the core is yours to trust (docs/security.md "Transport"). Nothing was read or sent.',
    );
  }
  return {
    warning:
      `warning: talking to the core at ${shown} over plain http (${ALLOW_INSECURE_HTTP}): the API key and every ` +
      'credential sent cross the network unencrypted',
  };
}
