/**
 * CloudFormation refuses a template with more than 500 resources. The manifest will grow to about
 * 50 entries; prove the stack layout holds 60 routes (each with table write and queue access, the
 * most expensive kind) with room to spare in every stack and nested stack.
 */
import { describe, expect, it } from 'vitest';
import type { RouteDefinition } from '#functions/routes.js';
import { MAX_RESOURCES_PER_STACK } from '../../lib/constants.js';
import { PLACEHOLDER_HANDLER, synth } from './synth.js';
import { resourceCount, routeFunctions } from './template-helpers.js';

const ROUTE_COUNT = 60;

const manyRoutes: RouteDefinition[] = Array.from({ length: ROUTE_COUNT }, (_, i) => ({
  id: `synthetic-route-${i}`,
  method: 'POST',
  path: `/synthetic/route-${i}`,
  handler: PLACEHOLDER_HANDLER,
  access: { table: 'write', queue: 'send' },
}));

describe(`${ROUTE_COUNT} routes`, () => {
  it('fit in every stack and nested stack', () => {
    const { dataTemplate, apiTemplate, workersTemplate, groupTemplates } = synth({ routes: manyRoutes });
    expect(routeFunctions(groupTemplates)).toHaveLength(ROUTE_COUNT);
    const counts = [dataTemplate, apiTemplate, workersTemplate, ...groupTemplates].map(resourceCount);
    expect(Math.max(...counts)).toBeLessThan(MAX_RESOURCES_PER_STACK);
  });
});
