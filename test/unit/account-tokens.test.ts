import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashOneTimeToken, newOneTimeToken, TOKEN_LENGTH } from '#functions/domain/accounts/tokens.js';
import { tokenLookupKeyOf } from '#functions/storage/keys/accounts.js';

describe('password-reset and email-verification tokens', () => {
  it("have the reference's form: 128 characters of [A-Za-z0-9], URL-safe as they are, never repeated", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const token = newOneTimeToken();
      expect(token).toMatch(/^[A-Za-z0-9]{128}$/);
      expect(encodeURIComponent(token)).toBe(token);
      seen.add(token);
    }
    expect(seen.size).toBe(500);
    expect(TOKEN_LENGTH).toBe(128);
  });

  it('Base64 of hex text never holds +, / or = (so no byte string makes a token that is not URL-safe)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 48, maxLength: 48 }), (bytes) => {
        const text = Buffer.from(Buffer.from(bytes).toString('hex'), 'utf8').toString('base64');
        expect(text).toMatch(/^[A-Za-z0-9]{128}$/);
      }),
      { numRuns: 2000 },
    );
  });

  it('are kept as their SHA-256 (hex)', () => {
    const token = newOneTimeToken();
    expect(hashOneTimeToken(token)).toBe(createHash('sha256').update(token).digest('hex'));
    expect(hashOneTimeToken(token)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("find their lookup item from their owner-side sort key, and nothing else's", () => {
    const hash = 'a'.repeat(64);
    expect(tokenLookupKeyOf('shop', `RESET#${hash}`)).toEqual({ PK: `APP#shop#TOKEN#${hash}`, SK: 'RESET' });
    expect(tokenLookupKeyOf('shop', `EVTOKEN#t1#${'b'.repeat(64)}#${hash}`)).toEqual({
      PK: `APP#shop#TOKEN#${hash}`,
      SK: 'EMAIL_VERIFICATION',
    });
    for (const other of ['METADATA', 'ROLE#public#admin', `VERIFIED#${hash}`, 'TOTP#phone', 'USER']) {
      expect(tokenLookupKeyOf('shop', other)).toBeUndefined();
    }
  });
});
