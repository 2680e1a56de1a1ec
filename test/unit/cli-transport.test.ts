/**
 * The command's transport rule (bin/auth-core/src/transport.ts): `http:` only to loopback, decided on the host
 * as the WHATWG URL parser (the one fetch uses) reads it; `https:` anywhere; `--allow-insecure-http`
 * lets plain http go off the machine with a warning. Host spellings are generated with what they
 * must mean known by construction: IPv4 in every form the parser accepts, IPv6 literals, the name
 * `localhost`, upper case, user-info tricks and ports.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { CoreClient, coreEndpoint } from '../../bin/auth-core/src/core-client.js';
import { CliError, EXIT } from '../../bin/auth-core/src/errors.js';
import { forgetSecrets } from '../../bin/auth-core/src/redact.js';
import { isLoopbackHost } from '../../bin/auth-core/src/transport.js';

afterEach(() => forgetSecrets());

const octet = fc.integer({ min: 0, max: 255 });

/** An IPv4 address written in one of the forms the URL parser accepts (dotted, short, hex, octal, integer). */
function spelled(a: number, b: number, c: number, d: number) {
  const value = ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
  return fc.constantFrom(
    `${a}.${b}.${c}.${d}`,
    `${a}.${(b << 16) + (c << 8) + d}`,
    `${a}.${b}.${(c << 8) + d}`,
    `0x${a.toString(16)}.${b}.${c}.${d}`,
    `0X${a.toString(16).toUpperCase()}.0x${b.toString(16)}.${c}.${d}`,
    `0${a.toString(8)}.${b}.${c}.${d}`,
    String(value),
    `0x${value.toString(16)}`,
    `${a}.${b}.${c}.${d}.`,
  );
}

const loopbackIpv4 = fc.tuple(octet, octet, octet).chain(([b, c, d]) => spelled(127, b, c, d));
const otherIpv4 = fc
  .tuple(
    octet.filter((a) => a !== 127),
    octet,
    octet,
    octet,
  )
  .chain(([a, b, c, d]) => spelled(a, b, c, d));

const hex4 = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));
const loopbackIpv6 = fc.oneof(
  fc.constantFrom('[::1]', '[0:0:0:0:0:0:0:1]', '[0000::0001]', '[::0:1]'),
  fc.tuple(octet, octet, octet).map(([b, c, d]) => `[::ffff:127.${b}.${c}.${d}]`),
  fc
    .tuple(octet, octet, octet)
    .map(([b, c, d]) => `[::FFFF:7f${b.toString(16).padStart(2, '0')}:${((c << 8) + d).toString(16)}]`),
);
const otherIpv6 = fc.oneof(
  fc.constantFrom('[::]', '[::2]', '[fe80::1]', '[2001:db8::1]', '[::ffff:10.0.0.1]', '[::ffff:8.8.8.8]', '[fd00::1]'),
  fc
    .array(hex4, { minLength: 8, maxLength: 8 })
    .filter(
      (parts) =>
        parts.join(':') !== '0:0:0:0:0:0:0:1' && !(parts.slice(0, 5).every((p) => p === '0') && parts[5] === 'ffff'),
    )
    .map((parts) => `[${parts.join(':')}]`),
);

const randomCase = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((upper) => [...text].map((ch, i) => (upper[i] ? ch.toUpperCase() : ch.toLowerCase())).join(''));
const localhostName = fc.constantFrom('localhost', 'localhost.').chain(randomCase);
const otherName = fc.oneof(
  fc.constantFrom(
    'evil.example',
    'localhost.evil.example',
    'evil.localhost',
    'app.localhost',
    'localhost.localdomain',
    'localhost6',
    '127.0.0.1.nip.io',
    'core',
  ),
  fc.domain().filter((d) => !/^localhost\.?$/i.test(d)),
);

const port = fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined });
const userinfo = fc.option(
  fc.oneof(
    fc.constantFrom('127.0.0.1', 'localhost', 'user:pass', '[::1]', 'localhost:3567', 'admin:s3cret-Pass'),
    fc.stringMatching(/^[a-z0-9]{1,12}(:pw-[a-z0-9]{4,12})?$/),
  ),
  { nil: undefined },
);

function url(scheme: string, host: string, p: number | undefined, info: string | undefined, path = ''): string {
  return `${scheme}://${info === undefined ? '' : `${info}@`}${host}${p === undefined ? '' : `:${p}`}${path}`;
}

