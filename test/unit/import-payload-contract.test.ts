/**
 * The import-payload contract (functions/contract/, docs/import-payload.md): one phone rule and one
 * email rule for the core and the command, one fingerprint, one public tenant, one staging limit.
 * The examples are the reference core's own test vectors for its phone normaliser.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { credentialFingerprint, fingerprintOfDigest } from '#functions/contract/credential-fingerprints.js';
import { normaliseEmail } from '#functions/contract/emails.js';
import { e164PhoneNumber, normalisePhoneNumber } from '#functions/contract/phone-numbers.js';
import { uniquenessKeys } from '../../bin/auth-core/src/migrate/duplicates.js';
import { emailOf, phoneNumberOf } from '../../bin/auth-core/src/sources/common.js';
import { phoneCase, phoneSpellings, spell } from '../helpers/phone-spellings.js';

/** Any text, text made of what phone numbers are written with, and numbers as people write them. */
const anyPhoneText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: fc.constantFrom(...'+0123456789 ()-.x#*;ext=tel:'), maxLength: 30 }),
  phoneSpellings.map((c) => c.spellings[0] as string),
);

describe('phone numbers: the reference rule (E.164 whenever the number parses, else trimmed)', () => {
  it("gives the reference's answers", () => {
    expect(normalisePhoneNumber('+1 650-555-1234')).toBe('+16505551234');
    expect(normalisePhoneNumber('+640223334444')).toBe('+64223334444');
    expect(normalisePhoneNumber('  johndoe@gmail.com  ')).toBe('johndoe@gmail.com');
    expect(normalisePhoneNumber('')).toBe('');
    expect(normalisePhoneNumber('   ')).toBe('');
  });

  it('writes a number that parses in E.164 even when it is not possible (`+1 (555) 0100`)', () => {
    expect(normalisePhoneNumber('+1 (555) 0100')).toBe('+15550100');
    expect(normalisePhoneNumber(' +15550100 ')).toBe('+15550100');
    expect(e164PhoneNumber('5550100')).toBeUndefined();
    expect(normalisePhoneNumber(' 5550100 ')).toBe('5550100');
  });

  it('is idempotent: what the core stores normalises to itself', () => {
    // A national prefix that comes back once in E.164 is stripped until the number stays the same.
    expect(normalisePhoneNumber('+3770000000000')).toBe('+37700000000');
    expect(normalisePhoneNumber('+37700000000')).toBe('+37700000000');
    fc.assert(
      fc.property(anyPhoneText, (text) => {
        const once = normalisePhoneNumber(text);
        expect(normalisePhoneNumber(once)).toBe(once);
      }),
      { numRuns: 3000 },
    );
  });

  it('gives every spelling of a number that parses the same E.164 number', () => {
    fc.assert(
      fc.property(phoneSpellings, ({ phone, spellings }) => {
        if (phone.kind !== 'number' || e164PhoneNumber(spellings[0] as string) === undefined) return;
        const stored = normalisePhoneNumber(spellings[0] as string);
        expect(stored).toMatch(/^\+\d+$/);
        for (const spelling of spellings) expect(normalisePhoneNumber(spelling), JSON.stringify(spelling)).toBe(stored);
      }),
      { numRuns: 3000 },
    );
  });

  it("the command sends a source's number as the core stores it, and refuses only what the core would keep as text", () => {
    fc.assert(
      fc.property(anyPhoneText, (text) => {
        const sent = phoneNumberOf(text);
        if (text.trim() === '') expect(sent).toBeUndefined();
        else if (e164PhoneNumber(text) === undefined) expect(sent).toBeUndefined();
        else expect(sent).toBe(normalisePhoneNumber(text));
      }),
      { numRuns: 3000 },
    );
  });

  it("the command's duplicate check keys a number on the core's form, whatever the spelling", () => {
    fc.assert(
      fc.property(
        phoneCase,
        fc.array(fc.constantFrom(' ', '-', '.'), { minLength: 2, maxLength: 2 }),
        (phone, seps) => {
          const [a, b] = seps.map((separator) =>
            spell(phone, { separator, groups: 3, parentheses: false, spaceAfterCode: true, before: ' ', after: '' }),
          ) as [string, string];
          if (normalisePhoneNumber(a) !== normalisePhoneNumber(b)) return;
          const keysOf = (phoneNumber: string) =>
            uniquenessKeys({ loginMethods: [{ recipeId: 'passwordless', phoneNumber }] }, 'public');
          expect(keysOf(a)).toEqual(keysOf(b));
          expect(keysOf(a)).toEqual([`phone number ${normalisePhoneNumber(a)} in tenant public`]);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('emails', () => {
  it('are trimmed and lower-cased, by the core and by the command', () => {
    expect(normaliseEmail('  Ada@Example.COM ')).toBe('ada@example.com');
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (text) => {
        expect(emailOf(text)).toBe(text.trim() === '' ? undefined : normaliseEmail(text));
      }),
    );
  });
});

describe('credential fingerprints', () => {
  it('are sha256: and the first 16 hex digits of the SHA-256 of the UTF-8 bytes, from the value or its digest', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (value) => {
        const hex = createHash('sha256').update(value, 'utf8').digest('hex');
        expect(credentialFingerprint(value)).toBe(`sha256:${hex.slice(0, 16)}`);
        expect(fingerprintOfDigest(hex)).toBe(credentialFingerprint(value));
      }),
    );
  });
});
