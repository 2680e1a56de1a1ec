/**
 * Checks HTTP exchanges against the API description (docs/openapi/openapi.yaml): which operation a
 * request is (its path matched against the description's path templates, the parameters' schemas
 * included, a literal segment winning over a template), whether the description documents the
 * answer's status, its content type, the headers that matter, and its body — JSON bodies and
 * `text/plain` texts alike validated with Ajv's JSON Schema 2020-12 validator (the dialect of
 * OpenAPI 3.1), in strict mode (the description uses no `format`). A request that the core accepted (2xx) has its
 * JSON body validated against the operation's request body too: the description must accept what
 * the core accepts.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { loadDescription } from '../../bin/local/openapi.js';

/** The four prefix forms of a path: none, `/appid-<app>`, `/<tenant>`, `/appid-<app>/<tenant>`. */
export const FORMS = ['bare', 'app', 'tenant', 'app-tenant'] as const;
export type Form = (typeof FORMS)[number];

/** The path template of `path` (a core API path, `/recipe/signin`) under a prefix form. */
export function templateOf(form: Form, path: string): string {
  const api = path === '/' ? '' : path;
  const prefix = { bare: '', app: '/appid-{appId}', tenant: '/{tenantId}', 'app-tenant': '/appid-{appId}/{tenantId}' }[
    form
  ];
  return `${prefix}${api}` || '/';
}

export interface Exchange {
  readonly method: string;
  /** The path as sent, without the query string. */
  readonly path: string;
  readonly status: number;
  /** Response headers, lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The response body as text. */
  readonly text: string;
  readonly requestHeaders?: Readonly<Record<string, string>>;
  /** The request body as sent (JSON text), if any. */
  readonly requestBody?: string;
}

type Json = any;

/** Response headers whose presence the description must document wherever they are sent. */
const HEADERS_THAT_MATTER = ['retry-after', 'idempotency-replayed', 'cache-control', 'content-security-policy'];

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const DOC_ID = 'https://auth-core.invalid/openapi.json';

interface Segment {
  readonly literal?: string;
  readonly prefix?: string;
  readonly param?: string;
}

interface Template {
  readonly template: string;
  readonly segments: readonly Segment[];
}

function compileTemplate(template: string): Template {
  const segments = template
    .split('/')
    .filter((s) => s !== '')
    .map((s): Segment => {
      const match = /^([^{}]*)\{([^{}]+)\}$/.exec(s);
      if (!match) return { literal: s };
      return match[1] === '' ? { param: match[2] } : { prefix: match[1], param: match[2] };
    });
  return { template, segments };
}

/** Higher is more specific: a literal segment beats a partly templated one, which beats a parameter. */
const rank = (s: Segment) => (s.literal !== undefined ? 2 : s.prefix !== undefined ? 1 : 0);

function collectExtensionKeys(node: unknown, into: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) collectExtensionKeys(item, into);
  } else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith('x-')) into.add(key);
      collectExtensionKeys(value, into);
    }
  }
}

/** A copy of a schema whose local references (`#/…`) point into the description by its id. */
function anchored(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(anchored);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] =
      key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `${DOC_ID}${value}` : anchored(value);
  }
  return out;
}

export interface Operation {
  readonly template: string;
  readonly method: string;
  readonly operation: Json;
  /** Path-item and operation parameters, references resolved. */
  readonly parameters: readonly Json[];
}

export interface OpenApiValidator {
  readonly description: Json;
  /** Every `METHOD template` the description has. */
  operations(): string[];
  /** The operation a request is, or a reason why none is. */
  operationOf(method: string, path: string): Operation | string;
  /** What is wrong with the exchange according to the description (empty: nothing). */
  validate(exchange: Exchange): string[];
  /** Follows a local `$ref` (`#/components/…`). */
  resolve(node: Json): Json;
}

