/**
 * Writes the configuration reference (generated from the key registry) into README.md between
 * the `config-reference` markers: `npx tsx bin/config-doc.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { renderConfigReferenceMarkdown } from '#functions/config/index.js';

export const START = '<!-- config-reference:start -->';
export const END = '<!-- config-reference:end -->';

export function withConfigReference(readme: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error('README.md has no config-reference markers');
  return `${readme.slice(0, start + START.length)}\n${renderConfigReferenceMarkdown().trim()}\n${readme.slice(end)}`;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const path = resolve(import.meta.dirname, '..', 'README.md');
  writeFileSync(path, withConfigReference(readFileSync(path, 'utf8')));
}
