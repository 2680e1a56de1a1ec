/**
 * Start-up step of the local runtime (bin/local/runtime.ts): the handlers' environment, fixed
 * before anything that reads it is imported (handler modules load last, after the background
 * services have added theirs). DynamoDB Local's port is chosen now so its endpoint is known up
 * front; in capacity-limited mode the proxy the handlers reach DynamoDB through starts now too.
 */
import { ENV } from '#functions/shared/env.js';
import { type CapacityProxy, startCapacityProxy } from './capacity-proxy.js';
import { freePort } from './dynamodb.js';
import type { Lifecycle } from './lifecycle.js';
import { inMemoryFeatureEnv, type LocalOptions } from './options.js';

export interface HandlerEnvironment {
  /** The port DynamoDB Local will listen on (undefined with an external DynamoDB). */
  readonly dynamodbPort: number | undefined;
  /** Where DynamoDB is (before the capacity proxy, if any). */
  readonly dynamodbEndpoint: string;
  readonly capacity: CapacityProxy | undefined;
  /** The feature switches turned on for the in-memory runtime (options.ts, inMemoryFeatureEnv). */
  readonly features: Record<string, string>;
}

export async function prepareHandlerEnvironment(
  options: LocalOptions,
  run: Lifecycle,
  say: (message: string) => void,
): Promise<HandlerEnvironment> {
  const external = options.dynamodbEndpoint;
  const dynamodbPort = external ? undefined : (options.dynamodbPort ?? (await freePort()));
  const dynamodbEndpoint = external ? external.url : `http://127.0.0.1:${dynamodbPort}`;
  // Capacity-limited mode: the handlers reach DynamoDB through a proxy that meters every table's
  // units and throttles beyond its budget (capacity-proxy.ts); the import worker's pace starts at
  // that budget. Started now, so the handlers' environment names it from the start.
  let capacity: CapacityProxy | undefined;
  if (options.writeCapacity) {
    capacity = await startCapacityProxy({
      target: dynamodbEndpoint,
      settings: options.writeCapacity,
      region: options.region,
      say,
    });
    const proxy = capacity;
    run.add('the capacity proxy', () => proxy.stop());
    process.env[ENV.importWriteUnits] ??= String(options.writeCapacity.initialUnits);
  }
  process.env[ENV.tableName] = options.tableName;
  process.env[ENV.dynamodbEndpoint] = capacity?.endpoint ?? dynamodbEndpoint;
  // Only the command line turns the rehearsal on (and the banner then says so).
  if (options.simulateThrottling === undefined) delete process.env[ENV.simulateThrottling];
  else process.env[ENV.simulateThrottling] = String(options.simulateThrottling);
  process.env.AWS_REGION = options.region;
  // The functions may call loopback addresses here only (the hook against a legacy endpoint on this
  // machine; docs/security.md "Outbound requests"): the stack never sets it.
  process.env[ENV.localRuntime] = 'true';
  // Against a DynamoDB Local (bundled or a container), a table an app's config names is created on
  // first use; against AWS, tables come from the stack or the operator and are only checked.
  if (external?.aws) delete process.env[ENV.createTables];
  else process.env[ENV.createTables] = 'true';

  // In memory, account linking, MFA and the OAuth2 provider are on for every app unless the environment says otherwise
  // (options.ts, inMemoryFeatureEnv): the base configuration reads them from the environment.
  const features = inMemoryFeatureEnv(options, process.env);
  Object.assign(process.env, features);
  return { dynamodbPort, dynamodbEndpoint, capacity, features };
}
