/**
 * Where the core may send a request of its own (docs/security.md "Outbound requests"): the
 * password-migration hook is the only URL an app's configuration makes the core call, and it must
 * reach a public address of the internet — never this machine, the network the core runs in, the
 * cloud's metadata and extension endpoints, nor any other range IANA sets apart. Pure: the host as
 * the WHATWG URL parser reads it (the parser that has already turned `2130706433`, `0x7f.1` and
 * `0177.0.0.1` into `127.0.0.1`, `ÖBB.at.` into `xn--bb-eka.at.` and refused zone ids) and the
 * addresses a name resolves to are judged here; the lookup itself is the transport's
 * (functions/wiring/outbound-http.ts), which connects to the address judged, never to a second
 * answer.
 *
 * Range arithmetic is ipaddr.js's; the table below names every range this core refuses and why.
 * Besides it, any IPv6 address outside global unicast (2000::/3) and anything ipaddr.js itself
 * classes as other than `unicast` is refused, so a range added to either list is refused too.
 */
import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';
import { isLoopbackHost } from '#functions/contract/loopback-host.js';
import { ENV } from './env.js';

/** IPv4 ranges of IANA's special-purpose registry (and multicast, broadcast), each with its name. */
const IPV4_REFUSED: readonly (readonly [string, string])[] = [
  ['0.0.0.0/8', '"this network"'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared address space (carrier-grade NAT)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local (cloud metadata)'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.31.196.0/24', 'AS112'],
  ['192.52.193.0/24', 'AMT'],
  ['192.88.99.0/24', 'deprecated 6to4 relay anycast'],
  ['192.168.0.0/16', 'private'],
  ['192.175.48.0/24', 'AS112 direct delegation'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
];

/**
 * IPv6 ranges refused by name. Every address outside 2000::/3 is refused anyway (not global
 * unicast); the ones below that lie outside it are named only so that the reason says what they are.
 */
const IPV6_REFUSED: readonly (readonly [string, string])[] = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::ffff:0:0/96', 'IPv4-mapped IPv6'],
  ['::ffff:0:0:0/96', 'IPv4-translated IPv6'],
  ['::/96', 'IPv4-compatible IPv6'],
  ['64:ff9b::/96', 'IPv4/IPv6 translation'],
  ['64:ff9b:1::/48', 'IPv4/IPv6 translation'],
  ['100::/64', 'discard-only'],
  ['2001::/23', 'IETF protocol assignments (Teredo, benchmarking, ORCHID …)'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4'],
  ['2620:4f:8000::/48', 'AS112 direct delegation'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'segment routing (SRv6)'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
];

type Range = readonly [ipaddr.IPv4 | ipaddr.IPv6, number];
const parsed = (table: readonly (readonly [string, string])[]) =>
  table.map(([cidr, name]) => ({ range: ipaddr.parseCIDR(cidr) as Range, name }));
const V4 = parsed(IPV4_REFUSED);
const V6 = parsed(IPV6_REFUSED);
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as Range;

/** `a private address`, `an IPv4-mapped IPv6 address`: the reason a refusal gives. */
const addressOf = (name: string) =>
  `${/^(IPv|IETF|AS112|AMT|unspecified|[aeio])/i.test(name) ? 'an' : 'a'} ${name} address`;

/** Whether this process is the local runtime (`npm start`), where loopback may be called. */
export function isLocalRuntime(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[ENV.localRuntime] === 'true';
}

export interface OutboundRules {
  /** Loopback (127.0.0.0/8, ::1) allowed: only in the local runtime. */
  readonly allowLoopback: boolean;
}

/**
 * Why the core must not connect to `address` (an IP address as a lookup answers it or as the URL
 * parser writes it, brackets allowed), or undefined when it may: a public unicast address. A text
 * that is not an IP address, and an IPv6 address with a zone id, are refused.
 */
export function forbiddenAddress(address: string, rules: OutboundRules): string | undefined {
  const text = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (text.includes('%')) return 'an IPv6 address with a zone id';
  if (isIPv4(text)) {
    const v4 = ipaddr.IPv4.parse(text);
    const hit = V4.find((r) => v4.match(r.range as [ipaddr.IPv4, number]));
    if (hit) return hit.name === 'loopback' && rules.allowLoopback ? undefined : addressOf(hit.name);
    return v4.range() === 'unicast' ? undefined : addressOf(v4.range());
  }
  if (!isIPv6(text)) return 'not an IP address';
  // The URL parser's form first (`::1.2.3.4` → `::102:304`): ipaddr.js would read an IPv4 tail
  // as IPv4-mapped, and the request is made with the URL parser's reading anyway.
  const v6 = ipaddr.IPv6.parse(new URL(`http://[${text}]/`).hostname.slice(1, -1));
  const hit = V6.find((r) => v6.match(r.range as [ipaddr.IPv6, number]));
  if (hit) return hit.name === 'loopback' && rules.allowLoopback ? undefined : addressOf(hit.name);
  if (!v6.match(GLOBAL_UNICAST_V6 as [ipaddr.IPv6, number])) return 'an address outside global unicast (2000::/3)';
  return v6.range() === 'unicast' ? undefined : addressOf(v6.range());
}

/**
 * Special-use names (RFC 6761, 6762, 7686, 8375, 9476 and the ICANN-reserved `internal`) that
 * never name a public host; `localhost` and its subdomains are loopback.
 */
const PRIVATE_SUFFIXES = ['local', 'internal', 'home.arpa', 'invalid', 'onion', 'alt'];

/**
 * Why the core must not call the host of a parsed URL (`url.hostname`) — an address or a name
 * decided without a lookup — or undefined when only the lookup can tell. A name must have a dot
 * (a single label is resolved through the search domains of the network the core runs in).
 */
export function forbiddenHost(hostname: string, rules: OutboundRules): string | undefined {
  const host = hostname.toLowerCase();
  if (host === '') return 'no host';
  if (host.startsWith('[') || isIPv4(host)) return forbiddenAddress(host, rules);
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  if (name === 'localhost' || name.endsWith('.localhost')) {
    return rules.allowLoopback ? undefined : 'a loopback name (localhost)';
  }
  const suffix = PRIVATE_SUFFIXES.find((s) => name === s || name.endsWith(`.${s}`));
  if (suffix !== undefined) return `a special-use name (.${suffix})`;
  if (!name.includes('.')) return 'a single-label name (resolved inside the network)';
  return undefined;
}

/**
 * `url` as the WHATWG parser reads it, or undefined when it is not an absolute URL. Not
 * `URL.canParse`: Node 20's optimised fast path of it answers false for valid URLs with non-ASCII
 * characters (an internationalised host) once it has been called often enough.
 */
export function parseUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/**
 * Why the core must not send a request to `url` as written, or undefined: `https:` (`http:` only
 * to a loopback host, and only in the local runtime), no user name or password, and a host
 * {@link forbiddenHost} lets through. A name is looked up when the request is made.
 */
export function outboundUrlProblem(url: string, local: boolean = isLocalRuntime()): string | undefined {
  const parsed = parseUrl(url);
  if (!parsed) return 'not an absolute URL';
  if (parsed.username !== '' || parsed.password !== '') return 'a user name or password in the URL';
  const rules = { allowLoopback: local };
  if (parsed.protocol === 'http:') {
    if (!local) return 'http:// (only https:// is called)';
    return isLoopbackHost(parsed.hostname) && forbiddenHost(parsed.hostname, rules) === undefined
      ? undefined
      : 'http:// to a host other than loopback';
  }
  if (parsed.protocol !== 'https:') return `the scheme ${parsed.protocol}`;
  return forbiddenHost(parsed.hostname, rules);
}
