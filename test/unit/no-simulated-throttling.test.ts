/**
 * The function bundles get lib/bundling/no-simulated-throttling.ts in place of the local
 * runtime's throttling rehearsal: without a fraction the functions behave as with the real module,
 * and a fraction is refused, never simulated and never silently ignored.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as real from '#functions/shared/simulated-throttling.js';
import * as standIn from '../../lib/bundling/no-simulated-throttling.js';

const REFUSAL =
  'Simulated throttling is not part of the function bundles: run the local runtime from the sources (without HANDLER_BUNDLES) to rehearse it';

describe('the simulated-throttling stand-in of the bundles', () => {
  it('exports, under the same names, what functions/shared/clients.ts imports from the real module', () => {
    expect(Object.keys(standIn).sort()).toEqual(['parseThrottlingFraction', 'simulateThrottling']);
    for (const name of Object.keys(standIn)) expect(typeof real[name as keyof typeof real], name).toBe('function');
  });

  it.each([undefined, '', '   '])('reads %j as no simulation, as the real module does', (text) => {
    expect(real.parseThrottlingFraction(text)).toBeUndefined();
    expect(standIn.parseThrottlingFraction(text)).toBeUndefined();
  });

  it('refuses a fraction, saying why', () => {
    expect(real.parseThrottlingFraction('0.3')).toBe(0.3);
    expect(() => standIn.parseThrottlingFraction('0.3')).toThrow(REFUSAL);
    expect(() => standIn.simulateThrottling()).toThrow(REFUSAL);
  });

  it('never turns any text into a fraction', () => {
    fc.assert(
      fc.property(fc.option(fc.string(), { nil: undefined }), (text) => {
        let result: number | undefined;
        try {
          result = standIn.parseThrottlingFraction(text);
        } catch (error) {
          expect((error as Error).message).toBe(REFUSAL);
          return;
        }
        expect(result).toBeUndefined();
        expect(text === undefined || text.trim() === '').toBe(true);
      }),
    );
  });
});
