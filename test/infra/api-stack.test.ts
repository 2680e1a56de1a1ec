import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_EXTENSION_PORT, EXTENSION_PORT_ENV } from '#functions/config/secrets-manager-extension.js';
import { DEFAULT_ROUTE_PATH, gatewayRouteKeys, ROUTES } from '#functions/routes.js';
import { ENV } from '#functions/shared/env.js';
import { createRouter } from '../../bin/local/router.js';
import { routeGroupOf } from '../../lib/api-stack.js';
import {
  DEFAULT_ROUTE_MEMORY_MB,
  DEFAULT_ROUTE_TIMEOUT_SECONDS,
  HTTP_API_ROUTE_QUOTA,
  MAX_RESOURCES_PER_STACK,
  REPO_ROOT,
  ROUTE_GROUP_COUNT,
  ROUTE_QUOTA_HEADROOM,
} from '../../lib/constants.js';
import { TABLE_ACTIONS } from '../../lib/constructs/service-function.js';
import { appTablePrefixOf } from '../../lib/tables.js';
import { resourcesOfType, type Synthesized, synth } from './synth.js';
import {
  expectManifestFunctions,
  prefixTablesArn,
  pseudoArn,
  type RouteFunction,
  resourceCount,
  routeFunctions,
} from './template-helpers.js';

const WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:TransactWriteItems',
];
const isExtensionVariable = (name: string) =>
  name.startsWith('PARAMETERS_SECRETS_EXTENSION_') || name.startsWith('SECRETS_MANAGER_') || name.startsWith('SSM_');
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:auth-core-api-keys-AbC123';

const sorted = (values: readonly string[]) => [...values].sort();
const manifestRouteKeys = ROUTES.flatMap(gatewayRouteKeys);
const routeById = new Map(ROUTES.map((r) => [r.id, r]));

let synthesized: Synthesized;
let functions: RouteFunction[];
let allTemplates: Template[];

beforeAll(() => {
  synthesized = synth();
  allTemplates = [synthesized.apiTemplate, ...synthesized.groupTemplates];
  functions = routeFunctions(synthesized.groupTemplates);
});

describe('routes: manifest, template and local router agree', () => {
  it('creates exactly the manifest route keys', () => {
    const templateKeys = allTemplates.flatMap((t) =>
      resourcesOfType(t, 'AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties?.RouteKey as string),
    );
    expect(templateKeys).toHaveLength(manifestRouteKeys.length);
    expect(sorted(templateKeys)).toEqual(sorted(manifestRouteKeys));
  });

  it('serves the same route keys locally', () => {
    const localKeys = createRouter(ROUTES).routeKeys();
    expect(localKeys).toHaveLength(manifestRouteKeys.length);
    expect(sorted(localKeys)).toEqual(sorted(manifestRouteKeys));
  });

  it('points every route at the function of its manifest entry', () => {
    for (const fn of functions) {
      const route = routeById.get(fn.routeId);
      expect(route, fn.routeId).toBeDefined();
      expect(sorted(fn.routeKeys)).toEqual(sorted(gatewayRouteKeys(route!)));
    }
  });

  it('routes $default to the fallback entry', () => {
    const fallback = ROUTES.find((r) => r.path === DEFAULT_ROUTE_PATH)!;
    expect(functions.find((f) => f.routeKeys.includes('$default'))?.routeId).toBe(fallback.id);
  });
});

describe('API Gateway route quota (docs/deploying-aws.md "Route quota")', () => {
  const count = (type: string) => allTemplates.flatMap((t) => resourcesOfType(t, type)).length;

  it('keeps the route keys of all nested stacks within the routes-per-API quota, with headroom', () => {
    const routeKeys = count('AWS::ApiGatewayV2::Route');
    expect(ROUTE_QUOTA_HEADROOM).toBeGreaterThan(0);
    expect(routeKeys).toBeLessThanOrEqual(HTTP_API_ROUTE_QUOTA - ROUTE_QUOTA_HEADROOM);
  });

  it('spends three keys per tenant API, two per app-specific API and one for $default', () => {
    const entries = ROUTES.filter((r) => r.path !== DEFAULT_ROUTE_PATH);
    const appScoped = entries.filter((r) => r.scope === 'app').length;
    expect(appScoped).toBeGreaterThan(0);
    expect(count('AWS::ApiGatewayV2::Route')).toBe(3 * (entries.length - appScoped) + 2 * appScoped + 1);
  });

  it('uses one integration per function, within the integrations-per-API limit (300, not adjustable)', () => {
    expect(count('AWS::ApiGatewayV2::Integration')).toBe(ROUTES.length);
    expect(ROUTES.length).toBeLessThanOrEqual(300);
  });

  it('documents the quota, its code and the headroom', () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs/deploying-aws.md'), 'utf8');
    expect(doc).toContain('## Route quota');
    expect(doc).toContain('L-65B5C802');
    expect(doc).toContain(`${HTTP_API_ROUTE_QUOTA} routes`);
    expect(doc).toContain(`ROUTE_QUOTA_HEADROOM\` (${ROUTE_QUOTA_HEADROOM})`);
  });
});

