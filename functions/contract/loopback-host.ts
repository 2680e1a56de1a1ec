/**
 * Whether a URL's host names this machine's loopback interface, decided without a lookup on the
 * host as the WHATWG URL parser reads it (the parser `fetch` uses: `http://127.1` is `127.0.0.1`,
 * `http://127.0.0.1@evil.example` is `evil.example`). Shared by the migration command (which
 * refuses plain `http:` to any other host) and the core (whose password-migration hook URL may be
 * `http:` only to loopback, docs/password-migration-hook.md). No name is looked up: any name but
 * `localhost`, even one that resolves to loopback, is not loopback here, because a lookup could
 * answer otherwise when the connection is made.
 */

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** Whether an IPv4 dotted quad (as the URL parser writes it) is in 127.0.0.0/8. */
function loopbackIpv4(host: string): boolean {
  const match = IPV4.exec(host);
  if (!match) return false;
  const octets = match.slice(1).map(Number);
  return octets.every((o) => o <= 255) && octets[0] === 127;
}

/** Whether a bracketed IPv6 literal (as the URL parser writes it: compressed, lower case) is loopback. */
function loopbackIpv6(host: string): boolean {
  if (!host.startsWith('[') || !host.endsWith(']')) return false;
  const address = host.slice(1, -1);
  if (address === '::1') return true;
  // IPv4-mapped: the parser writes ::ffff:127.0.0.1 as ::ffff:7f00:1 (the high word starts 7f).
  const mapped = /^::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(address);
  return mapped !== null && Number.parseInt(mapped[1] as string, 16) >> 8 === 0x7f;
}

/**
 * Whether the host of a parsed URL (`url.hostname`) names this machine's loopback interface
 * without a lookup: 127.0.0.0/8, ::1, ::ffff:127.0.0.0/104, `localhost`, `localhost.`.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === 'localhost' || host === 'localhost.') return true;
  return loopbackIpv4(host) || loopbackIpv6(host);
}
