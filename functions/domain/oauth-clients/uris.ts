/**
 * The URI checks an OAuth2 client's fields go through (the reference provider's rules, listed in
 * docs/oauth2-clients.md). Parsing is the WHATWG URL parser's (`URL`), with the provider's notion
 * of a "request URI": an absolute URI with a scheme, or an absolute path.
 */

/** A scheme as RFC 3986 spells one, then `:`. */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

export interface RequestUri {
  /** Lower-cased; empty for an absolute path. */
  readonly scheme: string;
  readonly hostname: string;
  readonly port: string;
}

/**
 * An absolute URI (`https://app.example.com/cb`, `com.example.app:/cb`) or an absolute path
 * (`/cb`); undefined for anything else (a relative reference, text that does not parse).
 */
export function parseRequestUri(text: string): RequestUri | undefined {
  if (text.startsWith('/')) {
    return URL.canParse(text, 'http://path.invalid') ? { scheme: '', hostname: '', port: '' } : undefined;
  }
  if (!SCHEME.test(text) || !URL.canParse(text)) return undefined;
  const url = new URL(text);
  return { scheme: url.protocol.slice(0, -1), hostname: url.hostname, port: url.port };
}

/** Whether a request URI uses `http` or `https`. */
export const isHttp = (uri: RequestUri): boolean => uri.scheme === 'http' || uri.scheme === 'https';

/** Why a CORS origin is refused, or the origin as stored. */
export type OriginCheck =
  | { readonly ok: true; readonly origin: string }
  | { readonly ok: false; readonly problem: 'unparsable' | 'scheme' | 'credentials' | 'not-an-origin' };

/**
 * An allowed CORS origin: `http(s)://host[:port]`, no user or password, and nothing after the
 * authority but slashes, which are dropped (`http://localhost:3000/` → `http://localhost:3000`).
 * Text without a scheme is refused for its scheme, as the provider refuses it.
 */
export function checkOrigin(text: string): OriginCheck {
  if (!SCHEME.test(text)) return { ok: false, problem: 'scheme' };
  if (!URL.canParse(text)) return { ok: false, problem: 'unparsable' };
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, problem: 'scheme' };
  if (url.username !== '' || url.password !== '') return { ok: false, problem: 'credentials' };
  const rest = /^[^:]+:\/\/[^/?#]*(.*)$/s.exec(text)?.[1];
  if (rest === undefined || !/^\/*$/.test(rest)) return { ok: false, problem: 'not-an-origin' };
  return { ok: true, origin: text.slice(0, text.length - rest.length) };
}
