/** Phone numbers quoted in the migration report: masked but for their last two digits. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskPhone, maskPhones, phoneSpellings } from '../../bin/auth-core/src/personal.js';

describe('maskPhone', () => {
  it('keeps separators and the last two digits; a value with fewer than 5 digits is masked whole', () => {
    expect(maskPhone('+14155550123')).toBe('+*********23');
    expect(maskPhone('+1 (415) 555-0123')).toBe('+* (***) ***-**23');
    expect(maskPhone('call me maybe')).toBe('**** ** *****');
    expect(maskPhone('1234')).toBe('****');
  });
});

describe('maskPhones', () => {
  it('masks the number as sent, trimmed and in E.164 (as the core normalises it); other text stays', () => {
    const spellings = phoneSpellings([{ phoneNumber: ' +1 415 555 0123 ' }, { email: 'a@b.c' }]);
    expect(spellings).toEqual([' +1 415 555 0123 ', '+1 415 555 0123', '+14155550123']);
    expect(
      maskPhones(
        'E007: A user with phoneNumber +14155550123 already exists in passwordless loginMethod. (a@b.c)',
        spellings,
      ),
    ).toBe('E007: A user with phoneNumber +*********23 already exists in passwordless loginMethod. (a@b.c)');
    expect(maskPhones('phoneNumber +1 415 555 0123 is too long', spellings)).toBe(
      'phoneNumber +* *** *** **23 is too long',
    );
  });

  it('ignores what is not a list of login methods with string phone numbers', () => {
    for (const hostile of [
      undefined,
      null,
      'x',
      42,
      {},
      [null],
      [{ phoneNumber: 4155550123 }],
      [{ phoneNumber: '12' }],
    ]) {
      expect(phoneSpellings(hostile)).toEqual([]);
    }
  });

  it('property: no spelling of the number is left in any text that quotes it', () => {
    const phone = fc
      .tuple(
        fc.constantFrom('', '+', ' +', '00'),
        fc.array(fc.constantFrom('0', '1', '2', '3', '5', '7', '9', ' ', '-', '(', ')'), {
          minLength: 5,
          maxLength: 20,
        }),
      )
      .map(([prefix, chars]) => `${prefix}${chars.join('')}`)
      .filter((p) => [...p].filter((c) => c >= '0' && c <= '9').length >= 5);
    fc.assert(
      fc.property(fc.string(), phone, fc.string(), fc.string(), (before, number, between, after) => {
        const spellings = phoneSpellings([{ recipeId: 'passwordless', phoneNumber: number }]);
        const text = maskPhones(`${before}${number}${between}${number.trim()}${after}`, spellings);
        for (const spelling of spellings) expect(text).not.toContain(spelling);
        const digits = number.replace(/\D/g, '');
        expect(maskPhone(number).replace(/\D/g, '')).toBe(digits.slice(-2));
      }),
      { numRuns: 500 },
    );
  });
});
