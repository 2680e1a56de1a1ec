/**
 * The repository stands alone: the README is a front page, and every document a comment or a page
 * cites — a `docs/…` path, a section quoted after it, a Markdown link and its anchor — is in the
 * repository. Documents outside it are never cited.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CODE_DIRS = ['functions', 'bin', 'lib', 'test', 'bench', 'examples'];
const SKIP = new Set(['node_modules', 'dist', 'cdk.out', 'results', '.data']);

function walk(dir: string, keep: (file: string) => boolean): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...walk(path, keep));
    else if (keep(path)) found.push(path);
  }
  return found;
}

const rel = (path: string) => relative(ROOT, path);
const codeFiles = [
  ...CODE_DIRS.flatMap((dir) => walk(join(ROOT, dir), (f) => /\.(ts|cts|mts|js|cjs|mjs)$/.test(f))),
  ...['.dependency-cruiser.cjs', 'vitest.config.ts'].map((f) => join(ROOT, f)),
];
const pages = [join(ROOT, 'README.md'), ...walk(join(ROOT, 'docs'), (f) => f.endsWith('.md'))];
const text = new Map([...codeFiles, ...pages].map((file) => [file, readFileSync(file, 'utf8')]));

/** GitHub's anchors for a page's headings (outside code blocks), duplicates numbered as GitHub does. */
function anchors(page: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(page, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.+)$/.exec(line);
    if (!heading) continue;
    const slug = (heading[1] as string)
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, '')
      .replaceAll(' ', '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

/** Sections of a page as written: its headings (without `#`s and backticks) and bold paragraph labels (`**Staged ids.**`). */
function headings(page: string): Set<string> {
  const lines = readFileSync(page, 'utf8').split('\n');
  const titles = lines.filter((l) => /^#{1,6} /.test(l)).map((l) => l.replace(/^#+ /, '').replaceAll('`', '').trim());
  const labels = lines.flatMap((l) => /^\*\*([^*]+?)\.?\*\*/.exec(l)?.[1] ?? []);
  return new Set([...titles, ...labels]);
}

/** `docs/…` paths named in a file (not inside a URL), trailing sentence dots removed. */
function citedPaths(content: string): string[] {
  return [...content.matchAll(/(?<![\w./-])docs\/[\w.-]+(?:\/[\w.-]+)*\/?/g)].map((m) => m[0].replace(/\.+$/, ''));
}

describe('the README', () => {
  it('is a front page of at most 300 lines', () => {
    expect((text.get(join(ROOT, 'README.md')) as string).split('\n').length).toBeLessThanOrEqual(300);
  });

  it('links every page of docs/', () => {
    const readme = text.get(join(ROOT, 'README.md')) as string;
    const unlinked = readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .filter((f) => !readme.includes(`](docs/${f}`));
    expect(unlinked).toEqual([]);
  });
});

describe('citations', () => {
  it('every docs/ path cited in code and docs exists', () => {
    const missing: string[] = [];
    for (const [file, content] of text) {
      for (const path of citedPaths(content)) if (!existsSync(join(ROOT, path))) missing.push(`${rel(file)}: ${path}`);
    }
    expect(missing).toEqual([]);
  });

  it('every section quoted after a cited page is a heading of that page', () => {
    const missing: string[] = [];
    const cite = /(README(?:\.md)?|docs\/[\w.-]+\.md)(?:'s)? ((?:"[^"\n]+"(?:, )?)+)/g;
    for (const [file, content] of text) {
      for (const [, page, quoted] of content.matchAll(cite)) {
        const target = join(ROOT, page === 'README' ? 'README.md' : (page as string));
        if (!existsSync(target)) continue; // reported by the test above
        const known = headings(target);
        for (const [, section] of (quoted as string).matchAll(/"([^"]+)"/g)) {
          if (!known.has(section as string)) missing.push(`${rel(file)}: ${page} "${section}"`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('every relative Markdown link of the README and docs/ reaches a file, and its anchor a heading', () => {
    const broken: string[] = [];
    for (const page of pages) {
      let fenced = false;
      for (const line of (text.get(page) as string).split('\n')) {
        if (line.startsWith('```')) fenced = !fenced;
        if (fenced) continue;
        for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
          if (/^[a-z]+:/.test(target as string)) continue;
          const [path, anchor] = (target as string).split('#') as [string, string | undefined];
          const file = path === '' ? page : resolve(page, '..', path);
          if (!existsSync(file)) broken.push(`${rel(page)}: ${target}`);
          else if (anchor && statSync(file).isFile() && !anchors(file).has(anchor))
            broken.push(`${rel(page)}: ${target}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('no comment or page cites a document outside the repository', () => {
    const section = '\u00a7';
    const outside = [
      new RegExp(`\\b(spec|design) ${section}`),
      new RegExp(['core', 'api', 'spec'].join('-')),
      new RegExp(['sdk-client', 'style', 'toolchain'].map((name) => `\\b${name}\\.md`).join('|')),
      new RegExp(['shared', 'docs'].join('/')),
      // A section sign cites a section; only published RFCs may be cited that way.
      new RegExp(`(?<!RFC \\d+ )${section}`),
    ];
    const found: string[] = [];
    for (const [file, content] of text) {
      for (const [i, line] of content.split('\n').entries()) {
        if (outside.some((pattern) => pattern.test(line))) found.push(`${rel(file)}:${i + 1}: ${line.trim()}`);
      }
    }
    expect(found).toEqual([]);
  });
});
