import { aboveLimit, belowMinimum, HASH_LIMITS, type ParameterProblem } from './limits.js';
import { defineForm } from './scheme.js';

export const BCRYPT_MIN_LOG_ROUNDS = HASH_LIMITS.bcrypt.minCost;
/** The highest cost this core hashes with or verifies (HASH_LIMITS; bcrypt itself allows 31). */
export const BCRYPT_MAX_LOG_ROUNDS = HASH_LIMITS.bcrypt.maxCost;

/** `$2?$<two-digit cost>$<22 chars salt><31 chars hash>` in bcrypt's own Base64 alphabet. */
const BCRYPT_HASH_SHAPE = /^\$2[abxy]\$([0-9]{2})\$[./A-Za-z0-9]{53}$/;

export function checkBcryptCost(cost: number): ParameterProblem | undefined {
  if (cost < HASH_LIMITS.bcrypt.minCost) return belowMinimum('cost', cost, HASH_LIMITS.bcrypt.minCost);
  if (cost > HASH_LIMITS.bcrypt.maxCost) return aboveLimit('cost', cost, HASH_LIMITS.bcrypt.maxCost);
  return undefined;
}

export interface ParsedBcrypt {
  readonly cost: number;
  readonly hash: string;
}

/** The cost of a complete bcrypt string, or undefined when it is not one. */
export function parseBcrypt(stored: string): ParsedBcrypt | undefined {
  const shape = BCRYPT_HASH_SHAPE.exec(stored);
  return shape ? { cost: Number(shape[1]), hash: stored } : undefined;
}

/** Stored form `$2a$`/`$2b$`/`$2x$`/`$2y$<cost>$<salt+hash>`, as imported (the reference keeps it so). */
export const bcryptForm = defineForm<ParsedBcrypt>({
  legacy: false,
  claims: (stored) => stored.startsWith('$2'),
  parse: parseBcrypt,
  check: ({ cost }) => checkBcryptCost(cost),
});
