/**
 * Builds a stage exactly as bin/app.ts does (lib/stage.ts, same cdk.json context, settings from
 * context), with esbuild bundling skipped, and returns its templates (the API stack's nested
 * stacks included). Manifest entries whose handler file does not exist (yet) are built with a
 * placeholder entry.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ROUTES, type RouteDefinition } from '#functions/routes.js';
import { WORKERS, type WorkerDefinition } from '#functions/workers.js';
import type { ApiStack } from '../../lib/api-stack.js';
import { REPO_ROOT } from '../../lib/constants.js';
import type { DataStack } from '../../lib/data-stack.js';
import { addStage, stageConfigFromContext } from '../../lib/stage.js';
import type { WorkersStack } from '../../lib/workers-stack.js';

export const PLACEHOLDER_HANDLER = 'test/infra/fixtures/placeholder-handler.ts';

export interface SynthOptions {
  readonly routes?: readonly RouteDefinition[];
  readonly workers?: readonly WorkerDefinition[];
  readonly retain?: boolean;
  readonly apiKeysSecretArn?: string;
  /** Further `-c name=value` settings (lib/stage.ts). */
  readonly context?: Readonly<Record<string, string>>;
}

export interface Synthesized {
  readonly app: App;
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

/** An app with cdk.json's context plus `context`, bundling skipped. */
function testApp(context: Readonly<Record<string, unknown>> = {}): App {
  return new App({
    context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [], ...context },
    // CDK's built-in CloudFormation schema validation costs ~10 s per synth on a 2-core machine and
    // only reports warnings; `npm run synth` (cdk synth) still runs it.
    builtinCloudFormationValidation: false,
  });
}

export function synth(options: SynthOptions = {}): Synthesized {
  const context: Record<string, string> = {
    stage: 'test',
    retain: String(options.retain ?? true),
    ...(options.apiKeysSecretArn === undefined ? {} : { apiKeysSecretArn: options.apiKeysSecretArn }),
    ...options.context,
  };
  const app = testApp(context);
  const config = stageConfigFromContext((name) => app.node.tryGetContext(name));
  const { data, api, workers } = addStage(app, config, {
    routes: (options.routes ?? ROUTES).map(withExistingHandler),
    workers: (options.workers ?? WORKERS).map(withExistingHandler),
  });
  return {
    app,
    data,
    api,
    workers,
    dataTemplate: Template.fromStack(data),
    apiTemplate: Template.fromStack(api),
    workersTemplate: Template.fromStack(workers),
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
