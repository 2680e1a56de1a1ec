/**
 * Searching a tenant's users by email, phone number or third-party provider (`GET /<t>/users` with
 * `email`, `phone`, `provider`; the SDK's `getUsersNewestFirst({query})` and the user dashboard's
 * search send them). The matching is the reference core's (docs/users.md "Searching users"):
 *
 * - each field holds terms separated by `;`, each lower-cased and trimmed, empty ones dropped;
 * - a term matches an email that starts with it, or whose domain (after the first `@`) does; a
 *   phone number that starts with it; a provider `<thirdPartyId>::<thirdPartyUserId>` that starts
 *   with it — all compared lower-cased;
 * - several terms of one field: any of them (OR); several fields: the same login method must
 *   match each of them (AND), and that login method must belong to the tenant;
 * - the answer is the users owning such login methods (a linked login method answers with its
 *   primary user), by time joined in the asked order (ties: the user id, descending), at most
 *   {@link SEARCH_RESULTS_MAX}, with no pagination token.
 */
import { BadRequestError } from '#functions/shared/errors.js';
import type { UsersDeps } from './deps.js';
import { emailDomain, type LoginMethodRecord, providerValue, type SearchField, type UserRecord } from './model.js';

/** The terms of each field searched; a field without terms is absent. */
export interface UserSearch {
  readonly emails?: readonly string[];
  readonly phones?: readonly string[];
  readonly providers?: readonly string[];
}

/** The reference answers at most this many users to a search (and never a pagination token). */
export const SEARCH_RESULTS_MAX = 1000;

/**
 * Terms a field may hold (after empty ones are dropped). The reference has no limit; each term
 * here is one or two index queries, so a request's cost is bounded by refusing more.
 */
export const SEARCH_TERMS_MAX = 100;

/** `String.trim()` of Java: strips code units up to U+0020 at both ends (not other whitespace). */
function javaTrim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) <= 0x20) start++;
  while (end > start && text.charCodeAt(end - 1) <= 0x20) end--;
  return text.slice(start, end);
}

/** One field's query value → its terms: split on `;`, lower-cased, trimmed, empty ones dropped. */
export function searchTerms(raw: string | undefined, field: string): string[] | undefined {
  if (raw === undefined) return undefined;
  const terms = raw
    .split(';')
    .map((term) => javaTrim(term.toLowerCase()))
    .filter((term) => term.length > 0);
  if (terms.length === 0) return undefined;
  if (new Set(terms).size > SEARCH_TERMS_MAX) {
    throw new BadRequestError(`Field name '${field}' can have at most ${SEARCH_TERMS_MAX} search terms`);
  }
  return terms;
}

/**
 * The search the `email`, `phone` and `provider` query parameters ask for; undefined when none
 * holds a term (the request is then an ordinary listing, as in the reference).
 */
export function parseUserSearch(query: {
  readonly email?: string | undefined;
  readonly phone?: string | undefined;
  readonly provider?: string | undefined;
}): UserSearch | undefined {
  const emails = searchTerms(query.email, 'email');
  const phones = searchTerms(query.phone, 'phone');
  const providers = searchTerms(query.provider, 'provider');
  if (!emails && !phones && !providers) return undefined;
  return { ...(emails ? { emails } : {}), ...(phones ? { phones } : {}), ...(providers ? { providers } : {}) };
}

const startsWithAny = (value: string, terms: readonly string[]) => terms.some((term) => value.startsWith(term));

/** Whether one login method matches every field of the search (the tenant aside). */
export function loginMethodMatches(lm: LoginMethodRecord, search: UserSearch): boolean {
  if (search.emails) {
    if (lm.email === undefined) return false;
    const email = lm.email.toLowerCase();
    if (!startsWithAny(email, search.emails) && !startsWithAny(emailDomain(email), search.emails)) return false;
  }
  if (search.phones) {
    if (lm.phoneNumber === undefined || !startsWithAny(lm.phoneNumber.toLowerCase(), search.phones)) return false;
  }
  if (search.providers) {
    if (lm.thirdPartyId === undefined || lm.thirdPartyUserId === undefined) return false;
    if (!startsWithAny(providerValue(lm.thirdPartyId, lm.thirdPartyUserId).toLowerCase(), search.providers)) {
      return false;
    }
  }
  return true;
}

/** Whether a user has a login method in `tenantId` that matches the search. */
export function userMatches(user: UserRecord, tenantId: string, search: UserSearch): boolean {
  return user.loginMethods.some((lm) => lm.tenantIds.includes(tenantId) && loginMethodMatches(lm, search));
}

/**
 * The field whose index gives the candidates: the others are checked on the candidates. Emails
 * first (a provider alone, e.g. `google`, is the least selective), then phone numbers.
 */
export function candidateField(search: UserSearch): { field: SearchField; terms: readonly string[] } {
  if (search.emails) return { field: 'email', terms: search.emails };
  if (search.phones) return { field: 'phone', terms: search.phones };
  return { field: 'provider', terms: search.providers ?? [] };
}

/**
 * Terms that can find something no other term finds: a term that another term of the field
 * starts with is dropped (its matches are the shorter term's matches). Duplicates go too.
 */
export function essentialTerms(terms: readonly string[]): string[] {
  const unique = [...new Set(terms)].sort();
  return unique.filter((term, i) => !unique.slice(0, i).some((shorter) => term.startsWith(shorter)));
}

/** Orders users as the reference orders a search's answer: time joined, then user id descending. */
export function searchOrder(order: 'ASC' | 'DESC') {
  return (a: UserRecord, b: UserRecord) =>
    (order === 'ASC' ? a.timeJoined - b.timeJoined : b.timeJoined - a.timeJoined) ||
    (a.userId < b.userId ? 1 : a.userId > b.userId ? -1 : 0);
}

/**
 * The users of a tenant the search finds, in the asked order, at most {@link SEARCH_RESULTS_MAX}.
 * Storage gives candidates from the index of one field (bounded, docs/users.md "What a search
 * costs"); every field of the search is checked here on the users themselves, so a candidate an
 * eventually consistent index still lists after a change is not answered.
 */
export async function searchUsers(
  deps: UsersDeps,
  target: { appId: string; tenantId: string },
  search: UserSearch,
  order: 'ASC' | 'DESC',
): Promise<UserRecord[]> {
  const { field, terms } = candidateField(search);
  const candidates = await deps.store.searchUsers(target.appId, target.tenantId, {
    field,
    terms: essentialTerms(terms),
    limit: SEARCH_RESULTS_MAX,
  });
  return candidates
    .filter((user) => userMatches(user, target.tenantId, search))
    .sort(searchOrder(order))
    .slice(0, SEARCH_RESULTS_MAX);
}
