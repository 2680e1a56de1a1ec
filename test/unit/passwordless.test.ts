/**
 * The passwordless derivations and input rules, without storage: code derivation against a vector
 * computed independently (Python's hmac/hashlib), Base64 read as Java's decoders read it, and the
 * request parsers' messages (with fast-check: any JSON body is either read or refused with a 400,
 * never anything else).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeBase64,
  deviceIdHashOf,
  isExpired,
  linkCodeHashOf,
  linkCodeOf,
} from '#functions/domain/passwordless/model.js';
import {
  parseCodeInput,
  parseCreateCode,
  parseListCodes,
  parseRemoveCode,
  parseRemoveCodes,
  storableContact,
} from '#functions/domain/passwordless/requests.js';
import { parsePasswordlessUserUpdate } from '#functions/domain/passwordless/user-update.js';
import { BadRequestError } from '#functions/shared/errors.js';
import { ID_LIMITS } from '#functions/shared/id-limits.js';
import {
  passwordlessAppIndexSortKey,
  passwordlessCodeIdIndexPartition,
  passwordlessCodeSortKey,
  passwordlessDevicePartition,
  passwordlessEmailIndexPartition,
  passwordlessPhoneIndexPartition,
} from '#functions/storage/keys/passwordless.js';

describe('code derivation', () => {
  // deviceId = bytes 0…31, salt = bytes 32…63, userInputCode "123456" (computed with Python's hmac and hashlib).
  const deviceId = Buffer.from(Array.from({ length: 32 }, (_, i) => i));
  const salt = Buffer.from(Array.from({ length: 32 }, (_, i) => i + 32));

  it('derives the preAuthSessionId, the link code and its hash as the reference does', () => {
    expect(deviceId.toString('base64')).toBe('AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=');
    expect(deviceIdHashOf(deviceId)).toBe('Yw3NKWbEM2aRElRIu7JbT_QSpJxzLbLIq8G4WBvXEN0');
    const linkCode = linkCodeOf(deviceId, salt, '123456');
    expect(linkCode).toBe('GG0Ss4OqlRCeHdv7UHj5zeJmudmi8pXGJTZlfjEbW4Q');
    expect(linkCodeHashOf(Buffer.from(linkCode, 'base64url'))).toBe('nDpoavHqv8vldu3TKssOJvqFyOknHBs1tz-eXK0LVps=');
  });

  it('gives another link code for another salt or another user input code', () => {
    const base = linkCodeOf(deviceId, salt, '123456');
    expect(linkCodeOf(deviceId, Buffer.alloc(32), '123456')).not.toBe(base);
    expect(linkCodeOf(deviceId, salt, '123457')).not.toBe(base);
  });

  it('expires a code strictly after its lifetime', () => {
    const code = { codeId: 'c', deviceIdHash: 'd', linkCodeHash: 'h', createdAt: 1_000 };
    const settings = { codeLifetimeMs: 500, maxCodeInputAttempts: 5 };
    expect(isExpired(code, 1_500, settings)).toBe(false);
    expect(isExpired(code, 1_501, settings)).toBe(true);
  });
});

describe('Base64 as Java reads it', () => {
  it.each([
    ['', 'standard', ''],
    ['AAEC', 'standard', '000102'],
    ['AAE', 'standard', '0001'],
    ['AAE=', 'standard', '0001'],
    ['AA', 'standard', '00'],
    ['AA==', 'standard', '00'],
    ['+/+/', 'standard', 'fbffbf'],
    ['-_-_', 'url', 'fbffbf'],
  ] as const)('%j (%s) decodes', (text, alphabet, hex) => {
    expect(decodeBase64(text, alphabet)?.toString('hex')).toBe(hex);
  });

  it.each([
    ['A', 'standard'],
    ['AAAAA', 'standard'],
    ['AA=', 'standard'],
    ['AAE==', 'standard'],
    ['AAEC=', 'standard'],
    ['AA==AA', 'standard'],
    ['-_-_', 'standard'],
    ['+/+/', 'url'],
    ['AA AA', 'standard'],
    ['AAEC\n', 'standard'],
  ] as const)('%j (%s) is refused', (text, alphabet) => {
    expect(decodeBase64(text, alphabet)).toBeUndefined();
  });

  it('round-trips any bytes, with or without padding', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const buffer = Buffer.from(bytes);
        expect(decodeBase64(buffer.toString('base64'), 'standard')?.equals(buffer)).toBe(true);
        expect(decodeBase64(buffer.toString('base64').replace(/=+$/, ''), 'standard')?.equals(buffer)).toBe(true);
        expect(decodeBase64(buffer.toString('base64url'), 'url')?.equals(buffer)).toBe(true);
      }),
    );
  });
});

const refusal = (read: () => unknown): string | undefined => {
  try {
    read();
    return undefined;
  } catch (error) {
    if (error instanceof BadRequestError) return error.message;
    throw error;
  }
};

describe('request rules', () => {
  it('reads create-code bodies: one of email, phone number, device id', () => {
    expect(parseCreateCode({ email: ' A@B.c ' })).toEqual({ email: 'a@b.c' });
    expect(parseCreateCode({ phoneNumber: '+44 20 7946 0000', userInputCode: '1' })).toEqual({
      phoneNumber: '+442079460000',
      userInputCode: '1',
    });
    expect(parseCreateCode({ deviceId: 'x' })).toEqual({ deviceId: 'x' });
    expect(refusal(() => parseCreateCode({ email: 'a', deviceId: 'x' }))).toBe(
      'Please provide exactly one of email, phoneNumber or deviceId',
    );
  });

  it('reads consume bodies and remove/list inputs', () => {
    expect(parseCodeInput({ preAuthSessionId: 'p', linkCode: 'l' })).toEqual({ preAuthSessionId: 'p', linkCode: 'l' });
    expect(refusal(() => parseCodeInput({ preAuthSessionId: 'p', userInputCode: '1' }))).toBe(
      'Please provide exactly one of linkCode or deviceId+userInputCode',
    );
    expect(parseRemoveCode({ preAuthSessionId: 'p' }, true)).toEqual({ preAuthSessionId: 'p' });
    expect(refusal(() => parseRemoveCode({ preAuthSessionId: 'p' }, false))).toBe(
      "Field name 'codeId' is invalid in JSON input",
    );
    expect(parseRemoveCodes({ phoneNumber: '+1 650 555 0100' })).toEqual({ phoneNumber: '+16505550100' });
    expect(parseListCodes({ email: 'X@Y.z' })).toEqual({ email: 'x@y.z' });
    expect(storableContact({ email: 'x'.repeat(511) })).toBe(false);
    expect(storableContact({ phoneNumber: '1'.repeat(256) })).toBe(true);
  });

  it('reads the passwordless PUT /recipe/user body', () => {
    expect(parsePasswordlessUserUpdate({ recipeUserId: 'u', email: ' N@X.io', phoneNumber: null }, '5.4')).toEqual({
      recipeUserId: 'u',
      email: 'n@x.io',
      phoneNumber: null,
    });
    expect(parsePasswordlessUserUpdate({ userId: 'u' }, '3.0')).toEqual({ recipeUserId: 'u' });
    expect(refusal(() => parsePasswordlessUserUpdate({ recipeUserId: 'u', email: 5 }, '5.4'))).toBe(
      "Field name 'email' is invalid in JSON input",
    );
    expect(refusal(() => parsePasswordlessUserUpdate({ userId: 'u' }, '5.4'))).toBe(
      "Field name 'recipeUserId' is invalid in JSON input",
    );
  });

  it('reads any JSON body or refuses it with a 400', () => {
    const body = fc.dictionary(
      fc.constantFrom('email', 'phoneNumber', 'deviceId', 'userInputCode', 'preAuthSessionId', 'linkCode', 'codeId'),
      fc.jsonValue({ maxDepth: 2 }),
      { maxKeys: 5 },
    );
    fc.assert(
      fc.property(body, fc.boolean(), (b, cdi5) => {
        for (const read of [
          () => parseCreateCode(b),
          () => parseCodeInput(b),
          () => parseRemoveCode(b, cdi5),
          () => parseRemoveCodes(b),
        ]) {
          refusal(read);
        }
      }),
    );
  });
});

describe('keys at the limits', () => {
  // Every id at its limit in 3-byte characters (lower-casing may double an email's length), the
  // hashes at their fixed lengths, a code id at the longest the core looks up.
  const wide = (n: number) => '中'.repeat(n);
  const a = 'a'.repeat(ID_LIMITS.appId);
  const t = 'a'.repeat(ID_LIMITS.tenantId);
  const hash = 'h'.repeat(43);
  const bytes = (key: string) => Buffer.byteLength(key, 'utf8');

  it('fits DynamoDB: partition keys ≤ 2048 bytes, sort keys ≤ 1024', () => {
    for (const key of [
      passwordlessDevicePartition(a, t, hash),
      passwordlessEmailIndexPartition(a, t, wide(2 * ID_LIMITS.email)),
      passwordlessPhoneIndexPartition(a, t, wide(ID_LIMITS.phoneNumber)),
      passwordlessCodeIdIndexPartition(a, t, wide(128)),
    ]) {
      expect(bytes(key)).toBeLessThanOrEqual(2048);
    }
    for (const key of [passwordlessCodeSortKey(`${hash}=`), passwordlessAppIndexSortKey(t, hash, `${hash}=`)]) {
      expect(bytes(key)).toBeLessThanOrEqual(1024);
    }
  });
});
