import { isAbsolute, resolve } from 'node:path';
import { isAwsEndpoint } from '#functions/shared/clients.js';
import { parseThrottlingFraction } from '#functions/shared/simulated-throttling.js';
import { displayUrl } from '../shared/display-url.js';
import { BUNDLES_ENV } from './bundles.js';
import { type CapacitySettings, parseWriteCapacity } from './capacity.js';
import { localTimeoutCap, MIN_LOCAL_FUNCTION_TIMEOUT_SECONDS } from './timeouts.js';

/** Settings of one local runtime, from the command line and the environment. */
export interface LocalOptions {
  /** HTTP port (0 = any free port). */
  readonly port: number;
  readonly host: string;
  /** Absolute directory DynamoDB Local persists to; undefined = in memory. */
  readonly dataDir: string | undefined;
  readonly tableName: string;
  readonly region: string;
  /** DynamoDB Local's port; undefined = any free port. */
  readonly dynamodbPort: number | undefined;
  /**
   * An already-running DynamoDB to use instead of starting the bundled DynamoDB Local
   * (`DYNAMODB_ENDPOINT`); undefined = the bundled one.
   */
  readonly dynamodbEndpoint: ExternalDynamoDb | undefined;
  /** Rehearsal: the fraction of DynamoDB calls that fail with throttling errors; undefined = none. */
  readonly simulateThrottling: number | undefined;
  /**
   * Rehearsal: every table has an on-demand table's capacity (`--write-capacity`, capacity.ts) and
   * DynamoDB's throttling answers beyond it; undefined = DynamoDB Local's unlimited capacity.
   */
  readonly writeCapacity: CapacitySettings | undefined;
  /** Host names requests may name besides the bound address (`ALLOWED_HOSTS`; request-guard.ts). */
  readonly allowedHosts: readonly string[];
  /** `LOCAL_FUNCTION_TIMEOUT_SECONDS`: every function's timeout at most this (timeouts.ts); undefined = the manifests'. */
  readonly functionTimeoutCap: number | undefined;
}

export interface ExternalDynamoDb {
  readonly url: string;
  /**
   * A region's endpoint (`https://dynamodb.<region>.amazonaws.com`): requests are signed with the
   * default credential chain, and tables are only checked, never created. Otherwise a DynamoDB
   * Local (a container, another machine): tables are created as on the bundled one.
   */
  readonly aws: boolean;
}

const DEFAULT_PORT = 3567;
const DEFAULT_HOST = '127.0.0.1';
const DEFAULT_DATA_DIR = '.data';
const DEFAULT_TABLE_NAME = 'auth-core';
const DEFAULT_REGION = 'us-east-1';

export const USAGE = `Usage: npm start [-- --in-memory] [-- --simulate-throttling=<fraction>] [-- --write-capacity=<units>]

Runs the core on this machine: DynamoDB Local plus the real handlers behind an HTTP server.

Options:
  --in-memory   keep the data in memory (lost on exit) instead of under DATA_DIR; as the reference
                core on its in-memory database, account linking, MFA and the OAuth2 provider
                are on for every app (ACCOUNT_LINKING_ENABLED / MFA_ENABLED /
                OAUTH_PROVIDER_ENABLED default to true; an app's coreConfig
                account_linking_enabled / mfa_enabled / oauth_provider_enabled may turn them off)
  --simulate-throttling=<fraction>
                a rehearsal of a busy table: that fraction (e.g. 0.3) of the handlers' DynamoDB
                calls fail with DynamoDB's throttling errors before they reach DynamoDB Local
  --write-capacity=<units>[,<doubling seconds>]
                a rehearsal of a table's capacity: every table serves <units> write units per
                second (reads count a third) and throttles beyond, as DynamoDB does; a sustained
                peak doubles it after <doubling seconds> (default 1800, as AWS's on-demand tables),
                up to 40,000. E.g. 4000 is a new on-demand table, 40000 one warmed to the quota
  --help        show this text

Environment:
  PORT           HTTP port (default ${DEFAULT_PORT})
  HOST           address to bind (default ${DEFAULT_HOST}; 0.0.0.0 exposes the core to the network)
  DATA_DIR       where DynamoDB Local keeps its database (default ./${DEFAULT_DATA_DIR})
  TABLE_NAME     DynamoDB table name (default ${DEFAULT_TABLE_NAME})
  API_KEYS       comma-separated API keys; when set, requests must send one (header api-key)
  ALLOWED_HOSTS  comma-separated host names (name or name:port) requests may use besides the bound
                 address, e.g. a container network's name for the core; any other Host, and any
                 Origin but the core's own, is refused with 403 (cross-site requests, DNS rebinding)
  DYNAMODB_PORT  DynamoDB Local's port (default: any free port)
  DYNAMODB_ENDPOINT  an already-running DynamoDB instead of the bundled DynamoDB Local (no Java
                 needed; DATA_DIR and --in-memory do not apply): a DynamoDB Local container, e.g.
                 http://localhost:8000 (tables are created as needed), or a region's endpoint, e.g.
                 https://dynamodb.eu-west-1.amazonaws.com (the default AWS credential chain signs;
                 the tables must exist and are only checked)
  AWS_REGION     region the handlers' clients use (default ${DEFAULT_REGION})
  LOCAL_FUNCTION_TIMEOUT_SECONDS  tests and rehearsals: every function's timeout at most this many
                 seconds (${MIN_LOCAL_FUNCTION_TIMEOUT_SECONDS}-900; default: each function's own, as on AWS)
  HANDLER_BUNDLES  a cdk.out directory (npm run synth): run each function's esbuild bundle from it,
                 as Lambda would, instead of the TypeScript sources`;

