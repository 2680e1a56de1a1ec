import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hookUrlProblem } from '#functions/config/validate.js';
import { forbiddenAddress, forbiddenHost, outboundUrlProblem, parseUrl } from '#functions/shared/outbound-address.js';

/**
 * Where the core may send its own requests (docs/security.md "Outbound requests"): every IANA
 * special-purpose range is refused, IPv6 only in global unicast and never carrying an IPv4
 * address, whatever way the URL spells the host.
 */

const DEPLOYED = { allowLoopback: false };
const LOCAL = { allowLoopback: true };

/**
 * The test's own model of the refused IPv4 space (IANA's IPv4 special-purpose registry, multicast
 * and the limited broadcast), as numbers: an oracle independent of the library the module uses.
 */
const V4_MODEL: readonly [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.31.196.0', 24],
  ['192.52.193.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['192.175.48.0', 24],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
  ['255.255.255.255', 32],
];

const toNumber = (dotted: string) => dotted.split('.').reduce((n, o) => n * 256 + Number(o), 0);
const dotted = (n: number) => [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
const inModel = (n: number) =>
  V4_MODEL.some(([base, bits]) => {
    const size = 2 ** (32 - bits);
    const start = toNumber(base);
    return n >= start && n < start + size;
  });

/** An address inside a range of the model (anywhere in it). */
const refusedV4 = fc
  .tuple(fc.constantFrom(...V4_MODEL), fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }))
  .map(([[base, bits], at]) => toNumber(base) + Math.floor(at * 2 ** (32 - bits)));

const hex16 = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));
const v6Groups = (first: fc.Arbitrary<number>) =>
  fc
    .tuple(first, fc.array(hex16, { minLength: 7, maxLength: 7 }))
    .map(([head, rest]) => [head.toString(16), ...rest].join(':'));

describe('IPv4 addresses', () => {
  it('refuses every address of every special-purpose range, naming the range', () => {
    const named: [string, RegExp][] = [
      ['0.0.0.0', /this network/],
      ['10.1.2.3', /private/],
      ['100.64.0.1', /carrier-grade NAT/],
      ['100.127.255.254', /carrier-grade NAT/],
      ['127.0.0.1', /loopback/],
      ['127.255.255.255', /loopback/],
      ['169.254.169.254', /link-local/],
      ['172.16.0.1', /private/],
      ['172.31.255.255', /private/],
      ['192.0.0.9', /IETF protocol assignments/],
      ['192.0.2.1', /documentation/],
      ['192.31.196.1', /AS112/],
      ['192.52.193.1', /AMT/],
      ['192.88.99.1', /6to4 relay/],
      ['192.168.1.1', /private/],
      ['192.175.48.1', /AS112/],
      ['198.18.0.1', /benchmarking/],
      ['198.19.255.255', /benchmarking/],
      ['198.51.100.7', /documentation/],
      ['203.0.113.9', /documentation/],
      ['224.0.0.251', /multicast/],
      ['239.255.255.250', /multicast/],
      ['240.0.0.1', /reserved/],
      ['255.255.255.255', /broadcast/],
    ];
    for (const [address, why] of named) expect(forbiddenAddress(address, DEPLOYED), address).toMatch(why);
    for (const address of ['8.8.8.8', '1.1.1.1', '93.184.215.14', '100.63.255.255', '100.128.0.0', '172.32.0.1']) {
      expect(forbiddenAddress(address, DEPLOYED), address).toBeUndefined();
    }
  });

  it('decides every IPv4 address exactly as the registry does (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: 0, max: 2 ** 32 - 1 }), refusedV4), (n) => {
        const address = dotted(n);
        expect(forbiddenAddress(address, DEPLOYED) !== undefined, address).toBe(inModel(n));
      }),
      { numRuns: 2000 },
    );
  });

  it('lets loopback through only where loopback is allowed (the local runtime), nothing else', () => {
    expect(forbiddenAddress('127.0.0.1', LOCAL)).toBeUndefined();
    expect(forbiddenAddress('127.3.2.1', LOCAL)).toBeUndefined();
    fc.assert(
      fc.property(refusedV4, (n) => {
        const address = dotted(n);
        const loopback = Math.floor(n / 2 ** 24) === 127;
        expect(forbiddenAddress(address, LOCAL) === undefined, address).toBe(loopback);
      }),
    );
  });
});

