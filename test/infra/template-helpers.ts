/**
 * Reading synthesized templates: which function serves which route (or worker-manifest entry),
 * with what rights.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';
import { type Resource, resources } from './synth.js';

export interface PolicyStatement {
  readonly actions: readonly string[];
  readonly resources: readonly unknown[];
  /** The statement's `Condition` block, if any. */
  readonly conditions?: Record<string, unknown>;
}

export interface RouteFunction {
  /** The manifest id (functions carry `<id>: …` as their description). */
  readonly routeId: string;
  readonly logicalId: string;
  readonly properties: Record<string, any>;
  /** Every IAM action granted to the function's role by inline policies. */
  readonly actions: readonly string[];
  /** The Allow statements of the function role's inline policies. */
  readonly statements: readonly PolicyStatement[];
  /** The route keys whose integration invokes this function. */
  readonly routeKeys: readonly string[];
}

const asArray = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

export function routeFunctions(templates: readonly Template[]): RouteFunction[] {
  return templates.flatMap((template) => {
    const all = resources(template);
    const ofType = (type: string) => Object.entries(all).filter(([, r]) => r.Type === type);
    const integrationTarget = new Map<string, string>(
      ofType('AWS::ApiGatewayV2::Integration').map(([id, r]) => [id, r.Properties?.IntegrationUri['Fn::GetAtt'][0]]),
    );
    const routesByFunction = new Map<string, string[]>();
    for (const [, route] of ofType('AWS::ApiGatewayV2::Route')) {
      const integrationId = route.Properties?.Target['Fn::Join'][1][1].Ref as string;
      const fn = integrationTarget.get(integrationId) ?? '?';
      routesByFunction.set(fn, [...(routesByFunction.get(fn) ?? []), route.Properties?.RouteKey]);
    }
    const policies = ofType('AWS::IAM::Policy');
    return ofType('AWS::Lambda::Function').map(([logicalId, fn]: [string, Resource]) => {
      const properties = fn.Properties ?? {};
      const roleId = properties.Role['Fn::GetAtt'][0] as string;
      const statements: PolicyStatement[] = policies
        .filter(([, p]) => asArray(p.Properties?.Roles).some((role: { Ref?: string }) => role.Ref === roleId))
        .flatMap(([, p]) => asArray(p.Properties?.PolicyDocument.Statement))
        .filter((statement: { Effect: string }) => statement.Effect === 'Allow')
        .map((statement: { Action: string | string[]; Resource: unknown; Condition?: Record<string, unknown> }) => ({
          actions: asArray(statement.Action),
          resources: asArray(statement.Resource),
          ...(statement.Condition ? { conditions: statement.Condition } : {}),
        }));
      const actions = statements.flatMap((statement) => statement.actions);
      return {
        routeId: String(properties.Description).split(':')[0] as string,
        logicalId,
        properties,
        actions,
        statements,
        routeKeys: routesByFunction.get(logicalId) ?? [],
      };
    });
  });
}

export function resourceCount(template: Template): number {
  return Object.keys(resources(template)).length;
}

/**
 * What a cross-stack value of the stack exporting it refers to: `{ 'Fn::ImportValue': name }` →
 * the logical id and attribute (`Ref` for a Ref) of the exporting template's resource.
 */
export function importedFrom(
  exporting: Template,
  value: unknown,
): { logicalId: string; attribute: string } | undefined {
  const name = (value as { 'Fn::ImportValue'?: unknown } | undefined)?.['Fn::ImportValue'];
  if (typeof name !== 'string') return undefined;
  const outputs = (exporting.toJSON() as { Outputs?: Record<string, { Value: any; Export?: { Name?: string } }> })
    .Outputs;
  const output = Object.values(outputs ?? {}).find((o) => o.Export?.Name === name);
  if (output === undefined) return undefined;
  if (output.Value?.Ref !== undefined) return { logicalId: output.Value.Ref, attribute: 'Ref' };
  const [logicalId, attribute] = output.Value?.['Fn::GetAtt'] ?? [];
  return logicalId === undefined ? undefined : { logicalId, attribute };
}

/**
 * A resource written with pseudo parameters only (`Fn::Join` of strings and `Ref AWS::…`) as text,
 * `arn:${AWS::Partition}:dynamodb:…`; undefined for anything else (imports, attributes).
 */
export function pseudoArn(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] } | undefined)?.['Fn::Join'];
  if (!join) return undefined;
  const parts = join[1].map((part) => {
    if (typeof part === 'string') return part;
    const ref = (part as { Ref?: unknown }).Ref;
    return typeof ref === 'string' && ref.startsWith('AWS::') ? `\${${ref}}` : undefined;
  });
  return parts.every((p) => p !== undefined) ? parts.join(join[0]) : undefined;
}

/** The ARN of every table named with `prefix`, in any stack's region and account. */
export const prefixTablesArn = (prefix: string) =>
  `arn:\${AWS::Partition}:dynamodb:\${AWS::Region}:\${AWS::AccountId}:table/${prefix}*`;

/**
 * Every function of a manifest (routes or workers) as deployed: exactly one per entry, each on
 * Node.js 24 on ARM64 with X-Ray tracing and the timeout and memory `sizeOf` gives for its entry.
 */
export function expectManifestFunctions(
  functions: readonly RouteFunction[],
  entryIds: readonly string[],
  sizeOf: (id: string) => { readonly timeoutSeconds: number; readonly memoryMb: number },
): void {
  expect(functions).toHaveLength(entryIds.length);
  expect(functions.map((f) => f.routeId).sort()).toEqual([...entryIds].sort());
  for (const fn of functions) {
    const { timeoutSeconds, memoryMb } = sizeOf(fn.routeId);
    expect(fn.properties, fn.routeId).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      Timeout: timeoutSeconds,
      MemorySize: memoryMb,
      TracingConfig: { Mode: 'Active' },
    });
  }
}
