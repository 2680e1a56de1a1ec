/**
 * No open deploy (docs/deploying-aws.md): a stage given no API-keys secret generates one — a
 * random key in Secrets Manager, within the core's rules for `api_keys`, retained with the data,
 * wired to every function that checks keys (every route function; no worker) and output with the
 * command that prints it. An operator's secret replaces it; `-c openApi=true` deploys without any
 * key, on purpose, and synth warns. cdk-nag stays clean (its one finding on the secret — no
 * rotation Lambda — is acknowledged with its reason).
 */
import { Annotations, Match, type Template } from 'aws-cdk-lib/assertions';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '#functions/routes.js';
import { ENV } from '#functions/shared/env.js';
import { WORKERS } from '#functions/workers.js';
import { GENERATED_API_KEY } from '../../lib/data-stack.js';
import { ContextError, stageConfigFromContext } from '../../lib/stage.js';
import { resourcesOfType, type Synthesized, synth } from './synth.js';
import { importedFrom, type RouteFunction, routeFunctions } from './template-helpers.js';

const OPERATOR_SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:auth-core-api-keys-AbC123';

/** The value a nested stack's parameter receives from the API stack (a cross-stack import). */
function nestedParameterValue(apiTemplate: Template, parameter: string): unknown {
  for (const [, stack] of resourcesOfType(apiTemplate, 'AWS::CloudFormation::Stack')) {
    const value = (stack.Properties?.Parameters as Record<string, unknown> | undefined)?.[parameter];
    if (value !== undefined) return value;
  }
  return undefined;
}

/**
 * The data-stack resource a route function's value points to: imported in its nested stack, or
 * passed through a parameter of it.
 */
function dataResourceOf(s: Synthesized, value: unknown): { logicalId: string; attribute: string } | undefined {
  const parameter = (value as { Ref?: unknown } | undefined)?.Ref;
  return importedFrom(
    s.dataTemplate,
    typeof parameter === 'string' ? nestedParameterValue(s.apiTemplate, parameter) : value,
  );
}

describe('by default: a generated API key', () => {
  let s: Synthesized;
  let functions: RouteFunction[];
  let secretId: string;

  beforeAll(() => {
    s = synth();
    functions = routeFunctions(s.groupTemplates);
    const secrets = resourcesOfType(s.dataTemplate, 'AWS::SecretsManager::Secret');
    expect(secrets).toHaveLength(1);
    secretId = secrets[0]![0];
  });

  it('is one random key of letters and digits, long enough for the core (≥ 20 of A-Z a-z 0-9 = -), retained', () => {
    s.dataTemplate.hasResource('AWS::SecretsManager::Secret', {
      Properties: {
        GenerateSecretString: { PasswordLength: 48, ExcludePunctuation: true, IncludeSpace: false },
        // The account's aws/secretsmanager key, which the functions' read grant covers.
        KmsKeyId: Match.absent(),
      },
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
    expect(GENERATED_API_KEY.passwordLength).toBeGreaterThanOrEqual(20);
  });

  it('property: any key Secrets Manager can generate from these settings passes the core’s api_keys rule', () => {
    // Letters and digits only (ExcludePunctuation, no space), of the configured length.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'.split('');
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...alphabet), {
          minLength: GENERATED_API_KEY.passwordLength,
          maxLength: GENERATED_API_KEY.passwordLength,
        }),
        (chars) => {
          const key = chars.join('');
          expect(key.length).toBeGreaterThanOrEqual(20);
          expect(key).toMatch(/^[A-Za-z0-9=-]+$/);
          expect(key).not.toContain(',');
        },
      ),
    );
  });

  it('is wired to every route function: its ARN, read access to exactly it, the extension layer', () => {
    expect(functions).toHaveLength(ROUTES.length);
    for (const fn of functions) {
      const variables = fn.properties.Environment.Variables as Record<string, unknown>;
      expect(dataResourceOf(s, variables[ENV.apiKeysSecretArn]), fn.routeId).toEqual({
        logicalId: secretId,
        attribute: 'Ref',
      });
      expect(fn.properties.Layers, fn.routeId).toHaveLength(1);
      const grants = fn.statements.filter((st) => st.actions.some((a) => a.startsWith('secretsmanager:')));
      expect(grants.length, fn.routeId).toBe(1);
      expect(grants[0]!.actions).toContain('secretsmanager:GetSecretValue');
      expect(
        grants[0]!.resources.map((r) => dataResourceOf(s, r)),
        fn.routeId,
      ).toEqual([{ logicalId: secretId, attribute: 'Ref' }]);
    }
  });

  it('is given to no worker (they check no key)', () => {
    const workers = routeFunctions([s.workersTemplate]);
    expect(workers).toHaveLength(WORKERS.length);
    for (const fn of workers) {
      expect(Object.keys(fn.properties.Environment?.Variables ?? {}), fn.routeId).not.toContain(ENV.apiKeysSecretArn);
      expect(
        fn.actions.filter((a) => a.startsWith('secretsmanager:')),
        fn.routeId,
      ).toEqual([]);
    }
  });

  it('outputs where to read it: the secret ARN, its name and the command that prints the key', () => {
    const outputs = (s.dataTemplate.toJSON() as { Outputs: Record<string, { Value: unknown }> }).Outputs;
    expect(outputs.ApiKeysSecretArn?.Value).toEqual({ Ref: secretId });
    expect(JSON.stringify(outputs.ApiKeysSecretName?.Value)).toContain(secretId);
    expect(outputs.ApiKeyCommand?.Value).toEqual({
      'Fn::Join': [
        '',
        [
          'aws secretsmanager get-secret-value --secret-id ',
          { Ref: secretId },
          ' --region ',
          { Ref: 'AWS::Region' },
          ' --query SecretString --output text',
        ],
      ],
    });
  });

  it('leaves no warning about keys, and acknowledges its one cdk-nag finding (no rotation Lambda)', () => {
    Annotations.fromStack(s.api).hasNoWarning('*', Match.stringLikeRegexp('API key'));
    Annotations.fromStack(s.data).hasNoError('*', Match.anyValue());
    const acknowledged = JSON.stringify(s.data.node.findAll().flatMap((c) => c.node.metadata));
    expect(acknowledged).toContain('AwsSolutions-SMG4');
  });
});

