/**
 * The reference core's rules for dashboard users' emails and passwords, with its messages
 * (docs/dashboard.md "Dashboard users").
 *
 * Emails: the reference checks a dashboard user's email with a pattern derived from the SDK's
 * email validator but written without its escapes, so it accepts and refuses its own set of
 * strings: any local part of one or more characters (no line terminator), an `@`, then either a
 * single character of `0-9 { } , .`, or one or more blocks of `[A-Za-z0-9-]+` each followed by
 * any one character, ending in two or more ASCII letters (`a@b.co`, `a@b_c.com` and `a@a!bc` pass;
 * `a@b.c`, `a@[1.2.3.4]` and `a@example.c0m` do not). That pattern, as a backtracking regular
 * expression, takes exponential time on some inputs; {@link isValidDashboardEmail} decides the
 * same set in one pass (test/unit/dashboard-rules.test.ts holds it to the pattern and to vectors
 * the reference's pattern decided).
 */

/** The characters Java's `.` does not match (its line terminators). */
const LINE_TERMINATOR = /[\n\r\u0085\u2028\u2029]/;
const DOMAIN_LABEL_CHAR = /^[a-zA-Z0-9-]$/;
const ASCII_LETTER = /^[a-zA-Z]$/;
/** The one-character domains the pattern's bracketed alternative accepts. */
const ONE_CHAR_DOMAIN = /^[0-9{},.]$/;

/**
 * Java's `String.trim()`: removes leading and trailing characters up to U+0020 (the reference
 * trims every string parameter so before checking it).
 */
export function javaTrim(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && value.charCodeAt(start) <= 0x20) start++;
  while (end > start && value.charCodeAt(end - 1) <= 0x20) end--;
  return value.slice(start, end);
}

/**
 * Whether the reference would accept `email` (already trimmed and lower-cased) for a dashboard
 * user. Linear in the email's length.
 *
 * The domain after the chosen `@` is either one character of `0-9 { } , .`, or `p t` where `t` is
 * two or more letters and `p` splits into blocks `[A-Za-z0-9-]+ <any>`: that is, `p` has at least
 * two characters, starts with a label character, its next-to-last character is one, and no two
 * consecutive characters of `p` are both outside the label characters. A longer `t` can always
 * give two of its letters back to `p` unless `t` has exactly three, so only `t` of two or three
 * letters need be tried; and for each, the starts after the last pair of consecutive non-label
 * characters are tried once each.
 */
export function isValidDashboardEmail(email: string): boolean {
  if (LINE_TERMINATOR.test(email)) return false;
  const cps = Array.from(email);
  const n = cps.length;
  const label = (i: number) => i >= 0 && i < n && DOMAIN_LABEL_CHAR.test(cps[i] as string);
  /** Whether the domain may start at `j`: an `@` before it with a non-empty local part. */
  const atBefore = (j: number) => j >= 2 && cps[j - 1] === '@';
  if (atBefore(n - 1) && ONE_CHAR_DOMAIN.test(cps[n - 1] as string)) return true;
  for (const tail of [2, 3]) {
    const end = n - tail; // p = cps[j .. end)
    if (end < 0 || !cps.slice(end).every((c) => ASCII_LETTER.test(c))) continue;
    if (!label(end - 2)) continue;
    // The last pair of consecutive non-label characters inside p bounds where p may start.
    let lastPair = -1;
    for (let k = 0; k + 1 < end; k++) if (!label(k) && !label(k + 1)) lastPair = k;
    for (let j = lastPair + 1; j <= end - 2; j++) {
      if (atBefore(j) && label(j)) return true;
    }
  }
  return false;
}

/** `PASSWORD_WEAK_ERROR`'s message for a dashboard user's password (already trimmed), if it is weak. */
export function dashboardPasswordProblem(password: string): string | undefined {
  if (password.length < 8) return 'Password must contain at least 8 characters, including a number';
  if (password.length >= 100) return "Password's length must be lesser than 100 characters";
  // The reference matches whole strings with `.`, which no line terminator satisfies.
  const oneLine = !LINE_TERMINATOR.test(password);
  if (!oneLine || !/[A-Za-z]/.test(password)) return 'Password must contain at least one alphabet';
  if (!/[0-9]/.test(password)) return 'Password must contain at least one number';
  return undefined;
}