/**
 * The switches of the features the reference core sells under licence and turns on for every app
 * when it runs on its in-memory database (for tests): the environment variables of the base-config
 * keys `account_linking_enabled`, `mfa_enabled` and `oauth_provider_enabled`. `--in-memory` does the same here: they default
 * to `true` (an app's coreConfig may still turn them off), unless the
 * environment sets them. A persisted or external database keeps the registry's default (off).
 */
export const IN_MEMORY_FEATURE_VARIABLES = [
  'ACCOUNT_LINKING_ENABLED',
  'MFA_ENABLED',
  'OAUTH_PROVIDER_ENABLED',
] as const;

/**
 * The environment variables `--in-memory` adds: each feature switch the environment leaves unset
 * (absent or empty), as `true`. Empty for any other runtime.
 */
export function inMemoryFeatureEnv(options: LocalOptions, env: NodeJS.ProcessEnv): Record<string, string> {
  if (options.dataDir !== undefined || options.dynamodbEndpoint !== undefined) return {};
  const added: Record<string, string> = {};
  for (const name of IN_MEMORY_FEATURE_VARIABLES) {
    if ((env[name] ?? '') === '') added[name] = 'true';
  }
  return added;
}

/** A problem with the command line or the environment; the message is meant for the user. */
export class OptionsError extends Error {
  override readonly name = 'OptionsError';
}

export type ParsedCommand = { readonly help: true } | { readonly help: false; readonly options: LocalOptions };