describe('route functions', () => {
  it('has one Lambda function per manifest entry, on Node.js 24 on ARM64 with the manifest timeout and memory', () => {
    expectManifestFunctions(
      functions,
      ROUTES.map((r) => r.id),
      (id) => {
        const route = routeById.get(id)!;
        return {
          timeoutSeconds: route.timeoutSeconds ?? DEFAULT_ROUTE_TIMEOUT_SECONDS,
          memoryMb: route.memoryMb ?? DEFAULT_ROUTE_MEMORY_MB,
        };
      },
    );
  });

  it('logs to its own log group with a retention', () => {
    for (const template of synthesized.groupTemplates) {
      const logGroups = new Map(resourcesOfType(template, 'AWS::Logs::LogGroup'));
      for (const [, fn] of resourcesOfType(template, 'AWS::Lambda::Function')) {
        const logGroup = logGroups.get(fn.Properties?.LoggingConfig?.LogGroup?.Ref);
        expect(logGroup?.Properties?.RetentionInDays).toBeGreaterThan(0);
      }
    }
  });

  it('sets TABLE_NAME everywhere and IMPORT_QUEUE_URL only where the queue is used', () => {
    for (const fn of functions) {
      const route = routeById.get(fn.routeId)!;
      const variables = Object.keys(fn.properties.Environment?.Variables ?? {});
      expect(variables).toContain('NODE_OPTIONS');
      expect(variables.includes(ENV.tableName), fn.routeId).toBe(route.access.table !== undefined);
      expect(variables.includes(ENV.importQueueUrl), fn.routeId).toBe(route.access.queue !== undefined);
    }
  });

  it('has no hard-coded function names', () => {
    expect(functions.filter((f) => f.properties.FunctionName !== undefined)).toEqual([]);
  });
});

