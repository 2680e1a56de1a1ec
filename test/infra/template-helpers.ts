/** Reading the synthesized route-group templates: which function serves which route, with what rights. */
import type { Template } from 'aws-cdk-lib/assertions';
import { type Resource, resources } from './synth.js';

export interface RouteFunction {
  /** The manifest id (functions carry `<id>: METHOD path` as their description). */
  readonly routeId: string;
  readonly logicalId: string;
  readonly properties: Record<string, any>;
  /** Every IAM action granted to the function's role by inline policies. */
  readonly actions: readonly string[];
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
      const actions = policies
        .filter(([, p]) => asArray(p.Properties?.Roles).some((role: { Ref?: string }) => role.Ref === roleId))
        .flatMap(([, p]) => asArray(p.Properties?.PolicyDocument.Statement))
        .filter((statement: { Effect: string }) => statement.Effect === 'Allow')
        .flatMap((statement: { Action: string | string[] }) => asArray(statement.Action));
      return {
        routeId: String(properties.Description).split(':')[0] as string,
        logicalId,
        properties,
        actions,
        routeKeys: routesByFunction.get(logicalId) ?? [],
      };
    });
  });
}

export function resourceCount(template: Template): number {
  return Object.keys(resources(template)).length;
}
