/**
 * Writes functions/contract/phone-metadata.json, the phone numbering plans the core and the command
 * parse with: `npx tsx bin/phone-metadata.ts` (after upgrading libphonenumber-js; a unit test fails
 * until then).
 *
 * It is libphonenumber-js's "min" metadata without the fields only formatting reads — the display
 * formats of each plan, the national-prefix formatting rule and whether that prefix is optional
 * when formatting. The core only parses numbers to E.164 and asks whether they are valid or
 * possible, none of which reads them; they are about 60 % of the metadata and of what every
 * cold start of a function that parses phone numbers would load.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { MetadataJson } from 'libphonenumber-js';
import minMetadata from 'libphonenumber-js/metadata.min.json';

/**
 * Positions, in a numbering plan of libphonenumber-js's metadata (format version 4), of the fields
 * that only formatting reads: `formats`, `national_prefix_formatting_rule`,
 * `national_prefix_is_optional_when_formatting` (es6/metadata.js, the "v4" branches).
 */
export const FORMATTING_ONLY_FIELDS = [4, 6, 9] as const;

export const PHONE_METADATA_PATH = resolve(import.meta.dirname, '..', 'functions', 'contract', 'phone-metadata.json');

type Plan = unknown[];

/** The parsing metadata: every plan with its formatting-only fields blanked (0, as the format writes absent values). */
export function parsingMetadata(metadata: MetadataJson = minMetadata): MetadataJson {
  if (metadata.version !== 4) {
    throw new Error(`libphonenumber-js metadata format ${metadata.version} is not the one this trimming knows (4)`);
  }
  const trim = (plans: Record<string, Plan>) =>
    Object.fromEntries(
      Object.entries(plans).map(([key, plan]) => [
        key,
        plan.map((value, i) => ((FORMATTING_ONLY_FIELDS as readonly number[]).includes(i) ? 0 : value)),
      ]),
    );
  return {
    ...metadata,
    countries: trim(metadata.countries as Record<string, Plan>),
    nonGeographic: trim(metadata.nonGeographic as Record<string, Plan>),
  } as MetadataJson;
}

/** The file's exact text (so the up-to-date check compares bytes). */
export function phoneMetadataJson(): string {
  return `${JSON.stringify(parsingMetadata())}\n`;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  writeFileSync(PHONE_METADATA_PATH, phoneMetadataJson());
}
