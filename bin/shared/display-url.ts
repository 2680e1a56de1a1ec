/**
 * How the repository's tools show a URL they were given (the command's `--core`, the local
 * runtime's `DYNAMODB_ENDPOINT`): without the parts that may carry a credential. Shared by
 * `npx auth-core` (bundled into it) and `npm start`; it imports nothing.
 */

/** What is shown in place of a URL that does not parse (it is not echoed: it may hold a credential). */
export const UNPARSEABLE_URL = '<unparseable URL>';

/**
 * A URL as it may be shown: without user name and password, query string and fragment (any of which
 * may carry a credential); `<unparseable URL>` when it does not parse.
 */
export function displayUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return UNPARSEABLE_URL;
  }
  parsed.username = '';
  parsed.password = '';
  parsed.search = '';
  parsed.hash = '';
  return parsed.toString().replace(/\/$/, '');
}
