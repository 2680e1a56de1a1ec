/**
 * The command end to end (a child process, as `npx auth-core` runs it) on what it sends and what it
 * leaves behind:
 * - plain http to an address of this machine's network interface (not loopback) is refused by every
 *   subcommand before anything is read or sent: a server listening there sees no connection at all;
 * - with --allow-insecure-http the run goes through (here via a forwarder on that address to `npm
 *   start`'s runtime) and warns on stderr, in the --json summary and in the report;
 * - Keycloak OTP credentials and Supabase TOTP factors arrive as TOTP devices once the app has
 *   mfa_enabled (the command stops before staging them while it has not); factors that cannot be
 *   carried and metadata keys that look like credentials are reported per user; no secret is printed
 *   or written.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIREBASE_HASH_CONFIG_TEXT, supertokensExport } from '../fixtures/migrate/exports.js';
import {
  type FactorExport,
  firebaseMfaRecord,
  keycloakFactorsExport,
  supabaseFactorsExport,
} from '../fixtures/migrate/second-factors.js';
import type { LocalProcess } from '../helpers/local-process.js';
import {
  type CommandResult,
  coreCaller,
  createApp,
  expectNoCredential,
  readNdjson,
  runCommand,
  startRuntime,
  stopRuntime,
} from './migrate-helpers.js';

const API_KEY = `transport-e2e-${randomBytes(12).toString('hex')}`;
let runtime: LocalProcess | undefined;
let dir: string;
const core = coreCaller(() => runtime!, API_KEY);

/** An IPv4 address of this machine that is not loopback (every test machine here has one). */
const INTERFACE = Object.values(networkInterfaces())
  .flat()
  .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;

/** A server on the interface address that counts every TCP connection (and answers nothing useful). */
async function listenOnInterface(handler?: Parameters<typeof createServer>[1]): Promise<{
  server: Server;
  url: string;
  connections: () => number;
}> {
  let connections = 0;
  const server = createServer(handler ?? ((_req, res) => res.end('no')));
  server.on('connection', (_socket: Socket) => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, INTERFACE, resolve));
  return {
    server,
    url: `http://${INTERFACE}:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
  };
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

beforeAll(async () => {
  expect(INTERFACE, 'this machine has no IPv4 address besides loopback').toBeDefined();
  ({ runtime, dir } = await startRuntime({ API_KEYS: API_KEY }, 'transport-e2e-'));
});

afterAll(() => stopRuntime(runtime, dir));

describe('plain http off this machine', () => {
  it('is refused by every subcommand before anything is read or sent: the server sees no connection', async () => {
    const listener = await listenOnInterface();
    try {
      const missing = join(dir, 'no-such-export.ndjson');
      const runs: Array<[string[], Record<string, string>]> = [
        [['migrate', missing, '--from', 'supertokens', '--app', 'shop', '--core', listener.url], {}],
        [
          ['migrate', missing, '--from', 'supertokens', '--app', 'shop', '--dry-run', '--json'],
          { AUTH_CORE_URL: listener.url },
        ],
        [
          ['status', '--app', 'shop', '--json'],
          { AUTH_CORE_URL: `${listener.url.replace('http://', 'http://gateway-user:gw-pass-1@')}/` },
        ],
        [['failures', '--app', 'shop', '--remove'], { AUTH_CORE_URL: listener.url }],
      ];
      for (const [args, env] of runs) {
        const result = await runCommand(args, { AUTH_CORE_API_KEY: API_KEY, AUTH_CORE_URL: undefined, ...env });
        expect(result.code, `${args[0]}: ${result.stderr}`).toBe(2);
        expect(result.stderr).toBe(
          `error: refusing to talk to the core at ${listener.url} over plain http: the API key, the export's password hashes, ` +
            'TOTP secrets and passwords, and the Firebase signer key would cross the network unencrypted. ' +
            'Use an https:// URL (or a loopback address: 127.0.0.1, [::1], localhost), or add --allow-insecure-http ' +
            'if the network between here and the core is yours to trust (docs/security.md "Transport"). Nothing was read or sent.\n',
        );
        expect(result.stdout).toBe('');
        expectNoCredential(result, [], [API_KEY, 'gateway-user', 'gw-pass-1'], /\$2[abxy]\$/);
      }
      expect(listener.connections()).toBe(0);
    } finally {
      await close(listener.server);
    }
  });

  it('--allow-insecure-http goes through, warning on stderr, in the --json summary and in the report, on every run', async () => {
    const appId = `tr-${randomBytes(3).toString('hex')}`;
    await createApp(core, appId);
    // A forwarder on the interface address to the runtime on loopback (the Host header made the runtime's).
    const target = new URL(runtime!.url);
    const forwarder = await listenOnInterface((req, res) => {
      const upstream = request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: target.host },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    try {
      const sub = mkdtempSync(join(dir, 'insecure-'));
      const built = await supertokensExport(sub, randomBytes(3).toString('hex'), 2);
      const report = join(sub, 'report.ndjson');
      const warning =
        `warning: talking to the core at ${forwarder.url} over plain http (--allow-insecure-http): ` +
        'the API key and every credential sent cross the network unencrypted';
      const migrate = () =>
        runCommand(
          [
            'migrate',
            built.file,
            '--from',
            'supertokens',
            '--app',
            appId,
            '--report',
            report,
            '--json',
            '--allow-insecure-http',
          ],
          { AUTH_CORE_URL: forwarder.url, AUTH_CORE_API_KEY: API_KEY },
        );
      for (const attempt of [1, 2]) {
        const result = await migrate();
        expect(result.code, result.stderr).toBe(0);
        expect(result.stderr.split('\n')[0]).toBe(warning);
        const summary = JSON.parse(result.stdout);
        expect(summary).toMatchObject({ warnings: [warning], reportLines: 0, resumedChunks: attempt === 1 ? 0 : 1 });
        expect(readNdjson(readFileSync(report, 'utf8'))).toEqual([
          { position: null, sourceId: null, externalUserId: null, stage: 'run', kind: 'warning', messages: [warning] },
        ]);
        expectNoCredential(result, [report], [...built.secrets, API_KEY], /\$2[abxy]\$\d\d\$/);
      }
      const status = await runCommand(['status', '--app', appId, '--json', '--allow-insecure-http'], {
        AUTH_CORE_URL: forwarder.url,
        AUTH_CORE_API_KEY: API_KEY,
      });
      expect(status.code, status.stderr).toBe(0);
      expect(status.stderr).toBe(`${warning}\n`);
      expect(JSON.parse(status.stdout)).toMatchObject({ NEW: 0, PROCESSING: 0, FAILED: 0, warnings: [warning] });
      expect(forwarder.connections()).toBeGreaterThan(0);
      expect((await core('GET', `/appid-${appId}/bulk-import/users/count`)).json.count).toBe(0);
    } finally {
      await close(forwarder.server);
    }
  });
});

