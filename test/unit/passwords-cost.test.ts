import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveEffectiveConfig } from '#functions/config/index.js';
import { belowConfiguredCost, costsLikeHashing, type HashPasswordParams } from '#functions/domain/passwords/index.js';
import { passwordPorts } from '#functions/wiring/passwords.js';

const B64_16 = Buffer.alloc(16, 7).toString('base64').replace(/=+$/, '');
const B64_32 = Buffer.alloc(32, 9).toString('base64').replace(/=+$/, '');
const bcrypt = (cost: number, id = '2a') => `$${id}$${String(cost).padStart(2, '0')}$${'a'.repeat(53)}`;
const argon2 = (m: number, t: number, p: number, type = 'id') =>
  `$argon2${type}$v=19$m=${m},t=${t},p=${p}$${B64_16}$${B64_32}`;

const params = (overrides: Partial<HashPasswordParams> = {}): HashPasswordParams => ({
  algorithm: 'BCRYPT',
  bcryptLogRounds: 11,
  argon2: { memoryKb: 87795, iterations: 1, parallelism: 2 },
  ...overrides,
});

describe('belowConfiguredCost', () => {
  it('compares a bcrypt hash with bcrypt_log_rounds, whatever the app algorithm', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 4, max: 14 }),
        fc.integer({ min: 4, max: 14 }),
        fc.constantFrom('2a', '2b', '2x', '2y'),
        fc.constantFrom('BCRYPT' as const, 'ARGON2' as const),
        (cost, rounds, id, algorithm) => {
          expect(belowConfiguredCost(bcrypt(cost, id), params({ algorithm, bcryptLogRounds: rounds }))).toBe(
            cost < rounds,
          );
        },
      ),
    );
  });

  it('compares an Argon2 hash by memory × iterations with the argon2_* settings', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 64, max: 65536 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 64, max: 65536 }),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom('id', 'i', 'd'),
        (m, t, appM, appT, type) => {
          const app = params({ argon2: { memoryKb: appM, iterations: appT, parallelism: 1 } });
          expect(belowConfiguredCost(argon2(m, t, 1, type), app)).toBe(m * t < appM * appT);
        },
      ),
    );
  });

  it('never holds for Firebase scrypt, the legacy families, a hash it cannot run, or text', () => {
    const app = params({ bcryptLogRounds: 14, argon2: { memoryKb: 262144, iterations: 1, parallelism: 1 } });
    for (const stored of [
      `$f_scrypt$${Buffer.alloc(64, 9).toString('base64')}$${Buffer.alloc(16, 7).toString('base64')}$m=14$r=8$s=Bw==`,
      `$scrypt$ln=10,r=8,p=1$${B64_16}$${B64_32}`,
      `$wp$2y$04$${'a'.repeat(53)}`,
      '$P$9PE8jEklgZhgLmZl5.HYJAzfGCQtzi1',
      '$md5$pf=e1BBU1NXT1JEfQ==$$X03MO1qnZdYdgyfeuILPmQ==',
      '$2a$04$short',
      `$argon2id$v=16$m=64,t=1,p=1$${B64_16}$${B64_32}`,
      '',
      'not a hash',
    ]) {
      expect(belowConfiguredCost(stored, app), stored).toBe(false);
    }
  });
});

describe('costsLikeHashing', () => {
  it('holds for exactly the algorithm and settings the app hashes with', () => {
    expect(costsLikeHashing(bcrypt(11), params())).toBe(true);
    expect(costsLikeHashing(bcrypt(11, '2y'), params())).toBe(true);
    expect(costsLikeHashing(bcrypt(10), params())).toBe(false);
    expect(costsLikeHashing(argon2(87795, 1, 2), params())).toBe(false);
    const argonApp = params({ algorithm: 'ARGON2' });
    expect(costsLikeHashing(argon2(87795, 1, 2), argonApp)).toBe(true);
    expect(costsLikeHashing(argon2(87795, 1, 2, 'i'), argonApp)).toBe(false);
    expect(costsLikeHashing(argon2(87795, 1, 1), argonApp)).toBe(false);
    expect(costsLikeHashing(argon2(43898, 2, 2), argonApp)).toBe(false);
    expect(costsLikeHashing(bcrypt(11), argonApp)).toBe(false);
  });
});

describe("the wiring's upgrade decision", () => {
  const config = (overrides: Record<string, unknown>) =>
    resolveEffectiveConfig(
      { bcrypt_log_rounds: 10, argon2_memory_kb: 1024, argon2_iterations: 2 },
      overrides,
      undefined,
    );

  it('upgrades legacy hashes and bcrypt or Argon2 below the cost while the switch is on, nothing when it is off', () => {
    const on = passwordPorts(config({}));
    const off = passwordPorts(config({ legacy_password_hash_upgrade_enabled: false }));
    const cases: [string, boolean][] = [
      [bcrypt(9), true],
      [bcrypt(10), false],
      [bcrypt(12), false],
      [argon2(1024, 1, 1), true],
      [argon2(512, 4, 1), false],
      [argon2(2048, 1, 1), false],
      [`$scrypt$ln=10,r=8,p=1$${B64_16}$${B64_32}`, true],
    ];
    for (const [stored, expected] of cases) {
      expect(on.needsUpgrade?.(stored), stored).toBe(expected);
      expect(off.needsUpgrade?.(stored), stored).toBe(false);
    }
  });
});