function parsePort(name: string, value: string | undefined, fallback: number | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return fallback;
  const trimmed = value.trim();
  const port = Number(trimmed);
  if (!/^\d+$/.test(trimmed) || port > 65535) {
    throw new OptionsError(`${name} must be a port number between 0 and 65535, got '${value}'`);
  }
  return port;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export function parseCommand(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string): ParsedCommand {
  let inMemory = false;
  let simulateThrottling: number | undefined;
  let writeCapacity: CapacitySettings | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--in-memory') inMemory = true;
    else if (arg === '--write-capacity' || arg.startsWith('--write-capacity=')) {
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
      try {
        writeCapacity = parseWriteCapacity(value ?? '');
      } catch (error) {
        throw new OptionsError(`--write-capacity: ${(error as Error).message}`);
      }
    } else if (arg === '--help' || arg === '-h') return { help: true };
    else if (arg === '--simulate-throttling' || arg.startsWith('--simulate-throttling=')) {
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
      try {
        simulateThrottling = parseThrottlingFraction(value ?? '');
      } catch (error) {
        throw new OptionsError(`--simulate-throttling: ${(error as Error).message}`);
      }
      if (value === undefined || value.trim() === '') {
        throw new OptionsError('--simulate-throttling needs a fraction, e.g. --simulate-throttling=0.3');
      }
    } else throw new OptionsError(`Unknown option '${arg}'`);
  }
  // The function bundles carry a refusing stand-in instead (lib/bundling/no-simulated-throttling.ts).
  if (simulateThrottling !== undefined && nonEmpty(env[BUNDLES_ENV]) !== undefined) {
    throw new OptionsError(
      `--simulate-throttling runs the handlers from the sources: the function bundles leave it out (unset ${BUNDLES_ENV})`,
    );
  }
  const dataDirSetting = nonEmpty(env.DATA_DIR) ?? DEFAULT_DATA_DIR;
  const tableName = nonEmpty(env.TABLE_NAME) ?? DEFAULT_TABLE_NAME;
  if (!/^[a-zA-Z0-9_.-]{3,255}$/.test(tableName)) {
    throw new OptionsError(
      `TABLE_NAME must be 3-255 characters of a-z, A-Z, 0-9, '_', '-' and '.', got '${tableName}'`,
    );
  }
  const dynamodbEndpoint = externalDynamoDb(nonEmpty(env.DYNAMODB_ENDPOINT));
  if (writeCapacity !== undefined && dynamodbEndpoint?.aws) {
    throw new OptionsError('--write-capacity rehearses a table on DynamoDB Local; a table on AWS has its own capacity');
  }
  let region = nonEmpty(env.AWS_REGION);
  if (dynamodbEndpoint) {
    if (inMemory) {
      throw new OptionsError(
        '--in-memory applies to the bundled DynamoDB Local; with DYNAMODB_ENDPOINT the data stays where that DynamoDB keeps it',
      );
    }
    if (nonEmpty(env.DYNAMODB_PORT) !== undefined) {
      throw new OptionsError('DYNAMODB_PORT applies to the bundled DynamoDB Local; DYNAMODB_ENDPOINT names the port');
    }
    const endpointRegion = dynamodbEndpoint.aws ? regionOfAwsEndpoint(dynamodbEndpoint.url) : undefined;
    if (endpointRegion !== undefined) {
      if (region !== undefined && region !== endpointRegion) {
        throw new OptionsError(
          `AWS_REGION is '${region}' but DYNAMODB_ENDPOINT is the endpoint of '${endpointRegion}': set one region`,
        );
      }
      region = endpointRegion;
    }
  }
  return {
    help: false,
    options: {
      port: parsePort('PORT', env.PORT, DEFAULT_PORT) ?? DEFAULT_PORT,
      host: nonEmpty(env.HOST) ?? DEFAULT_HOST,
      // DynamoDB Local silently exits when -dbPath is relative or missing: always hand it an absolute path.
      dataDir:
        inMemory || dynamodbEndpoint
          ? undefined
          : isAbsolute(dataDirSetting)
            ? dataDirSetting
            : resolve(cwd, dataDirSetting),
      tableName,
      region: region ?? DEFAULT_REGION,
      dynamodbPort: parsePort('DYNAMODB_PORT', env.DYNAMODB_PORT, undefined),
      dynamodbEndpoint,
      simulateThrottling,
      writeCapacity,
      allowedHosts: parseAllowedHosts(env.ALLOWED_HOSTS),
      functionTimeoutCap: functionTimeoutCap(env),
    },
  };
}

function functionTimeoutCap(env: NodeJS.ProcessEnv): number | undefined {
  try {
    return localTimeoutCap(env);
  } catch (error) {
    throw new OptionsError((error as Error).message);
  }
}

/** `ALLOWED_HOSTS`: names (or IP addresses, IPv6 in brackets), each with an optional `:port`. */
function parseAllowedHosts(value: string | undefined): string[] {
  const entries = (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    if (!/^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(entry)) {
      throw new OptionsError(
        `ALLOWED_HOSTS must list host names or addresses, each optionally with :port (e.g. core.internal,core.internal:8080), got '${entry}'`,
      );
    }
  }
  return entries;
}

function externalDynamoDb(value: string | undefined): ExternalDynamoDb | undefined {
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    // Shown without user name, password, query or fragment (or not at all when it does not parse).
    throw new OptionsError(
      `DYNAMODB_ENDPOINT must be an http(s) URL such as http://localhost:8000, got '${displayUrl(value)}'`,
    );
  }
  return { url: value.replace(/\/+$/, ''), aws: isAwsEndpoint(value) };
}

/** `eu-west-1` from `https://dynamodb.eu-west-1.amazonaws.com` (and its FIPS and China forms). */
function regionOfAwsEndpoint(url: string): string | undefined {
  const match = /^dynamodb(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$/.exec(new URL(url).hostname);
  return match?.[1];
}
