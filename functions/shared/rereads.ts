/**
 * "Read again on conflict": the loop of every optimistic write in the core. An attempt reads,
 * decides and writes on condition that what it read is still there; when a concurrent change
 * refused the write, it answers {@link READ_AGAIN} and the next attempt reads again. How many
 * attempts, and what giving up means, are stated once per loop as a {@link RereadPolicy} instead
 * of a bare count:
 *
 * ```ts
 * const REMOVAL = { attempts: 5, exhausted: 'user removal kept conflicting with concurrent changes' };
 * await reread(REMOVAL, async () => {
 *   const user = await read();
 *   return (await write(user)).ok ? 'removed' : READ_AGAIN;
 * }); // every attempt refused: RereadsExhaustedError('user removal kept conflicting …')
 * ```
 *
 * A loop that gives up without an error (the caller answers "retry later", or moves on) says what
 * it answers instead with `orElse`. Here rather than in the DynamoDB kit (functions/storage/kit/),
 * because most of these loops are use cases and the domain may not import storage; the kit retries
 * a call that failed for a transient reason, this reads again after a refused condition.
 */

/** What an attempt answers when a concurrent change refused its write: read again. */
export const READ_AGAIN: unique symbol = Symbol('read again');

export interface RereadPolicy<E = never> {
  /** Attempts at most (each reads again, except perhaps the first, which may use what was read before). */
  readonly attempts: number;
  /** Why the caller gives up when every attempt met a concurrent change: the thrown error's message. */
  readonly exhausted: string;
  /** The error thrown then. @default RereadsExhaustedError */
  readonly error?: new (
    message: string,
  ) => Error;
  /** What the caller answers then instead of throwing. */
  readonly orElse?: () => E;
}

/** Every attempt of a {@link RereadPolicy} met a concurrent change (a 500: nothing the caller sent was wrong). */
export class RereadsExhaustedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RereadsExhaustedError';
  }
}

/**
 * Runs `attempt` (0, 1 …) until it answers something other than {@link READ_AGAIN}, at most
 * `policy.attempts` times; then answers `policy.orElse()`, or throws the policy's error.
 */
export async function reread<T, E = never>(
  policy: RereadPolicy<E>,
  attempt: (attempt: number) => Promise<T | typeof READ_AGAIN>,
): Promise<T | E> {
  for (let n = 0; n < policy.attempts; n++) {
    const answer = await attempt(n);
    if (answer !== READ_AGAIN) return answer;
  }
  if (policy.orElse) return policy.orElse();
  throw new (policy.error ?? RereadsExhaustedError)(policy.exhausted);
}
