import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTableInput, TABLE_SCHEMA } from '#functions/storage/table.js';
import { IMPORT_MAX_RECEIVE_COUNT as MANIFEST_MAX_RECEIVE_COUNT, WORKERS } from '#functions/workers.js';
import {
  DLQ_CONSUMER_TIMEOUT_SECONDS,
  IMPORT_DLQ_RETENTION_DAYS,
  IMPORT_MAX_RECEIVE_COUNT,
  IMPORT_WORKER_TIMEOUT_SECONDS,
  MAX_RESOURCES_PER_STACK,
  VISIBILITY_TIMEOUT_FACTOR,
} from '../../lib/constants.js';
import { DataStack } from '../../lib/data-stack.js';
import { cdkJsonContext, type Resource, resources, resourcesOfType } from './synth.js';

function synthData(retain: boolean): Template {
  const app = new App({ context: cdkJsonContext(), builtinCloudFormationValidation: false });
  return Template.fromStack(new DataStack(app, 'Data', { retain }));
}

let template: Template;
let table: Resource;
let keyId: string;

beforeAll(() => {
  template = synthData(true);
  const [tableEntry] = resourcesOfType(template, 'AWS::DynamoDB::Table');
  table = tableEntry![1];
  keyId = resourcesOfType(template, 'AWS::KMS::Key')[0]![0];
});

const byName = <T extends { AttributeName?: string; IndexName?: string }>(items: readonly T[]) =>
  [...items].sort((a, b) =>
    String(a.IndexName ?? a.AttributeName).localeCompare(String(b.IndexName ?? b.AttributeName)),
  );

describe('table', () => {
  it('is exactly the table the local runtime creates (keys, attributes, GSIs)', () => {
    const local = createTableInput('local');
    expect(table.Properties?.KeySchema).toEqual(local.KeySchema);
    expect(byName(table.Properties?.AttributeDefinitions)).toEqual(byName(local.AttributeDefinitions));
    expect(byName(table.Properties?.GlobalSecondaryIndexes)).toEqual(byName(local.GlobalSecondaryIndexes));
    expect(table.Properties?.GlobalSecondaryIndexes.map((g: { IndexName: string }) => g.IndexName)).toEqual(
      TABLE_SCHEMA.globalIndexes.map((g) => g.indexName),
    );
  });

  it('bills on demand, has PITR and the TTL attribute', () => {
    expect(table.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: TABLE_SCHEMA.ttlAttribute, Enabled: true },
    });
  });

  it('is encrypted with the customer-managed key, which rotates', () => {
    expect(table.Properties?.SSESpecification).toEqual({
      SSEEnabled: true,
      SSEType: 'KMS',
      KMSMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] },
    });
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
  });

  it('has no hard-coded name', () => {
    expect(table.Properties?.TableName).toBeUndefined();
  });

  it('is retained and deletion-protected by default, destroyable in a dev stage', () => {
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.Properties?.DeletionProtectionEnabled).toBe(true);
    const dev = synthData(false);
    for (const resource of Object.values(resources(dev))) {
      if (resource.DeletionPolicy !== undefined) expect(resource.DeletionPolicy).toBe('Delete');
    }
    expect(resourcesOfType(dev, 'AWS::DynamoDB::Table')[0]![1].Properties?.DeletionProtectionEnabled).toBe(false);
  });
});

describe('import queue', () => {
  const queues = () => resourcesOfType(template, 'AWS::SQS::Queue');
  const mainQueue = () => queues().find(([, q]) => q.Properties?.RedrivePolicy !== undefined)!;
  const deadLetterQueue = () => queues().find(([, q]) => q.Properties?.RedrivePolicy === undefined)!;

  it('is a queue and its DLQ', () => {
    expect(queues()).toHaveLength(2);
  });

  it('redrives to the DLQ after maxReceiveCount receives', () => {
    expect(mainQueue()[1].Properties?.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterQueue()[0], 'Arn'] },
      maxReceiveCount: IMPORT_MAX_RECEIVE_COUNT,
    });
    expect(IMPORT_MAX_RECEIVE_COUNT).toBeGreaterThanOrEqual(3);
  });

  it('takes its sizing from the worker manifest', () => {
    expect(IMPORT_MAX_RECEIVE_COUNT).toBe(MANIFEST_MAX_RECEIVE_COUNT);
    expect(IMPORT_WORKER_TIMEOUT_SECONDS).toBe(WORKERS.find((w) => w.source.kind === 'import-queue')?.timeoutSeconds);
    expect(DLQ_CONSUMER_TIMEOUT_SECONDS).toBe(WORKERS.find((w) => w.source.kind === 'import-dlq')?.timeoutSeconds);
  });

  it('has a visibility timeout of at least 6 × the worker timeout', () => {
    expect(VISIBILITY_TIMEOUT_FACTOR).toBeGreaterThanOrEqual(6);
    expect(mainQueue()[1].Properties?.VisibilityTimeout).toBeGreaterThanOrEqual(6 * IMPORT_WORKER_TIMEOUT_SECONDS);
  });

  it('gives the DLQ a visibility timeout of at least 6 × the DLQ consumer timeout', () => {
    expect(deadLetterQueue()[1].Properties?.VisibilityTimeout).toBeGreaterThanOrEqual(6 * DLQ_CONSUMER_TIMEOUT_SECONDS);
  });

  it('alarms as soon as a message is visible in the DLQ', () => {
    const alarms = resourcesOfType(template, 'AWS::CloudWatch::Alarm').filter(
      ([, a]) => a.Properties?.MetricName === 'ApproximateNumberOfMessagesVisible',
    );
    expect(alarms).toHaveLength(1);
    expect(alarms[0]![1].Properties).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deadLetterQueue()[0], 'QueueName'] } }],
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
      EvaluationPeriods: 1,
      Statistic: 'Maximum',
      TreatMissingData: 'notBreaching',
    });
  });

  it('keeps dead letters for 14 days', () => {
    expect(deadLetterQueue()[1].Properties?.MessageRetentionPeriod).toBe(IMPORT_DLQ_RETENTION_DAYS * 24 * 3600);
  });

  it('encrypts both queues with the key and refuses plain-HTTP access', () => {
    for (const [id, queue] of queues()) {
      expect(queue.Properties?.KmsMasterKeyId).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
      expect(queue.Properties?.QueueName).toBeUndefined();
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: [
            {
              Effect: 'Deny',
              Action: 'sqs:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            },
          ],
        },
      });
    }
  });
});

it('stays under the resource limit', () => {
  expect(Object.keys(resources(template)).length).toBeLessThan(MAX_RESOURCES_PER_STACK);
});
