/**
 * The local core refuses cross-site use (docs/safe-defaults.md, "The local core refuses cross-site requests").
 *
 * The core is called server to server: by the backend SDK, by curl, by `npx auth-core`. None of
 * them sends an `Origin` header, and each names the core by the address it listens on. A web page
 * the developer happens to open can still reach `localhost:3567` from the browser: a `text/plain`
 * POST needs no CORS preflight, so it would run (create an app, plant a user, delete an app) even
 * though the page cannot read the answer; and a page whose DNS name is rebound to 127.0.0.1 can
 * read answers too. So the local runtime's HTTP server answers 403, before reading the body, to:
 *
 * - a request with an `Origin` header that is not the core's own origin (`http://<an allowed
 *   host>`; `null`, which sandboxed frames, `file:` pages and redirects send, is never the core's);
 * - a request whose `Host` is not one of the allowed hosts: the bound address with its port, and,
 *   when bound to loopback, `localhost`, `127.0.0.1` and `[::1]`; when bound to every interface
 *   (HOST=0.0.0.0), every address of this machine and its host name; plus the names listed in
 *   `ALLOWED_HOSTS` (e.g. a name a container network gives the core).
 *
 * On AWS none of this applies: API Gateway and the API key are the boundary (the Lambda handlers
 * do not check Origin or Host).
 */
import { hostname, type NetworkInterfaceInfo, networkInterfaces } from 'node:os';

export interface RequestGuard {
  /** Allowed `Host` values, lower case, each `name:port` (`name` alone too when the port is 80). */
  readonly hosts: ReadonlySet<string>;
  /** Allowed `Origin` values: the core's own origins. */
  readonly origins: ReadonlySet<string>;
  /** The URL the refusal messages point to. */
  readonly url: string;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** An IP address as it appears in a Host header (IPv6 in brackets). */
const hostForm = (address: string): string => (address.includes(':') ? `[${address}]` : address);

export function isLoopbackAddress(address: string): boolean {
  const plain = address.replace(/^::ffff:/i, '');
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(plain) || plain === '::1';
}

const isWildcard = (address: string): boolean => address === '0.0.0.0' || address === '::';

/**
 * The guard for a server listening on `address:port`, started with HOST=`configuredHost` (an
 * address or a name), with the extra host names of `ALLOWED_HOSTS` (`name` or `name:port`).
 */
export function requestGuard(options: {
  readonly address: string;
  readonly port: number;
  readonly configuredHost: string;
  readonly extraHosts?: readonly string[];
  /** @default os.networkInterfaces() (tests pass their own) */
  readonly interfaces?: NodeJS.Dict<NetworkInterfaceInfo[]>;
  /** @default os.hostname() */
  readonly machineName?: string;
}): RequestGuard {
  const { address, port } = options;
  const names = new Set<string>([hostForm(address), hostForm(options.configuredHost)]);
  if (isLoopbackAddress(address)) for (const name of LOOPBACK_NAMES) names.add(name);
  if (isWildcard(address)) {
    for (const name of LOOPBACK_NAMES) names.add(name);
    names.add(options.machineName ?? hostname());
    for (const info of Object.values(options.interfaces ?? networkInterfaces()).flat()) {
      // Link-local IPv6 addresses need a zone in a URL; nobody names a server by one.
      if (info && !(info.family === 'IPv6' && info.address.toLowerCase().startsWith('fe80:'))) {
        names.add(hostForm(info.address));
      }
    }
  }
  const hosts = new Set<string>();
  const origins = new Set<string>();
  const allow = (name: string, onPort: number) => {
    const lower = name.toLowerCase();
    hosts.add(`${lower}:${onPort}`);
    origins.add(`http://${lower}:${onPort}`);
    if (onPort === 80) {
      hosts.add(lower);
      origins.add(`http://${lower}`);
    }
  };
  for (const name of names) if (name !== '' && !isWildcard(name)) allow(name, port);
  for (const extra of options.extraHosts ?? []) {
    const match = /^(.*):(\d+)$/.exec(extra);
    if (match && !extra.endsWith(']')) allow(match[1] as string, Number(match[2]));
    else allow(extra, port);
  }
  const shown = isWildcard(address) || isLoopbackAddress(address) ? '127.0.0.1' : hostForm(address);
  return { hosts, origins, url: `http://${shown}:${port}` };
}

/** Why the request must be refused (the 403's text), or undefined when it may be served. */
export function crossSiteRefusal(
  guard: RequestGuard,
  headers: { readonly host?: string | undefined; readonly origin?: string | string[] | undefined },
): string | undefined {
  const origin = headers.origin;
  if (origin !== undefined) {
    const value = Array.isArray(origin) ? origin.join(', ') : origin;
    if (!guard.origins.has(value.toLowerCase())) {
      return (
        `Cross-site request refused: Origin '${printable(value)}' is not this core's own. ` +
        'The core is called from servers (the SDK, curl, npx auth-core), never from a web page.'
      );
    }
  }
  const host = headers.host;
  if (host === undefined || !guard.hosts.has(host.toLowerCase())) {
    return (
      `Request refused: Host '${printable(host ?? '')}' does not name this core (a DNS name that points ` +
      `here is not enough). Use ${guard.url}, or list the name in ALLOWED_HOSTS.`
    );
  }
  return undefined;
}

/** A header value echoed in a message: at most 100 printable ASCII characters. */
const printable = (value: string): string => {
  const cleaned = value.replace(/[^\x20-\x7e]/g, '?');
  return cleaned.length > 100 ? `${cleaned.slice(0, 100)}…` : cleaned;
};
