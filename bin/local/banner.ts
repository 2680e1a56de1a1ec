/**
 * Last start-up step of the local runtime (bin/local/runtime.ts): the lines it prints once it
 * serves — where it listens, what it requires, where its data and key are, what runs around it.
 */
import type { AddressInfo } from 'node:net';
import { ENV } from '#functions/shared/env.js';
import { displayUrl } from '../shared/display-url.js';
import type { HandlerEnvironment } from './handler-env.js';
import { HASHING_ROUTE_IDS, type HashingContexts } from './hashing-routes.js';
import type { LocalOptions } from './options.js';
import type { RunningService } from './services.js';
import type { Storage } from './start-storage.js';

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function apiKeyStatus(apiKeys: unknown): string {
  const count =
    typeof apiKeys === 'string'
      ? apiKeys
          .replace(/\s/g, '')
          .split(',')
          .filter((k) => k !== '').length
      : 0;
  if (count === 0) return `not required (set ${ENV.apiKeys} to require one)`;
  return `required — ${count} key${count === 1 ? '' : 's'} from ${ENV.apiKeys}; send one in the 'api-key' header`;
}

/** Whether the base configuration turns account linking, MFA and the OAuth2 provider on (an app's coreConfig may differ). */
function featureStatus(base: Readonly<Record<string, unknown>>): string {
  const on = (key: string) =>
    base[key] === true || (typeof base[key] === 'string' && base[key].toLowerCase() === 'true');
  const state = (key: string) => (on(key) ? 'on' : 'off');
  return `account linking ${state('account_linking_enabled')}, MFA ${state('mfa_enabled')}, OAuth2 provider ${state('oauth_provider_enabled')} by default`;
}

export interface Ready {
  readonly options: LocalOptions;
  /** performance.now() when the runtime started. */
  readonly started: number;
  readonly address: AddressInfo;
  readonly base: Readonly<Record<string, unknown>>;
  readonly routeCount: number;
  readonly handlerSource: string;
  readonly environment: HandlerEnvironment;
  readonly storage: Storage;
  readonly services: readonly { name: string; running: RunningService }[];
  readonly hashing: HashingContexts | undefined;
  readonly handlersMs: number;
}

/** The banner printed when the runtime is ready. */
export function readyBanner(ready: Ready): string {
  const { options, address, base, environment, storage, hashing } = ready;
  const external = options.dynamodbEndpoint;
  const { tightened, localKey } = storage;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const anyInterface = host === '0.0.0.0' || host === '[::]';
  const url = `http://${anyInterface ? '127.0.0.1' : host}:${address.port}`;
  const lines = [
    '',
    `Auth core (local) ready in ${seconds(performance.now() - ready.started)} ` +
      `(${external ? 'DynamoDB' : 'DynamoDB Local'} ${seconds(storage.dynamoMs)}, handlers ${seconds(ready.handlersMs)})`,
    `  URL:       ${url}${anyInterface ? ` (listening on all interfaces, port ${address.port})` : ''}`,
    `  API keys:  ${apiKeyStatus(base.api_keys)}`,
    `  Requests:  from servers only: a foreign Origin or Host is refused (403)${
      options.allowedHosts.length > 0 ? `; ALLOWED_HOSTS ${options.allowedHosts.join(', ')}` : ''
    }`,
    `  Handlers:  ${ready.handlerSource}`,
    `  Data:      ${
      external
        ? `in the DynamoDB at ${displayUrl(external.url)}`
        : options.dataDir === undefined
          ? 'in memory (lost when the runtime stops)'
          : `${options.dataDir} (owner only: the folder 0700, its files 0600${tightened.length > 0 ? `; tightened now: ${tightened.map((t) => `${t.name} was ${t.was}`).join(', ')}` : ''})`
    }`,
    `  Key:       ${
      localKey.path === undefined
        ? 'in memory (seals staged credentials; lost when the runtime stops, like the data)'
        : `${localKey.path} (${localKey.created ? 'created now' : 'existing'}; seals staged credentials: keep it with the data)`
    }`,
    `  DynamoDB:  ${storage.dynamoLine}`,
    `  Features:  ${featureStatus(base)}${
      Object.keys(environment.features).length > 0 ? " (in memory: on unless an app's coreConfig turns them off)" : ''
    }`,
    ...ready.services.flatMap((s) => s.running.banner ?? []).map((line) => `  ${line}`),
    ...(options.writeCapacity === undefined
      ? []
      : [
          `  Capacity:  LIMITED — every table ${options.writeCapacity.initialUnits} WRU/s at first (reads count a third), ` +
            `doubled ${options.writeCapacity.doublingSeconds} s after a sustained peak, up to ${options.writeCapacity.maxUnits}; ` +
            `throttled beyond, as DynamoDB does (--write-capacity; handlers reach DynamoDB through ${environment.capacity?.endpoint})`,
        ]),
    ...(options.simulateThrottling === undefined
      ? []
      : [
          `  Throttling: SIMULATED — ${Math.round(options.simulateThrottling * 1000) / 10} % of DynamoDB calls fail ` +
            'with throttling errors (rehearsal of a busy table: --simulate-throttling)',
        ]),
    ...(hashing ? [`  Hashing:   ${HASHING_ROUTE_IDS.join(', ')} in ${hashing.size} worker threads`] : []),
    ...(options.functionTimeoutCap === undefined
      ? []
      : [
          `  Timeouts:  every function at most ${options.functionTimeoutCap} s (LOCAL_FUNCTION_TIMEOUT_SECONDS; ` +
            'a rehearsal setting, not what AWS runs)',
        ]),
    `  ${ready.routeCount} routes; Ctrl-C to stop.`,
    '',
  ];
  return lines.join('\n');
}