describe('least privilege from route.access', () => {
  it('gives read-only routes no write actions', () => {
    for (const fn of functions.filter((f) => routeById.get(f.routeId)!.access.table === 'read')) {
      expect(fn.actions, fn.routeId).toContain('dynamodb:Query');
      expect(fn.actions, fn.routeId).toContain('kms:Decrypt');
      expect(
        fn.actions.filter((a) => WRITE_ACTIONS.includes(a) || a.startsWith('kms:Encrypt')),
        fn.routeId,
      ).toEqual([]);
    }
  });

  it('gives write routes write actions', () => {
    const writers = functions.filter((f) => routeById.get(f.routeId)!.access.table === 'write');
    expect(writers.length).toBeGreaterThan(0);
    for (const fn of writers) {
      expect(fn.actions, fn.routeId).toEqual(
        expect.arrayContaining([
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
          'dynamodb:DeleteItem',
          'kms:GenerateDataKey*',
        ]),
      );
    }
  });

  it('never grants Scan, wildcards or table administration', () => {
    for (const fn of functions) {
      const dynamo = fn.actions.filter((a) => a.startsWith('dynamodb:'));
      expect(
        dynamo.filter(
          (a) => a === 'dynamodb:Scan' || a.includes('*') || (/Table|Backup/.test(a) && a !== 'dynamodb:DescribeTable'),
        ),
        fn.routeId,
      ).toEqual([]);
    }
  });

  it("grants the route's table actions on the stage's app tables (by prefix, indexes by name) and sets the prefix", () => {
    const prefix = appTablePrefixOf('test');
    const tables = prefixTablesArn(prefix);
    for (const fn of functions) {
      const route = routeById.get(fn.routeId)!;
      if (route.access.table === undefined) continue;
      const actionsOn = (arn: string) =>
        sorted(
          fn.statements
            .filter((s) => s.resources.some((r) => pseudoArn(r) === arn))
            .flatMap((s) => s.actions)
            .filter((a) => a !== 'dynamodb:DescribeTable'),
        );
      for (const arn of [tables, ...['GSI1', 'GSI2', 'GSI3'].map((i) => `${tables}/index/${i}`)]) {
        expect(actionsOn(arn), `${fn.routeId} ${arn}`).toEqual(sorted(TABLE_ACTIONS[route.access.table]));
      }
      expect(fn.properties.Environment?.Variables?.[ENV.appTablePrefix], fn.routeId).toBe(prefix);
    }
  });

  it('lets only the app PUT routes describe tables, and only the app tables', () => {
    const tables = prefixTablesArn(appTablePrefixOf('test'));
    for (const fn of functions) {
      const describers = fn.statements.filter((s) => s.actions.includes('dynamodb:DescribeTable'));
      if (routeById.get(fn.routeId)!.access.describeTables) {
        expect(describers, fn.routeId).toEqual([{ actions: ['dynamodb:DescribeTable'], resources: expect.anything() }]);
        expect(describers[0]!.resources.map(pseudoArn), fn.routeId).toEqual([tables]);
      } else {
        expect(describers, fn.routeId).toEqual([]);
      }
    }
    expect(
      ROUTES.filter((r) => r.access.describeTables)
        .map((r) => r.id)
        .sort(),
    ).toEqual(['app-put', 'app-put-v2']);
  });

  it('lets only routes with queue access send to SQS, and none consume', () => {
    for (const fn of functions) {
      const sqs = fn.actions.filter((a) => a.startsWith('sqs:'));
      const route = routeById.get(fn.routeId)!;
      if (route.access.queue === 'send') expect(sqs, fn.routeId).toContain('sqs:SendMessage');
      else expect(sqs, fn.routeId).toEqual([]);
      expect(sqs.filter((a) => a === 'sqs:ReceiveMessage' || a === 'sqs:DeleteMessage' || a === 'sqs:*')).toEqual([]);
    }
  });

  it('lets the staging route send to the import queue and tells it the queue URL', () => {
    const staging = ROUTES.filter((r) => r.access.queue === 'send');
    expect(staging.map((r) => r.id)).toContain('bulk-import-users-add');
    for (const route of staging) {
      const fn = functions.find((f) => f.routeId === route.id)!;
      expect(fn.actions, route.id).toEqual(expect.arrayContaining(['sqs:SendMessage', 'kms:GenerateDataKey*']));
      expect(fn.properties.Environment?.Variables?.[ENV.importQueueUrl], route.id).toBeDefined();
      expect(fn.properties.Environment?.Variables?.[ENV.importDlqUrl], route.id).toBeUndefined();
    }
  });
});

describe('an open API (-c openApi=true): no API-keys secret', () => {
  let open: RouteFunction[];

  beforeAll(() => {
    open = routeFunctions(synth({ context: { openApi: 'true' } }).groupTemplates);
  });

  it('has no secret ARN, no layer and no Parameters and Secrets extension settings', () => {
    expect(open).toHaveLength(ROUTES.length);
    for (const fn of open) {
      expect(fn.properties.Layers, fn.routeId).toBeUndefined();
      const variables = Object.keys(fn.properties.Environment?.Variables ?? {});
      expect(variables, fn.routeId).not.toContain(ENV.apiKeysSecretArn);
      expect(variables.filter(isExtensionVariable), fn.routeId).toEqual([]);
    }
  });

  it('grants no secret access', () => {
    expect(open.flatMap((f) => f.actions).filter((a) => a.startsWith('secretsmanager:'))).toEqual([]);
  });
});

