/**
 * Emails as the core stores, looks up and compares them, and as `npx auth-core` sends them: trimmed
 * and lower-cased, with no syntax check (the reference core's rule; docs/import-payload.md, "Emails").
 */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}