function refusal(raw: string, allow = false): CliError | undefined {
  try {
    coreEndpoint(raw, allow);
    return undefined;
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
}

const path = fc.constantFrom('', '/', '/auth', '/auth/?token=abc#frag');

describe('plain http is accepted to loopback only', () => {
  it('loopback hosts in any spelling, with any user info and port, are accepted over http', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('http', 'HTTP', 'Http'),
        fc.oneof(loopbackIpv4, loopbackIpv6, localhostName),
        port,
        userinfo,
        path,
        (scheme, host, p, info, tail) => {
          const raw = url(scheme, host, p, info, tail);
          expect(refusal(raw), raw).toBeUndefined();
          expect(coreEndpoint(raw).insecureWarning).toBeUndefined();
        },
      ),
      { numRuns: 400 },
    );
  });

  it('any other host over http is refused with exit 2, whatever the user info says', () => {
    fc.assert(
      fc.property(fc.oneof(otherIpv4, otherIpv6, otherName), port, userinfo, path, (host, p, info, tail) => {
        const raw = url('http', host, p, info, tail);
        const error = refusal(raw);
        expect(error, raw).toBeDefined();
        expect(error?.exitCode).toBe(EXIT.usage);
        expect(error?.message).toMatch(/^refusing to talk to the core at http:\/\/\S+ over plain http: /);
        // The refusal never shows the URL's user name, password or query string.
        const password = info?.match(/:(pw-\w+|s3cret-Pass)$/)?.[1];
        if (password !== undefined) expect(error?.message).not.toContain(password);
        expect(error?.message).not.toContain('token=abc');
      }),
      { numRuns: 400 },
    );
  });

  it('https is accepted to any host, without a warning', () => {
    fc.assert(
      fc.property(
        fc.oneof(otherIpv4, otherIpv6, otherName, loopbackIpv4, localhostName),
        port,
        userinfo,
        (host, p, info) => {
          const raw = url('https', host, p, info);
          expect(refusal(raw), raw).toBeUndefined();
          expect(coreEndpoint(raw).insecureWarning).toBeUndefined();
        },
      ),
      { numRuns: 200 },
    );
  });

  it('--allow-insecure-http lets http go to another host, with a warning that shows no credential', () => {
    fc.assert(
      fc.property(fc.oneof(otherIpv4, otherIpv6, otherName), port, (host, p) => {
        const raw = url('http', host, p, 'gateway-user:gateway-pass-77', '/core?token=tok-99');
        const endpoint = coreEndpoint(raw, true);
        expect(endpoint.insecureWarning).toMatch(
          /^warning: talking to the core at http:\/\/\S+ over plain http \(--allow-insecure-http\): the API key and every credential sent cross the network unencrypted$/,
        );
        for (const secret of ['gateway-user', 'gateway-pass-77', 'tok-99'])
          expect(endpoint.insecureWarning).not.toContain(secret);
      }),
      { numRuns: 200 },
    );
  });

  it('the user-info trick: the host after @ is the one that counts', () => {
    expect(refusal('http://127.0.0.1@evil.example')?.message).toContain('http://evil.example');
    expect(refusal('http://localhost:3567@evil.example:3567/')?.message).toContain('http://evil.example:3567');
    expect(refusal('http://evil.example@127.0.0.1:3567')).toBeUndefined();
    expect(refusal('http://[::1]@10.0.0.1')).toBeDefined();
    // The parser reads a backslash as a slash: the host ends before it.
    expect(refusal('http://evil.example\\@127.0.0.1/')).toBeDefined();
  });

  it('the message says why and how to go on', () => {
    expect(refusal('http://core.internal:3567')?.message).toBe(
      "refusing to talk to the core at http://core.internal:3567 over plain http: the API key, the export's password hashes, " +
        'TOTP secrets and passwords, and the Firebase signer key would cross the network unencrypted. ' +
        'Use an https:// URL (or a loopback address: 127.0.0.1, [::1], localhost), or add --allow-insecure-http ' +
        'if the network between here and the core is yours to trust (docs/security.md "Transport"). Nothing was read or sent.',
    );
  });

  it("isLoopbackHost takes the parser's forms only: no name other than localhost, no lookup", () => {
    for (const host of ['127.0.0.1', '127.255.255.255', '[::1]', '[::ffff:7f00:1]', 'localhost', 'localhost.'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of [
      '0.0.0.0',
      '128.0.0.1',
      '126.255.255.255',
      '[::]',
      '[::ffff:a00:1]',
      'ip6-localhost',
      'localhost..',
      '127.0.0.1.example',
      '[::1]:80',
    ])
      expect(isLoopbackHost(host), host).toBe(false);
  });

  it('the client refuses in its constructor, before any request', () => {
    let requests = 0;
    const original = globalThis.fetch;
    globalThis.fetch = (() => {
      requests += 1;
      throw new Error('no request may be made');
    }) as typeof fetch;
    try {
      expect(() => new CoreClient({ url: 'http://192.0.2.1:3567', appId: 'shop', apiKey: 'k-1234' })).toThrow(CliError);
      const allowed = new CoreClient({ url: 'http://192.0.2.1:3567', appId: 'shop', allowInsecureHttp: true });
      expect(allowed.insecureWarning).toContain('http://192.0.2.1:3567');
    } finally {
      globalThis.fetch = original;
    }
    expect(requests).toBe(0);
  });
});
