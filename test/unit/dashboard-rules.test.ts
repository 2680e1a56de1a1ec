/**
 * The reference core's checks of a dashboard user's email and password (docs/dashboard.md
 * "Dashboard users"): the one-pass email check against vectors the reference's own pattern
 * decided (run on Java's regular expressions) and against the pattern's transcription, the
 * password rules with their messages, and Java's trim.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dashboardPasswordProblem, isValidDashboardEmail, javaTrim } from '#functions/domain/dashboard/rules.js';

const VECTORS = readFileSync(resolve(import.meta.dirname, '../fixtures/dashboard-email-vectors.txt'), 'utf8')
  .split('\n')
  .filter((line) => line !== '' && !line.startsWith('#'))
  .map((line) => {
    const [base64, verdict] = line.split(' ');
    return { email: Buffer.from(base64 as string, 'base64').toString('utf8'), valid: verdict === 'true' };
  });

/**
 * The reference's pattern as a JavaScript regular expression: its first local-part alternative
 * can only match what `.+` matches, its bracketed domain alternative is one character of
 * `0-9 { } , .` (Java reads the nested brackets as one class), `.` is any code point but Java's
 * line terminators, and `matches()` anchors both ends. Backtracking: fine for the short strings
 * of these tests only.
 */
const ANY = '[^\\n\\r\\u0085\\u2028\\u2029]';
const REFERENCE_PATTERN = new RegExp(`^${ANY}+@(?:[0-9{},.]|(?:[a-zA-Z0-9-]+${ANY})+[a-zA-Z]{2,})$`, 'u');

describe("a dashboard user's email", () => {
  it('is accepted exactly when the reference pattern accepts it (vectors decided by Java)', () => {
    expect(VECTORS.length).toBeGreaterThan(1000);
    expect(VECTORS.filter((v) => v.valid).length).toBeGreaterThan(300);
    const disagreements = VECTORS.filter((v) => isValidDashboardEmail(v.email) !== v.valid);
    expect(disagreements).toEqual([]);
    // The transcription agrees with Java too, so the property below compares with the reference.
    expect(VECTORS.filter((v) => REFERENCE_PATTERN.test(v.email) !== v.valid)).toEqual([]);
  });

  it.each([
    ['test@example.com', true],
    ['a@b.co', true],
    ['a@b_c.com', true],
    ['a@a!bc', true],
    ['a@a@a.com', true],
    ['a@5', true],
    ['a@b.c', false],
    ['a@[1.2.3.4]', false],
    ['a@example.c0m', false],
    ['a@12', false],
    ['@b.com', false],
    ['x@é.com', false],
    ['a\n@b.com', false],
  ])('%j → %s', (email, valid) => {
    expect(isValidDashboardEmail(email)).toBe(valid);
  });

  it('agrees with the pattern on any string over the characters that matter', () => {
    const char = fc.constantFrom(
      ...['a', 'Z', 'q', '0', '5', '-', '.', '@', '!', '{', '}', ',', '_', ' ', 'é', '😀', '\n', '\u2028', '['],
    );
    const text = fc.array(char, { maxLength: 14 }).map((cs) => cs.join(''));
    const email = fc.oneof(
      text,
      fc.tuple(text, text, fc.constantFrom('co', 'com', 'c', 'xyz')).map(([l, d, t]) => `${l}@${d}${t}`),
    );
    fc.assert(
      fc.property(email, (candidate) => isValidDashboardEmail(candidate) === REFERENCE_PATTERN.test(candidate)),
      { numRuns: 5000 },
    );
  });

  it('is decided in one pass even where the pattern would backtrack without end', () => {
    // Exponential for a backtracking matcher; a string, not a clock, is what this test checks.
    const long = `a@${'a'.repeat(100_000)}!`;
    expect(isValidDashboardEmail(long)).toBe(false);
    expect(isValidDashboardEmail(`a@${'ab!'.repeat(30_000)}com`)).toBe(true);
  });
});

describe("a dashboard user's password", () => {
  it.each([
    ['short1', 'Password must contain at least 8 characters, including a number'],
    [`a1${'x'.repeat(98)}`, "Password's length must be lesser than 100 characters"],
    ['12345678', 'Password must contain at least one alphabet'],
    ['abcdefgh', 'Password must contain at least one number'],
    // The reference matches whole lines: a line break hides the letters from it.
    ['abc\n12345', 'Password must contain at least one alphabet'],
    ['password123', undefined],
    [`a1${'x'.repeat(97)}`, undefined],
    ['ÄÖÜ ß 1a!', undefined],
  ])('%j → %s', (password, problem) => {
    expect(dashboardPasswordProblem(password)).toBe(problem);
  });

  it('is weak, or has 8–99 characters with an ASCII letter and a digit', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (password) => {
        const strong =
          password.length >= 8 &&
          password.length < 100 &&
          !/[\n\r\u0085\u2028\u2029]/.test(password) &&
          /[A-Za-z]/.test(password) &&
          /[0-9]/.test(password);
        return (dashboardPasswordProblem(password) === undefined) === strong;
      }),
    );
  });
});

describe("Java's trim", () => {
  it('removes control characters and spaces at both ends only', () => {
    expect(javaTrim('\u0000\t a b \n\u001f')).toBe('a b');
    expect(javaTrim('\u00a0a\u00a0')).toBe('\u00a0a\u00a0');
    expect(javaTrim('   ')).toBe('');
  });
});