describe('second factors and credential-looking metadata, against the core', () => {
  async function devicesOf(appId: string, userId: string): Promise<string[]> {
    const reply = await core('GET', `/appid-${appId}/recipe/totp/device/list?userId=${encodeURIComponent(userId)}`);
    expect(reply.status, reply.text).toBe(200);
    return (reply.json.devices as Array<{ name: string }>).map((d) => d.name).sort();
  }

  const cases: Array<[string, string, (d: string, tag: string) => FactorExport]> = [
    ['keycloak', 'keycloak', keycloakFactorsExport],
    ['supabase (--factors)', 'supabase', supabaseFactorsExport],
  ];
  for (const [label, from, build] of cases) {
    it(`${label}: stopped before staging while the app lacks mfa_enabled; then devices carried, the rest reported`, async () => {
      const appId = `mf-${randomBytes(3).toString('hex')}`;
      await createApp(core, appId, { account_linking_enabled: true });
      const sub = mkdtempSync(join(dir, `${from}-`));
      const built = build(sub, randomBytes(3).toString('hex'));
      const report = join(sub, 'report.ndjson');
      const state = `${built.file}.${appId}.migrate-state.ndjson`;
      const migrate = (extra: string[] = []): Promise<CommandResult> =>
        runCommand(
          ['migrate', built.file, '--from', from, '--app', appId, '--report', report, ...built.args, ...extra],
          {
            AUTH_CORE_URL: runtime!.url,
            AUTH_CORE_API_KEY: API_KEY,
          },
        );

      const stopped = await migrate();
      expect(stopped.code, stopped.stderr).toBe(2);
      expect(stopped.stderr).toContain(
        `but app ${appId} does not have mfa_enabled, and the core imports TOTP devices only into apps that have it: ` +
          `set it (PUT /recipe/multitenancy/app/v2 {"appId":"${appId}","coreConfig":{"mfa_enabled":true}}) and run the same command again`,
      );
      expect((await core('GET', `/appid-${appId}/bulk-import/users/count`)).json.count).toBe(0);

      await createApp(core, appId, { account_linking_enabled: true, mfa_enabled: true });
      const result = await migrate(['--json']);
      expect(result.code, result.stderr).toBe(0);
      const summary = JSON.parse(result.stdout);
      const dropped = Object.values(built.droppedKeys).flat().length;
      expect(summary).toMatchObject({
        imported: built.importedIds.length,
        failed: 0,
        reportLines: 0,
        secondFactors: { carriedAsTotp: Object.keys(built.devices).length, notCarried: built.factorsLeftBehind.length },
        metadataKeysDropped: { keys: dropped, users: Object.keys(built.droppedKeys).length },
      });
      for (const [userId, names] of Object.entries(built.devices))
        expect(await devicesOf(appId, userId)).toEqual([...names].sort());
      for (const userId of built.factorsLeftBehind) expect(await devicesOf(appId, userId)).toEqual([]);

      const lines = readNdjson(readFileSync(report, 'utf8'));
      expect(lines.every((l) => l.kind === 'left-behind' && l.stage === 'convert')).toBe(true);
      expect(lines.map((l) => l.externalUserId).sort()).toEqual(
        [...built.factorsLeftBehind, ...Object.keys(built.droppedKeys)].sort(),
      );
      for (const [userId, paths] of Object.entries(built.droppedKeys)) {
        const messages = lines.find((l) => l.externalUserId === userId)?.messages as string[];
        expect(messages).toEqual(
          paths.map(
            (p) =>
              `userMetadata key ${p} dropped: it looks like a credential, and tokens and secrets never enter user metadata`,
          ),
        );
      }
      // The metadata the core holds has no credential-looking key, and kept the rest.
      for (const userId of Object.keys(built.droppedKeys)) {
        const metadata = await core('GET', `/appid-${appId}/recipe/user/metadata?userId=${encodeURIComponent(userId)}`);
        expect(metadata.status, metadata.text).toBe(200);
        expect(Object.keys(metadata.json.metadata).length).toBeGreaterThan(0);
        expect(metadata.text).not.toMatch(/token|apiKey/);
      }
      expectNoCredential(stopped, [], [...built.secrets, API_KEY], /\$2[abxy]\$\d\d\$|\$pbkdf2/);
      expectNoCredential(result, [report, state], [...built.secrets, API_KEY], /\$2[abxy]\$\d\d\$|\$pbkdf2/);
    });
  }

  it('firebase mfaInfo: the user goes in, each factor reported, the number never written', async () => {
    const appId = `fb-${randomBytes(3).toString('hex')}`;
    await createApp(core, appId);
    const sub = mkdtempSync(join(dir, 'firebase-'));
    const file = join(sub, 'users.json');
    const config = join(sub, 'hash-config.txt');
    writeFileSync(file, JSON.stringify({ users: [firebaseMfaRecord('fb-mfa-1', `fb.${appId}@example.com`)] }));
    writeFileSync(config, FIREBASE_HASH_CONFIG_TEXT);
    const report = join(sub, 'report.ndjson');
    const result = await runCommand(
      ['migrate', file, '--from', 'firebase', '--hash-config', config, '--app', appId, '--report', report],
      { AUTH_CORE_URL: runtime!.url, AUTH_CORE_API_KEY: API_KEY },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      'Second factors: 0 users kept theirs as TOTP devices; 1 users had factors that cannot be carried (report lines of kind left-behind: they enrol again).',
    );
    expect(result.stdout).toContain(
      'Metadata: 1 keys that look like credentials dropped from the userMetadata of 1 users',
    );
    const [line] = readNdjson(readFileSync(report, 'utf8'));
    expect(line).toMatchObject({ externalUserId: 'fb-mfa-1', kind: 'left-behind' });
    expect(line.messages).toEqual([
      'the phone second factor mfaInfo[0] "Work phone" cannot be carried (the core has no SMS second factor); the user enrols a second factor again',
      'the totp second factor mfaInfo[1] "Authenticator" cannot be carried (Firebase exports no TOTP secret); the user enrols a second factor again',
      'userMetadata key customAttributes.session_token dropped: it looks like a credential, and tokens and secrets never enter user metadata',
    ]);
    expectNoCredential(result, [report], ['fb-session-token-0004', '4155550123', API_KEY], /\$f_scrypt\$/);
  });
});