describe("the operator's own secret (-c apiKeysSecretArn)", () => {
  it('replaces the generated key: no secret in the data stack, every route function reads that one', () => {
    const s = synth({ apiKeysSecretArn: OPERATOR_SECRET });
    s.dataTemplate.resourceCountIs('AWS::SecretsManager::Secret', 0);
    expect(Object.keys((s.dataTemplate.toJSON() as { Outputs: object }).Outputs)).not.toContain('ApiKeyCommand');
    for (const fn of routeFunctions(s.groupTemplates)) {
      expect(fn.properties.Environment.Variables[ENV.apiKeysSecretArn], fn.routeId).toBe(OPERATOR_SECRET);
    }
  });
});

describe('an open API on purpose (-c openApi=true)', () => {
  it('generates no key, and synth warns that anyone who reaches the URL may use it', () => {
    const s = synth({ context: { openApi: 'true' } });
    s.dataTemplate.resourceCountIs('AWS::SecretsManager::Secret', 0);
    for (const fn of routeFunctions(s.groupTemplates)) {
      expect(Object.keys(fn.properties.Environment?.Variables ?? {}), fn.routeId).not.toContain(ENV.apiKeysSecretArn);
    }
    Annotations.fromStack(s.api).hasWarning(
      '*',
      Match.stringLikeRegexp('openApi=true: the deployed core accepts every request without an API key'),
    );
  });

  it('is refused with a secret of its own, and for any value but true or false', () => {
    const read = (values: Record<string, string>) => (name: string) => values[name];
    expect(() => stageConfigFromContext(read({ openApi: 'true', apiKeysSecretArn: OPERATOR_SECRET }))).toThrow(
      new ContextError(
        'context openApi=true and apiKeysSecretArn exclude each other: an open API has no keys (drop one of them)',
      ),
    );
    for (const value of ['yes', '1', 'TRUE', 'open']) {
      expect(() => stageConfigFromContext(read({ openApi: value }))).toThrow(
        new ContextError(`context openApi must be true or false, got "${value}"`),
      );
    }
    expect(stageConfigFromContext(read({})).openApi).toBe(false);
    expect(stageConfigFromContext(read({ openApi: 'false' })).openApi).toBe(false);
  });
});
