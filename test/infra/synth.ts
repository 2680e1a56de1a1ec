/**
 * Builds the three stacks exactly as bin/app.ts does (same cdk.json context), with esbuild bundling
 * skipped, and returns their templates (the API stack's nested stacks included). Manifest entries
 * whose handler file does not exist (yet) are built with a placeholder entry.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { ROUTES, type RouteDefinition } from '#functions/routes.js';
import { WORKERS, type WorkerDefinition } from '#functions/workers.js';
import { ApiStack } from '../../lib/api-stack.js';
import { REPO_ROOT } from '../../lib/constants.js';
import { DataStack } from '../../lib/data-stack.js';
import { WorkersStack } from '../../lib/workers-stack.js';

export const PLACEHOLDER_HANDLER = 'test/infra/fixtures/placeholder-handler.ts';

export interface SynthOptions {
  readonly routes?: readonly RouteDefinition[];
  readonly workers?: readonly WorkerDefinition[];
  readonly retain?: boolean;
  readonly apiKeysSecretArn?: string;
}

export interface Synthesized {
  readonly data: DataStack;
  readonly api: ApiStack;
  readonly workers: WorkersStack;
  readonly dataTemplate: Template;
  readonly apiTemplate: Template;
  readonly workersTemplate: Template;
  /** One template per route-group nested stack. */
  readonly groupTemplates: readonly Template[];
}

export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  return cdkJson.context ?? {};
}

export function synth(options: SynthOptions = {}): Synthesized {
  const app = new App({
    context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] },
    // CDK's built-in CloudFormation schema validation costs ~10 s per synth on a 2-core machine and
    // only reports warnings; `npm run synth` (cdk synth) still runs it.
    builtinCloudFormationValidation: false,
  });
  const retain = options.retain ?? true;
  const routes = (options.routes ?? ROUTES).map(withExistingHandler);
  const workers = (options.workers ?? WORKERS).map(withExistingHandler);
  const data = new DataStack(app, 'Data', { retain });
  const api = new ApiStack(app, 'Api', {
    routes,
    table: data.table,
    importQueue: data.importQueue.queue,
    retain,
    logRetention: RetentionDays.ONE_MONTH,
    ...(options.apiKeysSecretArn === undefined ? {} : { apiKeysSecretArn: options.apiKeysSecretArn }),
  });
  const workersStack = new WorkersStack(app, 'Workers', {
    workers,
    table: data.table,
    importQueue: data.importQueue,
    retain,
    logRetention: RetentionDays.ONE_MONTH,
  });
  return {
    data,
    api,
    workers: workersStack,
    dataTemplate: Template.fromStack(data),
    apiTemplate: Template.fromStack(api),
    workersTemplate: Template.fromStack(workersStack),
    groupTemplates: api.routeGroups.map((group) => Template.fromStack(group)),
  };
}

function withExistingHandler<T extends { readonly handler: string }>(entry: T): T {
  return existsSync(join(REPO_ROOT, entry.handler)) ? entry : { ...entry, handler: PLACEHOLDER_HANDLER };
}

export type Resource = { Type: string; Properties?: Record<string, any>; DeletionPolicy?: string };

export function resources(template: Template): Record<string, Resource> {
  return (template.toJSON() as { Resources?: Record<string, Resource> }).Resources ?? {};
}

export function resourcesOfType(template: Template, type: string): [string, Resource][] {
  return Object.entries(resources(template)).filter(([, r]) => r.Type === type);
}
