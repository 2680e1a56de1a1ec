/**
 * The import checks read stored hashes through forms.ts (no KDF), sign-in through schemes.ts (each
 * form with its verification): both must see the same forms, or an accepted import could be a
 * hash sign-in reads differently.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formOf, STORED_FORMS } from '../../functions/domain/passwords/forms.js';
import { needsRehash } from '../../functions/domain/passwords/index.js';
import { STORED_SCHEMES, schemeOf } from '../../functions/domain/passwords/schemes.js';

const PREFIXES = [
  '$2a$',
  '$2b$',
  '$2x$',
  '$2y$',
  '$2',
  '$argon2id$',
  '$argon2i$',
  '$argon2d$',
  '$argon2',
  '$f_scrypt$',
  '$pbkdf2-sha256$',
  '$pbkdf2-',
  '$scrypt$',
  '$P$',
  '$H$',
  '$S$',
  '$wp$',
  '$wp$2y$',
  '$md5$',
  '$sha1$',
  '$sha256$',
  '$sha512$',
  '$',
  '',
];

/** Complete stored hashes (some with refused parameters), cut anywhere by the property below. */
const STORED = [
  '$2a$10$GdJB9E9ce7G/H/5IYhrD0ON1CuVEmUoh/i7ewcot4ZStgHd83Ahbe',
  '$2y$04$FAoTzla54fQsOZYYdT5rS.ZkSfSls9ENEu8EBQsiO03hYjl7jt9wy',
  '$wp$2y$10$GdJB9E9ce7G/H/5IYhrD0ON1CuVEmUoh/i7ewcot4ZStgHd83Ahbe',
  '$argon2id$v=19$m=1024,t=2,p=1$KC3qomUDgi0ek4qWDzaWeg$f53/gXthZXGMZw4creNmncIuz9cktnA/4wer2YmBwzw',
  '$argon2i$v=19$m=1,t=1,p=1$a2V5a2V5a2V5$f53/gXthZXGMZw4creNmncIuz9cktnA/4wer2YmBwzw',
  '$P$984478476IagS59wHZvyQMArzfx58u.',
  '$S$C33783772bRXEx1aCsvY.dqgaaSu76XmVlKrW9Qu8IQlvxHlmzLf',
];

describe('stored forms and sign-in schemes', () => {
  it('pair every form with one verification, in the same order', () => {
    expect(STORED_SCHEMES).toHaveLength(STORED_FORMS.length);
    STORED_SCHEMES.forEach((scheme, i) => {
      expect(scheme.form).toBe(STORED_FORMS[i]);
      expect(scheme.legacy).toBe(STORED_FORMS[i]?.legacy);
    });
  });

  it('claim and read any string alike', () => {
    const strings = fc.oneof(
      fc.tuple(fc.constantFrom(...PREFIXES), fc.string({ maxLength: 80 })).map(([prefix, rest]) => prefix + rest),
      fc.tuple(fc.constantFrom(...STORED), fc.nat()).map(([stored, cut]) => stored.slice(0, stored.length - (cut % 4))),
    );
    fc.assert(
      fc.property(strings, (stored) => {
        const form = formOf(stored);
        const scheme = schemeOf(stored);
        expect(scheme?.form).toBe(form);
        expect(needsRehash(stored)).toBe(form?.legacy ?? false);
        expect(scheme?.open(stored)?.problem).toEqual(form?.read(stored)?.problem);
        expect(scheme?.open(stored) === undefined).toBe(form?.read(stored) === undefined);
      }),
      { numRuns: 2000 },
    );
    // The samples themselves are read as complete hashes by both.
    for (const stored of STORED) expect(formOf(stored)?.read(stored), stored).toBeDefined();
  });
});
