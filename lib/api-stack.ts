import {
  CfnOutput,
  Duration,
  NestedStack,
  type NestedStackProps,
  RemovalPolicy,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  type IHttpApi,
  LogGroupLogDestination,
  PayloadFormatVersion,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { ComparisonOperator, MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { DEFAULT_ROUTE_PATH, gatewayPaths, type RouteDefinition } from '#functions/routes.js';
import { ENV } from '#functions/shared/env.js';
import { shardOf } from '#functions/storage/kit/shard.js';
import { ALARM_PERIOD, functionAlarms, notifyingAlarm, THRESHOLDS } from './alarms.js';
import { DEFAULT_ROUTE_MEMORY_MB, DEFAULT_ROUTE_TIMEOUT_SECONDS, ROUTE_GROUP_COUNT } from './constants.js';
import { ServiceFunction } from './constructs/service-function.js';
import { pascalCase } from './names.js';

/** What every route function is wired to; all of it comes from bin/app.ts. */
interface RouteWiring {
  readonly table: ITable;
  /** Every table name with this prefix is an app table the functions may use (lib/tables.ts). */
  readonly appTablePrefix: string;
  readonly importQueue: IQueue;
  /** The key sealing credentials at rest (data stack); granted per route's `access.credentials`. */
  readonly credentialsKey: IKey;
  /** ARN of the secret holding the comma-separated base API keys; none means an open core. */
  readonly apiKeysSecretArn?: string;
  /** Keep log groups when they leave the stack. */
  readonly retain: boolean;
  readonly logRetention: RetentionDays;
  /** `LOG_LEVEL` of every function. @default - the functions' own default (info) */
  readonly logLevel?: string;
  /** Every alarm notifies this topic (data stack). */
  readonly alarmTopic: ITopic;
  /** Environment every function gets besides its own (metrics namespace and service name). */
  readonly commonEnvironment: Readonly<Record<string, string>>;
}

/** Default throttling of the API's stage, for all routes and clients together. */
export interface ApiThrottle {
  /** Steady-state requests per second. */
  readonly rateLimit: number;
  /** Requests that may arrive at once above the steady rate (token-bucket size). */
  readonly burstLimit: number;
}

export interface ApiStackProps extends StackProps, RouteWiring {
  /** The route manifest (functions/routes.ts); one function and its API routes per entry. */
  readonly routes: readonly RouteDefinition[];
  readonly throttle: ApiThrottle;
}

/**
 * HTTP API access-log line (JSON). Only request metadata: no headers, so API keys never reach it.
 */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    time: '$context.requestTime',
    ip: '$context.identity.sourceIp',
    method: '$context.httpMethod',
    path: '$context.path',
    routeKey: '$context.routeKey',
    status: '$context.status',
    latencyMs: '$context.responseLatency',
    integrationError: '$context.integrationErrorMessage',
  }),
);

/**
 * Stateless resources: the HTTP API and one function per manifest entry. The per-route resources
 * live in a fixed number of nested stacks (see ROUTE_GROUP_COUNT) to stay far below
 * CloudFormation's 500-resources-per-template limit.
 */
export class ApiStack extends Stack {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly routeGroups: readonly RouteGroupStack[];

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const wiring: RouteWiring = {
      table: props.table,
      appTablePrefix: props.appTablePrefix,
      importQueue: props.importQueue,
      credentialsKey: props.credentialsKey,
      retain: props.retain,
      logRetention: props.logRetention,
      alarmTopic: props.alarmTopic,
      commonEnvironment: props.commonEnvironment,
      ...(props.apiKeysSecretArn === undefined ? {} : { apiKeysSecretArn: props.apiKeysSecretArn }),
      ...(props.logLevel === undefined ? {} : { logLevel: props.logLevel }),
    };