describe('IPv6 addresses', () => {
  it('refuses the special-purpose ranges, IPv4 inside IPv6, and everything outside global unicast', () => {
    const named: [string, RegExp][] = [
      ['::', /unspecified/],
      ['::1', /loopback/],
      ['[::1]', /loopback/],
      ['::ffff:127.0.0.1', /IPv4-mapped/],
      ['::ffff:a9fe:a9fe', /IPv4-mapped/],
      ['::ffff:8.8.8.8', /IPv4-mapped/],
      ['::ffff:0:808:808', /IPv4-translated/],
      ['::127.0.0.1', /IPv4-compatible/],
      ['::8.8.8.8', /IPv4-compatible/],
      ['64:ff9b::a9fe:a9fe', /translation/],
      ['64:ff9b:1::1', /translation/],
      ['100::1', /discard/],
      ['2001::1', /IETF protocol assignments/],
      ['2001:2::1', /IETF protocol assignments/],
      ['2001:db8::1', /documentation/],
      ['2002:a9fe:a9fe::1', /6to4/],
      ['2620:4f:8000::1', /AS112/],
      ['3fff::1', /documentation/],
      ['5f00::1', /segment routing/],
      ['fc00::1', /unique-local/],
      ['fd12:3456::1', /unique-local/],
      ['fe80::1', /link-local/],
      ['febf::1', /link-local/],
      ['fec0::1', /site-local/],
      ['ff02::1', /multicast/],
      ['4000::1', /global unicast/],
      ['1::1', /global unicast/],
      ['fe80::1%eth0', /zone id/],
    ];
    for (const [address, why] of named) expect(forbiddenAddress(address, DEPLOYED), address).toMatch(why);
    for (const address of ['2606:4700:4700::1111', '2a00:1450:4001::200e', '[2001:4860:4860::8888]']) {
      expect(forbiddenAddress(address, DEPLOYED), address).toBeUndefined();
    }
    expect(forbiddenAddress('::1', LOCAL)).toBeUndefined();
    expect(forbiddenAddress('::ffff:127.0.0.1', LOCAL)).toMatch(/IPv4-mapped/);
  });

  it('refuses any IPv4 address mapped into or compatible with IPv6, whatever the IPv4 address (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (n) => {
        const v4 = dotted(n);
        const high = Math.floor(n / 65536).toString(16);
        const low = (n % 65536).toString(16);
        for (const address of [`::ffff:${v4}`, `::ffff:${high}:${low}`, `0:0:0:0:0:ffff:${high}:${low}`, `::${v4}`]) {
          expect(forbiddenAddress(address, DEPLOYED), address).toBeDefined();
          // ::0.0.0.1 is ::1 itself, the IPv6 loopback the local runtime may call.
          if (!(n === 1 && address.startsWith('::0.'))) expect(forbiddenAddress(address, LOCAL), address).toBeDefined();
        }
      }),
    );
  });

  it('refuses every address outside 2000::/3 (property)', () => {
    const outside = fc.oneof(fc.integer({ min: 0, max: 0x1fff }), fc.integer({ min: 0x4000, max: 0xffff }));
    fc.assert(
      fc.property(v6Groups(outside), (address) => {
        expect(forbiddenAddress(address, DEPLOYED), address).toBeDefined();
      }),
    );
  });

  it('accepts global unicast outside the named ranges, and refuses the named ones inside it (property)', () => {
    fc.assert(
      fc.property(v6Groups(fc.integer({ min: 0x2000, max: 0x3fff })), (address) => {
        const groups = address.split(':').map((g) => Number.parseInt(g, 16));
        const [a = 0, b = 0, c = 0] = groups;
        const named =
          (a === 0x2001 && b < 0x200) || // 2001::/23
          (a === 0x2001 && b === 0xdb8) ||
          a === 0x2002 ||
          (a === 0x2620 && b === 0x4f && c === 0x8000) ||
          (a >= 0x3fff && a <= 0x3fff && b < 0x1000); // 3fff::/20
        expect(forbiddenAddress(address, DEPLOYED) !== undefined, address).toBe(named);
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws, and refuses anything that is not an IP address (property)', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const found = forbiddenAddress(text, DEPLOYED);
        if (!/^[0-9a-fA-F:.[\]%a-z]+$/.test(text)) expect(found).toBeDefined();
      }),
    );
  });
});

