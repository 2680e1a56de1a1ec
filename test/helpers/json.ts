/** `text` parsed as JSON, or `otherwise` when it is not JSON (a plain-text error message, an empty body). */
export function jsonOr(text: string, otherwise: unknown = undefined): any {
  try {
    return JSON.parse(text);
  } catch {
    return otherwise;
  }
}
