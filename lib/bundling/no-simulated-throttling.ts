/**
 * Stands in for functions/shared/simulated-throttling.ts inside every function bundle (the
 * bundling options of ServiceFunction, lib/constructs/service-function.ts), with the exports the
 * functions use.
 *
 * Simulated throttling is a rehearsal of the local runtime run from the TypeScript sources
 * (`npm start -- --simulate-throttling=<fraction>`). The functions read its fraction only when
 * their DynamoDB endpoint is a local one (functions/shared/clients.ts), which it never is on
 * Lambda, so there the module (its middleware and the DynamoDB exceptions it throws) is only
 * weight. Without a fraction nothing changes; a bundle asked for one (the local runtime run
 * from cdk.out with the option) refuses, saying why, rather than silently not throttling.
 */

function refuse(): never {
  throw new Error(
    'Simulated throttling is not part of the function bundles: run the local runtime from the sources (without HANDLER_BUNDLES) to rehearse it',
  );
}

/** As the module's: no text (or blank) is no simulation; any fraction is refused here. */
export function parseThrottlingFraction(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  refuse();
}

export function simulateThrottling(): never {
  refuse();
}