describe('hosts as a URL spells them', () => {
  /** Every spelling the WHATWG parser reads as the IPv4 address `n`. */
  const spellings = (n: number) => {
    const octets = dotted(n).split('.').map(Number);
    return [
      String(n),
      `0x${n.toString(16)}`,
      `0${n.toString(8)}`,
      octets.map((o) => `0${o.toString(8)}`).join('.'),
      octets.map((o) => `0x${o.toString(16)}`).join('.'),
      `${octets[0]}.${(octets[1] as number) * 65536 + (octets[2] as number) * 256 + (octets[3] as number)}`,
      `${dotted(n)}.`,
    ];
  };

  it('reads decimal, octal and hex IPv4 literals and trailing dots as the address they are (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: 0, max: 2 ** 32 - 1 }), refusedV4), (n) => {
        const refused = inModel(n);
        for (const host of spellings(n)) {
          const url = `https://${host}/check`;
          expect(outboundUrlProblem(url, false) !== undefined, url).toBe(refused);
          expect(hookUrlProblem(url, false) !== undefined, url).toBe(refused);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('refuses the cloud metadata service and loopback however they are written', () => {
    for (const url of [
      'https://169.254.169.254/latest/meta-data/',
      'https://169.254.169.254./latest',
      'https://2852039166/',
      'https://0xa9fea9fe/',
      'https://0251.0376.0251.0376/',
      'https://[::ffff:a9fe:a9fe]/',
      'https://[::ffff:169.254.169.254]/',
      'https://[0:0:0:0:0:ffff:a9fe:a9fe]/',
      'https://[::169.254.169.254]/',
      'https://[fd00:ec2::254]/',
      'https://10.0.0.1:9001/x',
      'https://127.1/',
      'https://0/',
      'https://[::]/',
      'https://[::1]/',
      'https://localhost/',
      'https://LOCALHOST./',
      'https://ＬＯＣＡＬＨＯＳＴ/',
      'https://api.localhost/',
      'https://metadata.google.internal/computeMetadata/v1/',
      'https://printer.local/',
      'https://router.home.arpa/',
      'https://legacy/',
      'https://legacy./',
      'https://xyz.onion/',
    ]) {
      expect(outboundUrlProblem(url, false), url).toBeDefined();
      expect(hookUrlProblem(url, false), url).toMatch(/^'password_migration_hook_url' must/);
    }
  });

  it('accepts public names, internationalised ones included (checked again once resolved), and public addresses', () => {
    // Parsed many times first: Node 20's optimised URL.canParse refuses non-ASCII URLs by then.
    for (let i = 0; i < 50_000; i++) parseUrl(`https://bücher.example/${i}`);
    for (const url of [
      'https://legacy.example.com/check',
      'https://legacy.example.com./check',
      'https://bücher.example/check',
      'https://xn--bcher-kva.example/check',
      'https://8.8.8.8/check',
      'https://[2606:4700:4700::1111]:8443/check',
    ]) {
      expect(outboundUrlProblem(url, false), url).toBeUndefined();
      expect(hookUrlProblem(url, false), url).toBeUndefined();
    }
  });

  it('refuses zone ids (the URL parser does not take them) and bare names that resolve inside', () => {
    expect(parseUrl('https://[fe80::1%25eth0]/')).toBeUndefined();
    expect(hookUrlProblem('https://[fe80::1%25eth0]/', false)).toMatch(/https:\/\/ URL/);
    expect(forbiddenHost('intranet', DEPLOYED)).toMatch(/single-label/);
    expect(forbiddenHost('intranet.', DEPLOYED)).toMatch(/single-label/);
  });

  it('takes http:// only to loopback and only in the local runtime', () => {
    for (const url of ['http://127.0.0.1:8788/check', 'http://[::1]/x', 'http://localhost/']) {
      expect(hookUrlProblem(url, true), url).toBeUndefined();
      expect(outboundUrlProblem(url, true), url).toBeUndefined();
      expect(hookUrlProblem(url, false), url).toMatch(/only in the local runtime/);
      expect(outboundUrlProblem(url, false), url).toBeDefined();
    }
    for (const url of ['http://legacy.example.com/', 'http://10.0.0.1/', 'http://[::ffff:7f00:1]/']) {
      expect(hookUrlProblem(url, true), url).toBeDefined();
      expect(outboundUrlProblem(url, true), url).toBeDefined();
    }
    expect(hookUrlProblem('https://127.0.0.1:8443/', true)).toBeUndefined();
    expect(hookUrlProblem('https://127.0.0.1:8443/', false)).toMatch(/127\.0\.0\.1 is a loopback address/);
  });

  it('any string as a URL never throws, and is accepted only as https to a host the rules let through (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc
            .tuple(
              fc.constantFrom('http', 'https', 'ftp', 'HTTPS', 'file'),
              fc.constantFrom(
                '127.0.0.1',
                '127.1',
                'localhost',
                '[::1]',
                'legacy.example.com',
                '10.0.0.1',
                '8.8.8.8',
                'u:p@legacy.example.com',
                '[::ffff:a9fe:a9fe]',
              ),
              fc.string({ maxLength: 12 }),
            )
            .map(([scheme, host, rest]) => `${scheme}://${host}/${rest}`),
        ),
        fc.boolean(),
        (url, local) => {
          const found = hookUrlProblem(url, local);
          const parsed = parseUrl(url);
          const hostOk = parsed !== undefined && forbiddenHost(parsed.hostname, { allowLoopback: local }) === undefined;
          const fine =
            parsed !== undefined &&
            parsed.username === '' &&
            parsed.password === '' &&
            hostOk &&
            (parsed.protocol === 'https:' ||
              (parsed.protocol === 'http:' &&
                local &&
                /^(127\.\d+\.\d+\.\d+|localhost\.?|\[::1\])$/.test(parsed.hostname)));
          expect(found === undefined, url).toBe(fine);
          expect(outboundUrlProblem(url, local) === undefined, url).toBe(fine);
          if (found !== undefined) expect(found).toContain('password_migration_hook_url');
        },
      ),
      { numRuns: 500 },
    );
  });
});
