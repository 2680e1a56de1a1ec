/**
 * The local runtime's guard against cross-site use (bin/local/request-guard.ts): which Host and
 * Origin headers the local core serves, and the 403 text for the others.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crossSiteRefusal, isLoopbackAddress, requestGuard } from '../../bin/local/request-guard.js';

const loopback = requestGuard({ address: '127.0.0.1', port: 3567, configuredHost: '127.0.0.1' });

describe('bound to loopback (the default)', () => {
  it.each(['127.0.0.1:3567', 'localhost:3567', 'LOCALHOST:3567', '[::1]:3567'])(
    'serves Host %s without an Origin (the SDK, curl, the command)',
    (host) => {
      expect(crossSiteRefusal(loopback, { host })).toBeUndefined();
    },
  );

  it("serves the core's own origin", () => {
    expect(crossSiteRefusal(loopback, { host: 'localhost:3567', origin: 'http://localhost:3567' })).toBeUndefined();
    expect(crossSiteRefusal(loopback, { host: '127.0.0.1:3567', origin: 'http://127.0.0.1:3567' })).toBeUndefined();
  });

  it.each([
    ['a DNS name rebound to 127.0.0.1', 'attacker.example:3567'],
    ['another port', 'localhost:3568'],
    ['no port (port 80)', 'localhost'],
    ['a subdomain of localhost', 'evil.localhost:3567'],
    ['empty', ''],
  ])('refuses the Host of %s', (_, host) => {
    expect(crossSiteRefusal(loopback, { host })).toBe(
      `Request refused: Host '${host}' does not name this core (a DNS name that points here is not enough). ` +
        'Use http://127.0.0.1:3567, or list the name in ALLOWED_HOSTS.',
    );
  });

  it('refuses a request without a Host header', () => {
    expect(crossSiteRefusal(loopback, {})).toMatch(/^Request refused: Host '' does not name this core/);
  });

  it.each([
    'http://evil.example',
    'null',
    'http://localhost:3000',
    'https://localhost:3567',
    'http://localhost:3567.evil.example',
    '',
  ])('refuses Origin %s, whatever the Host', (origin) => {
    expect(crossSiteRefusal(loopback, { host: 'localhost:3567', origin })).toBe(
      `Cross-site request refused: Origin '${origin}' is not this core's own. ` +
        'The core is called from servers (the SDK, curl, npx auth-core), never from a web page.',
    );
  });

  it('property: a host name outside the allowed set is refused, whatever it is', () => {
    fc.assert(
      fc.property(fc.domain(), fc.integer({ min: 1, max: 65535 }), (name, port) => {
        const host = `${name}:${port}`;
        fc.pre(!loopback.hosts.has(host.toLowerCase()));
        expect(crossSiteRefusal(loopback, { host })).toMatch(/^Request refused: Host '/);
      }),
    );
  });

  it('property: any Origin but the own ones is refused, and the message shows at most 100 printable characters of it', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 150 }), (origin) => {
        fc.pre(!loopback.origins.has(origin.toLowerCase()));
        const message = crossSiteRefusal(loopback, { host: 'localhost:3567', origin }) as string;
        const shown = /Origin '(.*)' is not this core's own/s.exec(message)?.[1] ?? '';
        expect(shown).toMatch(/^[\x20-\x7e]*…?$/);
        expect(shown.replace(/…$/, '').length).toBeLessThanOrEqual(100);
      }),
    );
  });
});

describe('other addresses', () => {
  it('bound to one address of the network: only that address (and ALLOWED_HOSTS)', () => {
    const guard = requestGuard({
      address: '192.168.1.20',
      port: 3567,
      configuredHost: '192.168.1.20',
      extraHosts: ['core.internal', 'proxy.internal:8080'],
    });
    expect(crossSiteRefusal(guard, { host: '192.168.1.20:3567' })).toBeUndefined();
    expect(crossSiteRefusal(guard, { host: 'core.internal:3567' })).toBeUndefined();
    expect(crossSiteRefusal(guard, { host: 'proxy.internal:8080' })).toBeUndefined();
    expect(crossSiteRefusal(guard, { host: 'proxy.internal:3567' })).toMatch(/^Request refused/);
    expect(crossSiteRefusal(guard, { host: 'localhost:3567' })).toMatch(/^Request refused/);
    expect(guard.url).toBe('http://192.168.1.20:3567');
  });

  it('bound to every interface: the loopback names, the machine name and each interface address', () => {
    const guard = requestGuard({
      address: '0.0.0.0',
      port: 3567,
      configuredHost: '0.0.0.0',
      machineName: 'devbox',
      interfaces: {
        lo: [{ address: '127.0.0.1', family: 'IPv4' } as never],
        eth0: [
          { address: '10.0.0.5', family: 'IPv4' } as never,
          { address: 'fe80::1', family: 'IPv6' } as never,
          { address: '2001:db8::5', family: 'IPv6' } as never,
        ],
      },
    });
    for (const host of ['localhost:3567', 'devbox:3567', '10.0.0.5:3567', '[2001:db8::5]:3567']) {
      expect(crossSiteRefusal(guard, { host }), host).toBeUndefined();
    }
    expect(crossSiteRefusal(guard, { host: '0.0.0.0:3567' })).toMatch(/^Request refused/);
    expect(crossSiteRefusal(guard, { host: 'attacker.example:3567' })).toMatch(/^Request refused/);
  });

  it('port 80: a Host without a port, and the origin without one', () => {
    const guard = requestGuard({ address: '127.0.0.1', port: 80, configuredHost: 'localhost' });
    expect(crossSiteRefusal(guard, { host: 'localhost', origin: 'http://localhost' })).toBeUndefined();
    expect(crossSiteRefusal(guard, { host: 'localhost:80' })).toBeUndefined();
  });

  it('knows loopback addresses', () => {
    expect(['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'].map(isLoopbackAddress)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['0.0.0.0', '10.0.0.1', '::', '128.0.0.1'].map(isLoopbackAddress)).toEqual([false, false, false, false]);
  });
});