export function openApiValidator(description: Json = loadDescription()): OpenApiValidator {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  const extensions = new Set<string>();
  collectExtensionKeys(description, extensions);
  // The description's own keys and the OpenAPI schema keywords are annotations to the validator.
  ajv.addVocabulary([
    ...Object.keys(description).filter((k) => !k.startsWith('x-')),
    'discriminator',
    'xml',
    'externalDocs',
    'example',
    ...extensions,
  ]);
  ajv.addSchema(description, DOC_ID);
  const compiled = new WeakMap<object, ValidateFunction>();
  const validatorOf = (schema: Json): ValidateFunction => {
    const known = compiled.get(schema);
    if (known) return known;
    const fn = ajv.compile(anchored(schema));
    compiled.set(schema, fn);
    return fn;
  };

  const resolve = (node: Json): Json => {
    let current = node;
    for (let depth = 0; current && typeof current === 'object' && typeof current.$ref === 'string'; depth++) {
      if (depth > 10) throw new Error(`reference loop at ${current.$ref}`);
      const ref = current.$ref as string;
      if (!ref.startsWith('#/')) throw new Error(`only local references are supported: ${ref}`);
      let target: Json = description;
      for (const part of ref.slice(2).split('/')) target = target?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
      if (target === undefined) throw new Error(`unresolved reference ${ref}`);
      const { $ref: _, ...siblings } = current;
      // A path item's fields beside its $ref (its prefix parameters) add to the referenced item's.
      current = Object.keys(siblings).length > 0 ? { ...target, ...siblings } : target;
    }
    return current;
  };

  const templates = Object.keys(description.paths ?? {}).map(compileTemplate);

  const paramsOf = (pathItem: Json, operation: Json): Json[] => {
    const byKey = new Map<string, Json>();
    for (const p of [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])].map(resolve)) {
      byKey.set(`${p.in}:${p.name}`, p);
    }
    return [...byKey.values()];
  };

  const operationOf = (method: string, path: string): Operation | string => {
    const parts = path.split('/').filter((s) => s !== '');
    const lower = method.toLowerCase();
    const fitting = templates
      .filter((t) => t.segments.length === parts.length)
      .filter((t) =>
        t.segments.every((s, i) => {
          const part = parts[i] as string;
          if (s.literal !== undefined) return s.literal === part;
          return s.prefix === undefined || (part.startsWith(s.prefix) && part.length >= s.prefix.length);
        }),
      )
      .filter((t) => {
        // A template fits only if every path parameter's value is one its schema accepts.
        const pathItem = resolve(description.paths[t.template]);
        const operation = pathItem[lower];
        if (!operation) return true;
        const params = paramsOf(pathItem, operation);
        return t.segments.every((s, i) => {
          if (s.param === undefined) return true;
          const value = decodeURIComponent((parts[i] as string).slice(s.prefix?.length ?? 0));
          const parameter = params.find((p) => p.in === 'path' && p.name === s.param);
          return parameter === undefined || validatorOf(parameter.schema)(value);
        });
      })
      .sort((a, b) => {
        for (let i = 0; i < a.segments.length; i++) {
          const d = rank(b.segments[i] as Segment) - rank(a.segments[i] as Segment);
          if (d !== 0) return d;
        }
        return 0;
      });
    const best = fitting[0];
    if (!best) return `no path template of the description matches ${path}`;
    const pathItem = resolve(description.paths[best.template]);
    const operation = pathItem[lower];
    if (!operation) return `${best.template} has no ${method} operation`;
    const parameters = paramsOf(pathItem, operation);
    for (const s of best.segments) {
      if (s.param !== undefined && !parameters.some((p) => p.in === 'path' && p.name === s.param)) {
        return `${best.template} does not declare its path parameter ${s.param}`;
      }
    }
    return { template: best.template, method: method.toUpperCase(), operation, parameters };
  };

  const errorsOf = (fn: ValidateFunction) =>
    (fn.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message} ${JSON.stringify(e.params)}`).join('; ');

  const validate = (exchange: Exchange): string[] => {
    const found = operationOf(exchange.method, exchange.path);
    if (typeof found === 'string') return [found];
    const problems: string[] = [];
    const { operation } = found;
    const status = String(exchange.status);
    const declared =
      operation.responses?.[status] ?? operation.responses?.[`${status[0]}XX`] ?? operation.responses?.default;
    if (!declared) return [`${found.method} ${found.template} documents no ${status} response`];
    const response = resolve(declared);
    const contentType = (exchange.headers['content-type'] ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
    const content = response.content as Record<string, Json> | undefined;
    if (!content || Object.keys(content).length === 0) {
      if (exchange.text !== '') problems.push(`the ${status} response has a body but the description documents none`);
    } else {
      const media = content[contentType];
      if (!media) {
        problems.push(
          `the ${status} response is ${contentType || 'untyped'}, documented: ${Object.keys(content).join(', ')}`,
        );
      } else if (media.schema) {
        let body: unknown = exchange.text;
        if (contentType === 'application/json') {
          try {
            body = JSON.parse(exchange.text);
          } catch {
            problems.push(`the ${status} response says application/json but is not JSON`);
            body = undefined;
          }
        }
        const fn = validatorOf(media.schema);
        if (body !== undefined && !fn(body)) problems.push(`body: ${errorsOf(fn)} in ${exchange.text.slice(0, 400)}`);
      }
    }
    const headers = Object.fromEntries(
      Object.entries((response.headers ?? {}) as Record<string, Json>).map(([name, h]) => [
        name.toLowerCase(),
        resolve(h),
      ]),
    );
    for (const [name, header] of Object.entries(headers)) {
      const value = exchange.headers[name];
      if (value === undefined) {
        if (header.required) problems.push(`header ${name} is required but missing`);
        continue;
      }
      const fn = validatorOf(header.schema ?? {});
      const typed = header.schema?.type === 'integer' && /^\d+$/.test(value) ? Number(value) : value;
      if (!fn(typed)) problems.push(`header ${name}: ${errorsOf(fn)}`);
    }
    for (const name of HEADERS_THAT_MATTER) {
      if (exchange.headers[name] !== undefined && headers[name] === undefined) {
        problems.push(`header ${name} is sent but not documented for ${status}`);
      }
    }
    if (exchange.status < 300 && exchange.requestBody !== undefined) {
      const body = operation.requestBody ? resolve(operation.requestBody) : undefined;
      const schema = body?.content?.['application/json']?.schema;
      if (!schema) problems.push('the request has a JSON body but the operation documents none');
      else {
        const fn = validatorOf(schema);
        if (!fn(JSON.parse(exchange.requestBody))) problems.push(`request body: ${errorsOf(fn)}`);
      }
    }
    return problems;
  };

  const operations = () =>
    Object.entries(description.paths ?? {}).flatMap(([template, item]) => {
      const pathItem = resolve(item);
      return METHODS.filter((m) => pathItem[m]).map((m) => `${m.toUpperCase()} ${template}`);
    });

  return { description, operations, operationOf, validate, resolve };
}
