/**
 * Writes the configuration reference (generated from the key registry) into docs/configuration.md
 * between the `config-reference` markers: `npx tsx bin/config-doc.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { renderConfigReferenceMarkdown } from '#functions/config/index.js';

export const START = '<!-- config-reference:start -->';
export const END = '<!-- config-reference:end -->';

/** The page that holds the configuration reference. */
export const CONFIG_PAGE = resolve(import.meta.dirname, '..', 'docs', 'configuration.md');

export function withConfigReference(page: string): string {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error('docs/configuration.md has no config-reference markers');
  return `${page.slice(0, start + START.length)}\n${renderConfigReferenceMarkdown().trim()}\n${page.slice(end)}`;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  writeFileSync(CONFIG_PAGE, withConfigReference(readFileSync(CONFIG_PAGE, 'utf8')));
}
