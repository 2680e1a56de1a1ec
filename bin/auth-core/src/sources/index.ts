/**
 * The sources the command reads: each is one `SourceDefinition` in its own file (sources/source.ts
 * says what one holds). `setupSource` opens the chosen one for an export.
 */
import { type ByteCounter, detectLayout, type Layout, recordsOf, type SourceRecord } from '../input.js';
import { auth0 } from './auth0.js';
import { clerk } from './clerk.js';
import type { Conversion } from './conversion.js';
import { django } from './django.js';
import { firebase } from './firebase.js';
import { keycloak } from './keycloak.js';
import type { OpenedSource, SourceDefinition, SourceSettings } from './source.js';
import { supabase } from './supabase.js';
import { supertokens } from './supertokens.js';
import { wordpress } from './wordpress.js';

export type { SourceSettings } from './source.js';

/** Every source, in the order `--help` lists them. */
export const SOURCE_DEFINITIONS: readonly SourceDefinition[] = [
  supertokens,
  auth0,
  firebase,
  supabase,
  clerk,
  keycloak,
  django,
  wordpress,
];

export const SOURCES = SOURCE_DEFINITIONS.map((source) => source.name);

/** A source opened for one export: its records, its checks and its converter. */
export interface SourceSetup extends Omit<OpenedSource, 'records' | 'close'> {
  readonly layout: Layout;
  records(counter?: ByteCounter): AsyncGenerator<SourceRecord>;
  /** Why the first record shows the file is not this source's export, if it does. */
  checkFirst(value: unknown): string | undefined;
  convert(value: unknown): Conversion;
  close(): void;
}

export async function setupSource(name: string, exportPath: string, settings: SourceSettings): Promise<SourceSetup> {
  const source = SOURCE_DEFINITIONS.find((s) => s.name === name);
  if (source === undefined) throw new Error(`unknown source ${name}`);
  const layout = source.layout(await detectLayout(exportPath), exportPath);
  const opened = await source.open(exportPath, layout, settings);
  return {
    ...opened,
    layout,
    records: opened.records ?? ((counter?: ByteCounter) => recordsOf(exportPath, layout, true, counter)),
    checkFirst: (value) => source.checkFirst?.(value, layout),
    close: () => opened.close?.(),
  };
}
