/**
 * The API description and its reference page, served by the local runtime only (docs/api-description.md):
 * `GET /openapi.json` (docs/openapi/openapi.yaml as JSON), `GET /openapi.html` (Swagger UI
 * rendering it) and the page's files under `/openapi-ui/`. No API key, no prefixes: the
 * description is the same for every app. Swagger UI is served from node_modules (swagger-ui-dist),
 * never from a CDN.
 *
 * These paths can never be an API path of the core under a prefix (a `.` is in no app or tenant id,
 * and `openapi-ui` paths have no API path after them), so they shadow nothing the router serves.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '../../lib/constants.js';
import type { DispatchResult } from './dispatch.js';

/** The description's source: one YAML document with internal references only. */
export const DESCRIPTION_FILE = join(REPO_ROOT, 'docs', 'openapi', 'openapi.yaml');

/** What the local runtime serves besides the manifest's routes, by path (GET and HEAD only). */
export const LOCAL_PATHS = {
  description: '/openapi.json',
  page: '/openapi.html',
  assets: '/openapi-ui/',
} as const;

/** The description as an object (YAML anchors resolved), read once. */
let description: Record<string, unknown> | undefined;
export function loadDescription(): Record<string, unknown> {
  description ??= parse(readFileSync(DESCRIPTION_FILE, 'utf8'), { maxAliasCount: -1 }) as Record<string, unknown>;
  return description;
}

const swaggerUiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const HTML = 'text/html; charset=utf-8';
const TEXT = 'text/plain; charset=utf-8';

/** The page's files: Swagger UI's browser bundle and style sheet, and the script that starts it. */
const ASSETS: Readonly<Record<string, { readonly file: string; readonly type: string }>> = {
  'swagger-ui-bundle.js': { file: join(swaggerUiDir, 'swagger-ui-bundle.js'), type: JS },
  'swagger-ui.css': { file: join(swaggerUiDir, 'swagger-ui.css'), type: CSS },
  'start.js': { file: join(REPO_ROOT, 'bin', 'local', 'openapi-ui', 'start.js'), type: JS },
};

/**
 * Every path this module answers.
 * @internal The contract test (test/e2e/openapi-contract.test.ts) requests each of them.
 */
export const LOCAL_ONLY_PATHS: readonly string[] = [
  LOCAL_PATHS.description,
  LOCAL_PATHS.page,
  ...Object.keys(ASSETS).map((name) => `${LOCAL_PATHS.assets}${name}`),
];

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Auth Core API</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${LOCAL_PATHS.assets}swagger-ui.css">
</head>
<body>
<div id="reference" data-description="${LOCAL_PATHS.description}"></div>
<script src="${LOCAL_PATHS.assets}swagger-ui-bundle.js"></script>
<script src="${LOCAL_PATHS.assets}start.js"></script>
</body>
</html>
`;

/**
 * The page runs only its own scripts and talks only to this core (Swagger UI's "Try it out"
 * sends same-origin requests, which the cross-site guard lets through); it may not be framed.
 */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
};

const answer = (
  statusCode: number,
  type: string,
  body: string,
  headers: Record<string, string> = {},
): DispatchResult => ({
  statusCode,
  headers: { ...headers, 'content-type': type, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' },
  body,
});

const files = new Map<string, string>();
const fileText = (path: string): string => {
  let text = files.get(path);
  if (text === undefined) {
    text = readFileSync(path, 'utf8');
    files.set(path, text);
  }
  return text;
};

/**
 * The answer for one of {@link LOCAL_ONLY_PATHS}, or undefined for any other path (the router's).
 * Another method than GET or HEAD answers 405 `Method not supported`, as the core does.
 */
export function localOnlyAnswer(method: string, path: string): DispatchResult | undefined {
  const asset = path.startsWith(LOCAL_PATHS.assets) ? ASSETS[path.slice(LOCAL_PATHS.assets.length)] : undefined;
  if (path !== LOCAL_PATHS.description && path !== LOCAL_PATHS.page && asset === undefined) return undefined;
  const upper = method.toUpperCase();
  if (upper !== 'GET' && upper !== 'HEAD') return answer(405, TEXT, 'Method not supported\n');
  if (path === LOCAL_PATHS.description)
    return answer(200, 'application/json; charset=utf-8', `${JSON.stringify(loadDescription())}\n`);
  if (path === LOCAL_PATHS.page) return answer(200, HTML, PAGE, PAGE_HEADERS);
  const { file, type } = asset as { file: string; type: string };
  return answer(200, type, fileText(file));
}
