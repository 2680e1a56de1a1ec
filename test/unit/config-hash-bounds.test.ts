import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveEffectiveConfig } from '#functions/config/index.js';
import { baseConfigProblem } from '#functions/config/validate.js';
import { checkArgon2Params } from '#functions/domain/passwords/argon2.js';
import { hashPassword } from '#functions/domain/passwords/index.js';

/**
 * The configuration accepts exactly the hashing settings the password module runs: whatever base
 * config is accepted hashes a password (sign-up and plain-text imports never fail on it), and
 * whatever it refuses the module would refuse too.
 */
describe('hashing settings in the base config', () => {
  it('accept an Argon2 setting exactly when the password module accepts it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 600_000 }),
        fc.integer({ min: 1, max: 40 }),
        (iterations, memoryKb, parallelism) => {
          const accepted =
            baseConfigProblem({
              password_hashing_alg: 'ARGON2',
              argon2_iterations: iterations,
              argon2_memory_kb: memoryKb,
              argon2_parallelism: parallelism,
            }) === undefined;
          expect(accepted).toBe(checkArgon2Params({ iterations, memoryKb, parallelism }) === undefined);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('accept a bcrypt cost exactly when the password module hashes with it', async () => {
    for (let rounds = 0; rounds <= 31; rounds++) {
      const accepted = baseConfigProblem({ bcrypt_log_rounds: rounds }) === undefined;
      const params = {
        algorithm: 'BCRYPT',
        bcryptLogRounds: rounds,
        argon2: { iterations: 1, memoryKb: 64, parallelism: 1 },
      } as const;
      // Hashing at the accepted costs runs for real only up to 6 (the rest would take seconds).
      const hashes =
        rounds <= 6 || !accepted
          ? await hashPassword('x', params).then(
              () => true,
              () => false,
            )
          : true;
      expect(hashes, `cost ${rounds}`).toBe(accepted);
    }
  });

  it('let the default settings hash', async () => {
    const config = resolveEffectiveConfig({}, undefined, undefined);
    expect(baseConfigProblem({})).toBeUndefined();
    expect(checkArgon2Params(config.argon2)).toBeUndefined();
  });
});