    // The stage is declared explicitly (not createDefaultStage) so it can carry access logs.
    this.api = new HttpApi(this, 'HttpApi', {
      // Not a physical-name lock-in: API names need not be unique; this one tells stages apart.
      apiName: this.stackName,
      description: 'Auth core (SuperTokens core API compatible)',
      createDefaultStage: false,
    });
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      autoDeploy: true,
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: ACCESS_LOG_FORMAT },
      // Past these, API Gateway answers 429 before any function runs: a runaway client cannot
      // exhaust the account's Lambda concurrency or the table's capacity (lib/stage.ts, context
      // apiRateLimit / apiBurstLimit).
      throttle: props.throttle,
    });

    const groups = new Map<number, RouteDefinition[]>();
    for (const route of props.routes) {
      const group = routeGroupOf(route.id);
      groups.set(group, [...(groups.get(group) ?? []), route]);
    }
    this.routeGroups = [...groups.entries()]
      .sort(([a], [b]) => a - b)
      .map(
        ([group, members]) =>
          new RouteGroupStack(this, `Routes${group}`, { ...wiring, api: this.api, routes: members }),
      );

    new CfnOutput(this, 'ApiUrl', { value: this.stage.url, description: 'Base URL of the auth core' });
    this.alarms(props.alarmTopic);
  }

  /** A rate of 5xx answers and a latency that clients would notice. */
  private alarms(topic: ITopic): void {
    const requests = this.api.metricCount({ period: ALARM_PERIOD, statistic: 'Sum' });
    const errors = this.api.metricServerError({ period: ALARM_PERIOD, statistic: 'Sum' });
    notifyingAlarm(this, 'Api5xxAlarm', topic, {
      description: `Over ${THRESHOLDS.api5xxPercent} % of API requests answered 5xx for 10 minutes (periods with fewer than ${THRESHOLDS.apiMinRequests} requests count as 0)`,
      metric: new MathExpression({
        expression: `IF(requests >= ${THRESHOLDS.apiMinRequests}, 100 * errors / requests, 0)`,
        usingMetrics: { requests, errors },
        label: '5xx %',
        period: ALARM_PERIOD,
      }),
      threshold: THRESHOLDS.api5xxPercent,
      evaluationPeriods: 2,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });
    notifyingAlarm(this, 'ApiLatencyAlarm', topic, {
      description: `p90 API latency over ${THRESHOLDS.apiLatencyP90Ms} ms for 15 minutes`,
      metric: this.api.metricLatency({ period: ALARM_PERIOD, statistic: 'p90' }),
      threshold: THRESHOLDS.apiLatencyP90Ms,
      evaluationPeriods: 3,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });
  }
}

/** Stable nested-stack assignment of a route: FNV-1a hash of its id, modulo ROUTE_GROUP_COUNT. */
export function routeGroupOf(routeId: string): number {
  return shardOf(routeId, ROUTE_GROUP_COUNT);
}

export interface RouteGroupStackProps extends NestedStackProps, RouteWiring {
  readonly api: IHttpApi;
  readonly routes: readonly RouteDefinition[];
}

/** One nested stack holding the functions and API routes of a subset of the manifest. */
export class RouteGroupStack extends NestedStack {
  constructor(scope: Construct, id: string, props: RouteGroupStackProps) {
    super(scope, id, { description: `Auth core routes (${id})` });
    const secret: ISecret | undefined =
      props.apiKeysSecretArn === undefined
        ? undefined
        : Secret.fromSecretCompleteArn(this, 'ApiKeysSecret', props.apiKeysSecretArn);

    const functions: { id: string; fn: ServiceFunction }[] = [];
    for (const route of props.routes) {
      const name = pascalCase(route.id);
      const fn = new ServiceFunction(this, name, {
        entry: route.handler,
        description: `${route.id}: ${route.method} ${route.path}`,
        timeout: Duration.seconds(route.timeoutSeconds ?? DEFAULT_ROUTE_TIMEOUT_SECONDS),
        memorySize: route.memoryMb ?? DEFAULT_ROUTE_MEMORY_MB,
        logRetention: props.logRetention,
        logRemovalPolicy: props.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
        ...(route.access.credentials === undefined ? {} : { credentials: route.access.credentials }),
        ...(secret === undefined ? {} : { apiKeysSecret: secret }),
        environment: {
          ...props.commonEnvironment,
          ...(props.logLevel === undefined ? {} : { [ENV.logLevel]: props.logLevel }),
        },
      });
      functions.push({ id: route.id, fn });
      if (route.access.table) {
        fn.bindTable(props.table, route.access.table).bindAppTables(props.appTablePrefix, route.access.table, {
          describe: route.access.describeTables === true,
        });
      }
      if (route.access.queue) fn.bindQueue(props.importQueue, route.access.queue, ENV.importQueueUrl);
      if (route.access.credentials) fn.bindCredentials(props.credentialsKey, route.access.credentials);

      const integration = new HttpLambdaIntegration(`${name}Integration`, fn, {
        payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
      });
      if (route.path === DEFAULT_ROUTE_PATH) {
        new HttpRoute(this, `${name}Route`, { httpApi: props.api, routeKey: HttpRouteKey.DEFAULT, integration });
        continue;
      }
      gatewayPaths(route).forEach((path, i) => {
        new HttpRoute(this, `${name}Route${i}`, {
          httpApi: props.api,
          routeKey: HttpRouteKey.with(path, HttpMethod[route.method]),
          integration,
        });
      });
    }
    functionAlarms(this, props.alarmTopic, functions);
    Validations.of(this).acknowledge({
      id: 'AwsSolutions::AwsSolutions-APIG4',
      reason:
        'The core authenticates every request itself, as the SuperTokens core does: the `api-key` header is compared in constant time with the keys of the app the path names (each app may have its own), which an API Gateway authorizer cannot know without a second lookup per request; public routes (/hello) need no key',
    });
  }
}
