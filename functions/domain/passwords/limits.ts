/**
 * Upper bounds on the work a stored hash may ask for: {@link HASH_LIMITS} (defined in
 * functions/shared/hash-limits.ts, so that the configuration can keep the app's own hashing
 * settings inside them). A hash beyond a bound is refused at import with a message naming the
 * parameter and its limit; one stored before the bounds existed is never computed at sign-in (the
 * verify reports `HASH_COST_ABOVE_LIMIT`).
 */
export { HASH_LIMITS } from '#functions/shared/hash-limits.js';

/** Why a hash's parameters are refused: over a bound, or something the KDF cannot compute. */
export interface ParameterProblem {
  readonly kind: 'limit' | 'unsupported';
  /** Appended to the format message: `Password hash is in invalid BCrypt format: <detail>`. */
  readonly detail: string;
}

export function aboveLimit(parameter: string, value: number | string, limit: number | string): ParameterProblem {
  return { kind: 'limit', detail: `${parameter} ${value} is above the limit of ${limit}` };
}

export function unsupported(detail: string): ParameterProblem {
  return { kind: 'unsupported', detail };
}

export function belowMinimum(parameter: string, value: number, minimum: number): ParameterProblem {
  return unsupported(`${parameter} ${value} is below the minimum of ${minimum}`);
}
