/**
 * The CDK app: reads the stage configuration from context and wires the stacks. Nothing else.
 * Stacks: `AuthCore-<stage>-Data` (stateful), `-Api` (HTTP API, route functions) and `-Workers`
 * (import pipeline functions), the last two stateless and built from the route and worker manifests.
 *
 *   -c stage=<name>              stack name prefix (default `dev`)
 *   -c retain=false              throw-away stage: data resources are destroyed with the stack
 *   -c apiKeysSecretArn=<arn>    complete ARN of a Secrets Manager secret with the comma-separated API keys
 *   -c logRetentionDays=<days>   function and access log retention (default 30)
 *   -c logLevel=<level>          LOG_LEVEL of every function (debug, info, warn, error)
 */
import { Annotations, App } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { ROUTES } from '#functions/routes.js';
import { WORKERS } from '#functions/workers.js';
import { ApiStack } from '../lib/api-stack.js';
import { DataStack } from '../lib/data-stack.js';
import { WorkersStack } from '../lib/workers-stack.js';

const app = new App();

function context(name: string): string | undefined {
  const value: unknown = app.node.tryGetContext(name);
  if (value === undefined || value === null || value === '') return undefined;
  return String(value);
}

const stage = context('stage') ?? 'dev';
if (!/^[A-Za-z][A-Za-z0-9-]{0,31}$/.test(stage)) {
  throw new Error(`context stage must be a letter followed by up to 31 letters, digits or dashes, got "${stage}"`);
}

const retainValue = context('retain') ?? 'true';
if (retainValue !== 'true' && retainValue !== 'false') {
  throw new Error(`context retain must be true or false, got "${retainValue}"`);
}
const retain = retainValue === 'true';

const apiKeysSecretArn = context('apiKeysSecretArn');
// A complete ARN ends with the 6-character suffix Secrets Manager appends to the name; the grant
// (and GetSecretValue by ARN) needs it.
if (
  apiKeysSecretArn !== undefined &&
  !/^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:.+-[A-Za-z0-9]{6}$/.test(apiKeysSecretArn)
) {
  throw new Error(
    'context apiKeysSecretArn must be the complete ARN of a Secrets Manager secret (…:secret:<name>-<6 chars>)',
  );
}

const logRetentionDays = Number(context('logRetentionDays') ?? '30');
if (!Object.values(RetentionDays).includes(logRetentionDays)) {
  throw new Error(
    `context logRetentionDays must be a CloudWatch Logs retention (1, 3, 5, 7, 14, 30, 60, 90, …), got "${logRetentionDays}"`,
  );
}
const logRetention = logRetentionDays as RetentionDays;

const logLevel = context('logLevel');
if (logLevel !== undefined && !['debug', 'info', 'warn', 'error'].includes(logLevel)) {
  throw new Error(`context logLevel must be debug, info, warn or error, got "${logLevel}"`);
}

// Env-agnostic stacks: synth needs no credentials and does no lookups; `cdk deploy` uses the
// account and region of the deploying credentials.
const data = new DataStack(app, `AuthCore-${stage}-Data`, {
  description: `Auth core ${stage}: key, table, import queues (stateful)`,
  retain,
  terminationProtection: retain,
});

const api = new ApiStack(app, `AuthCore-${stage}-Api`, {
  description: `Auth core ${stage}: HTTP API and route functions (stateless)`,
  routes: ROUTES,
  table: data.table,
  importQueue: data.importQueue.queue,
  retain,
  logRetention,
  ...(apiKeysSecretArn === undefined ? {} : { apiKeysSecretArn }),
  ...(logLevel === undefined ? {} : { logLevel }),
});

new WorkersStack(app, `AuthCore-${stage}-Workers`, {
  description: `Auth core ${stage}: import worker, DLQ consumer, reconciler (stateless)`,
  workers: WORKERS,
  table: data.table,
  importQueue: data.importQueue,
  retain,
  logRetention,
  ...(logLevel === undefined ? {} : { logLevel }),
});

if (apiKeysSecretArn === undefined) {
  Annotations.of(api).addWarningV2(
    'auth-core:no-api-keys',
    'No apiKeysSecretArn given: the deployed core accepts requests without an API key.',
  );
}
