/**
 * The user search's rules without storage (docs/users.md "Searching users"): how the query's terms
 * are read, which login methods a search matches (the reference's arms, checked on the
 * DashboardSearchArmSemantics facts of the reference core), the order of the answer, and the
 * search index keys storage derives (a value that starts with a term is found under the term's
 * key, whatever the characters; checked with fast-check).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LoginMethodRecord, UserRecord } from '#functions/domain/users/model.js';
import type { UserStore } from '#functions/domain/users/ports.js';
import {
  candidateField,
  essentialTerms,
  loginMethodMatches,
  parseUserSearch,
  SEARCH_RESULTS_MAX,
  SEARCH_TERMS_MAX,
  searchOrder,
  searchTerms,
  searchUsers,
  userMatches,
} from '#functions/domain/users/search.js';
import { BadRequestError } from '#functions/shared/errors.js';
import { searchIndexPartition, searchIndexSortKey } from '#functions/storage/keys/users.js';

const method = (fields: Partial<LoginMethodRecord>): LoginMethodRecord => ({
  recipeId: 'emailpassword',
  recipeUserId: 'u1',
  tenantIds: ['public'],
  timeJoined: 1,
  verified: false,
  ...fields,
});

const user = (userId: string, timeJoined: number, loginMethods: LoginMethodRecord[]): UserRecord => ({
  userId,
  isPrimaryUser: loginMethods.length > 1,
  timeJoined,
  loginMethods,
  externalIds: {},
  version: 1,
});

const matches = (lm: LoginMethodRecord, query: { email?: string; phone?: string; provider?: string }) => {
  const search = parseUserSearch(query);
  if (!search) throw new Error('no search');
  return loginMethodMatches(lm, search);
};

describe('search terms', () => {
  it('splits on ";", lower-cases and trims each term, and drops empty ones', () => {
    expect(searchTerms(' John ;;GMAIL; ', 'email')).toEqual(['john', 'gmail']);
    expect(searchTerms('\t+1 ', 'phone')).toEqual(['+1']);
    expect(searchTerms(' ; ;', 'email')).toBeUndefined();
    expect(searchTerms(undefined, 'email')).toBeUndefined();
  });

  it('trims as Java does: only characters up to U+0020, not other white space', () => {
    expect(searchTerms('\u00a0john\u00a0', 'email')).toEqual(['\u00a0john\u00a0']);
  });

  it('is no search at all when no field has a term (an ordinary listing)', () => {
    expect(parseUserSearch({})).toBeUndefined();
    expect(parseUserSearch({ email: ';', phone: ' ', provider: '' })).toBeUndefined();
    expect(parseUserSearch({ email: ';', provider: 'Google' })).toEqual({ providers: ['google'] });
  });

  it(`refuses more than ${SEARCH_TERMS_MAX} distinct terms in a field with a 400`, () => {
    const many = Array.from({ length: SEARCH_TERMS_MAX + 1 }, (_, i) => `t${i}`).join(';');
    expect(() => searchTerms(many, 'phone')).toThrow(
      new BadRequestError(`Field name 'phone' can have at most ${SEARCH_TERMS_MAX} search terms`),
    );
    const repeated = Array.from({ length: 500 }, () => 'same').join(';');
    expect(searchTerms(repeated, 'phone')).toHaveLength(500);
  });

  it('reads any query value as terms or a 400, never anything else', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (raw) => {
        try {
          const terms = searchTerms(raw, 'email') ?? [];
          for (const term of terms) {
            expect(term).toBe(term.toLowerCase());
            expect(term.length).toBeGreaterThan(0);
            expect(term.includes(';')).toBe(false);
          }
        } catch (error) {
          expect(error).toBeInstanceOf(BadRequestError);
        }
      }),
    );
  });
});

describe('which login methods a search matches', () => {
  const john = method({ email: 'john@gmail.com' });
  const phone = method({ recipeId: 'passwordless', phoneNumber: '+919876543210' });
  const google = method({
    recipeId: 'thirdparty',
    thirdPartyId: 'google',
    thirdPartyUserId: 'USER-XyZ',
    email: 'tp@thirdparty.io',
  });

  it('matches an email by its start or by its domain, never in the middle', () => {
    expect(matches(john, { email: 'john' })).toBe(true);
    expect(matches(john, { email: 'gmail' })).toBe(true);
    expect(matches(john, { email: 'JOHN@G' })).toBe(true);
    expect(matches(john, { email: 'mail' })).toBe(false);
    expect(matches(google, { email: 'thirdparty' })).toBe(true);
  });

  it('matches a phone number by its start only', () => {
    expect(matches(phone, { phone: '+919876' })).toBe(true);
    expect(matches(phone, { phone: '9876' })).toBe(false);
  });

  it('matches a provider as "<thirdPartyId>::<thirdPartyUserId>" by its start, ignoring case', () => {
    expect(matches(google, { provider: 'google::user-xyz' })).toBe(true);
    expect(matches(google, { provider: 'GOOGLE::USER' })).toBe(true);
    expect(matches(google, { provider: 'google' })).toBe(true);
    expect(matches(google, { provider: 'oogle' })).toBe(false);
  });

  it('matches any term of a field, and needs every field on the same login method', () => {
    expect(matches(john, { email: 'iresh;john' })).toBe(true);
    expect(matches(google, { email: 'tp', provider: 'goo' })).toBe(true);
    expect(matches(google, { email: 'john', provider: 'goo' })).toBe(false);
    expect(matches(phone, { phone: '+91', provider: 'google' })).toBe(false);
    const both = method({ recipeId: 'passwordless', email: 'a@b.com', phoneNumber: '+1555' });
    expect(matches(both, { email: 'a', phone: '+1' })).toBe(true);
    expect(matches(both, { email: 'z', phone: '+1' })).toBe(false);
  });

  it('needs the login method in the tenant searched', () => {
    const search = parseUserSearch({ email: 'john' });
    if (!search) throw new Error('no search');
    const linked = user('p', 1, [
      method({ email: 'other@x.com', tenantIds: ['public'] }),
      method({ recipeUserId: 'u2', email: 'john@x.com', tenantIds: ['t1'] }),
    ]);
    expect(userMatches(linked, 't1', search)).toBe(true);
    expect(userMatches(linked, 'public', search)).toBe(false);
  });

  it('finds a login method by any prefix of its lower-cased email, and by any prefix of its domain', () => {
    fc.assert(
      fc.property(
        fc.emailAddress(),
        fc.nat(),
        fc.boolean(),
        fc.constantFrom<(s: string) => string>(
          (s) => s,
          (s) => s.toUpperCase(),
        ),
        (email, cut, domain, spelling) => {
          const value = domain ? email.slice(email.indexOf('@') + 1) : email;
          const term = value.slice(0, 1 + (cut % value.length));
          expect(matches(method({ email }), { email: spelling(term) })).toBe(true);
        },
      ),
    );
  });
});

describe('candidates and order', () => {
  it('takes candidates from the emails first, then the phone numbers, then the providers', () => {
    expect(candidateField({ emails: ['a'], providers: ['g'] })).toEqual({ field: 'email', terms: ['a'] });
    expect(candidateField({ phones: ['+1'], providers: ['g'] })).toEqual({ field: 'phone', terms: ['+1'] });
    expect(candidateField({ providers: ['g'] })).toEqual({ field: 'provider', terms: ['g'] });
  });

  it('looks up only terms no shorter term already covers', () => {
    expect(essentialTerms(['john', 'jo', 'test', 'jo', 'te', 'x'])).toEqual(['jo', 'te', 'x']);
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 1, maxLength: 6 }), { maxLength: 20 }),
        fc.string(),
        (terms, value) => {
          const kept = essentialTerms(terms);
          expect(kept.some((t) => value.startsWith(t))).toBe(terms.some((t) => value.startsWith(t)));
        },
      ),
    );
  });

  it('orders by time joined as asked, ties by user id descending', () => {
    const users = [user('a', 2, []), user('b', 1, []), user('c', 2, []), user('d', 3, [])];
    expect([...users].sort(searchOrder('ASC')).map((u) => u.userId)).toEqual(['b', 'c', 'a', 'd']);
    expect([...users].sort(searchOrder('DESC')).map((u) => u.userId)).toEqual(['d', 'c', 'a', 'b']);
  });
});

describe('search index keys', () => {
  it('keep values short enough for a sort key, cut at a character boundary', () => {
    const long = '中'.repeat(600);
    const key = searchIndexSortKey(long);
    expect(Buffer.byteLength(key, 'utf8')).toBeLessThanOrEqual(256);
    expect(long.startsWith(key)).toBe(true);
    expect(searchIndexSortKey('😀'.repeat(100))).toBe('😀'.repeat(64));
    expect(searchIndexSortKey('John@Gmail.COM')).toBe('john@gmail.com');
  });

  it('put a value that starts with a term under the partition of the term, and its key after the term key', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 400, unit: 'grapheme' }),
        fc.nat(),
        fc.string({ maxLength: 50 }),
        (start, cut, rest) => {
          // A term is whole characters (a query string is decoded to well-formed text).
          const chars = Array.from(start);
          const term = chars
            .slice(0, 1 + (cut % chars.length))
            .join('')
            .toLowerCase();
          if (term.length === 0) return;
          const value = `${start}${rest}`;
          if (!value.toLowerCase().startsWith(term)) return;
          expect(searchIndexPartition('a', 't', 'EMAIL', value)).toBe(searchIndexPartition('a', 't', 'EMAIL', term));
          expect(searchIndexSortKey(value).startsWith(searchIndexSortKey(term))).toBe(true);
        },
      ),
    );
  });
});

describe('searchUsers over a store', () => {
  /** An in-memory store answering `searchUsers` with the given candidates, recording what it was asked. */
  function storeOf(candidates: UserRecord[]) {
    const asked: unknown[] = [];
    const store = {
      searchUsers: async (appId: string, tenantId: string, query: unknown) => {
        asked.push({ appId, tenantId, query });
        return candidates;
      },
    } as unknown as UserStore;
    return { deps: { store, now: () => 0, newId: () => 'x' }, asked };
  }

  it(`asks for the essential terms of one field, keeps the users that match every field, at most ${SEARCH_RESULTS_MAX}`, async () => {
    const many = Array.from({ length: SEARCH_RESULTS_MAX + 200 }, (_, n) =>
      user(`u${String(n).padStart(5, '0')}`, n, [method({ email: `john${n}@x.com` })]),
    );
    const stale = user('stale', 0, [method({ email: 'someone@else.com' })]);
    const elsewhere = user('t1-only', 0, [method({ email: 'john@x.com', tenantIds: ['t1'] })]);
    const { deps, asked } = storeOf([stale, elsewhere, ...many]);
    const search = parseUserSearch({ email: 'john;jo;john1', provider: '' });
    if (!search) throw new Error('no search');
    const answer = await searchUsers(deps, { appId: 'a', tenantId: 'public' }, search, 'DESC');
    expect(asked).toEqual([
      { appId: 'a', tenantId: 'public', query: { field: 'email', terms: ['jo'], limit: SEARCH_RESULTS_MAX } },
    ]);
    expect(answer).toHaveLength(SEARCH_RESULTS_MAX);
    expect(answer[0]?.userId).toBe(`u${String(SEARCH_RESULTS_MAX + 199).padStart(5, '0')}`);
    expect(answer.map((u) => u.userId)).not.toContain('stale');
    expect(answer.map((u) => u.userId)).not.toContain('t1-only');
  });
});