describe('with an API-keys secret', () => {
  let groupTemplates: readonly Template[];
  let withSecret: RouteFunction[];

  beforeAll(() => {
    groupTemplates = synth({ apiKeysSecretArn: SECRET_ARN }).groupTemplates;
    withSecret = routeFunctions(groupTemplates);
  });

  it('attaches the arm64 AWS Parameters and Secrets Lambda Extension layer to every route function', () => {
    expect(withSecret).toHaveLength(ROUTES.length);
    for (const template of groupTemplates) {
      const mappings = (template.toJSON().Mappings ?? {}) as Record<string, Record<string, Record<string, string>>>;
      for (const [, fn] of resourcesOfType(template, 'AWS::Lambda::Function')) {
        const layers = fn.Properties?.Layers as { 'Fn::FindInMap': [string, unknown, string] }[];
        expect(layers).toHaveLength(1);
        const [mapName, region, column] = layers[0]!['Fn::FindInMap'];
        expect(region).toEqual({ Ref: 'AWS::Region' });
        const arns = Object.values(mappings[mapName] ?? {}).map((row) => row[column]);
        expect(arns.length).toBeGreaterThan(10);
        for (const arn of arns) {
          expect(arn).toMatch(
            /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:\d+$/,
          );
        }
      }
    }
  });

  it('configures the extension where the fetcher looks for it: default port, no cache of its own (the 5-minute key bound is the function’s), a 3 s cut-off', () => {
    for (const fn of withSecret) {
      const variables = fn.properties.Environment.Variables as Record<string, unknown>;
      expect(variables, fn.routeId).toMatchObject({
        [EXTENSION_PORT_ENV]: String(DEFAULT_EXTENSION_PORT),
        PARAMETERS_SECRETS_EXTENSION_CACHE_ENABLED: 'false',
        PARAMETERS_SECRETS_EXTENSION_CACHE_SIZE: '0',
        PARAMETERS_SECRETS_EXTENSION_LOG_LEVEL: 'warn',
        SECRETS_MANAGER_TIMEOUT_MILLIS: '3000',
      });
    }
  });

  it('passes the secret ARN and grants read access to exactly that secret', () => {
    for (const fn of withSecret) {
      expect(fn.properties.Environment.Variables[ENV.apiKeysSecretArn]).toBe(SECRET_ARN);
      expect(fn.actions).toContain('secretsmanager:GetSecretValue');
      const secretActions = fn.statements.filter((st) => st.actions.some((a) => a.startsWith('secretsmanager:')));
      expect(secretActions.map((st) => st.resources)).toEqual([[SECRET_ARN]]);
    }
    for (const template of groupTemplates) {
      const statements = resourcesOfType(template, 'AWS::IAM::Policy').flatMap(
        ([, p]) => p.Properties?.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
      );
      for (const statement of statements.filter((s) => [s.Action].flat().includes('secretsmanager:GetSecretValue'))) {
        expect(statement.Resource).toBe(SECRET_ARN);
      }
    }
  });
});

describe('stack layout', () => {
  it('outputs the API URL', () => {
    synthesized.apiTemplate.hasOutput('ApiUrl', {});
  });

  it('uses an HTTP API with a $default stage', () => {
    synthesized.apiTemplate.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    synthesized.apiTemplate.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' });
    synthesized.apiTemplate.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
    });
    for (const template of synthesized.groupTemplates) {
      for (const [, integration] of resourcesOfType(template, 'AWS::ApiGatewayV2::Integration')) {
        expect(integration.Properties?.PayloadFormatVersion).toBe('2.0');
      }
    }
  });

  it('puts route functions in at most ROUTE_GROUP_COUNT nested stacks, by route id', () => {
    expect(synthesized.api.routeGroups.length).toBeLessThanOrEqual(ROUTE_GROUP_COUNT);
    for (const group of synthesized.api.routeGroups) {
      const groupIndex = Number(group.node.id.replace('Routes', ''));
      const ids = routeFunctions([synthesized.groupTemplates[synthesized.api.routeGroups.indexOf(group)]!]).map(
        (f) => f.routeId,
      );
      expect(ids.every((id) => routeGroupOf(id) === groupIndex)).toBe(true);
    }
  });

  it('keeps every stack and nested stack under the resource limit', () => {
    for (const template of [synthesized.dataTemplate, synthesized.workersTemplate, ...allTemplates]) {
      expect(resourceCount(template)).toBeLessThan(MAX_RESOURCES_PER_STACK);
    }
  });
});
