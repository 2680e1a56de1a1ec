/**
 * The sources the command reads: each is one `SourceDefinition` in its own file (sources/source.ts
 * says what one holds). `setupSource` opens the chosen one for an export.
 */
import { usageError } from '../errors.js';
import { type ByteCounter, detectLayout, type Layout, recordsOf, type SourceRecord } from '../input.js';
import { auth0 } from './auth0.js';
import { clerk } from './clerk.js';
import { cognito } from './cognito.js';
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
  cognito,
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
  if (settings.passwordHook === true && source.pendsWithoutHash !== true) {
    throw usageError(
      `--password-hook applies to ${SOURCE_DEFINITIONS.filter((s) => s.pendsWithoutHash)
        .map((s) => s.name)
        .join(', ')}: every user of a ${name} export that signs in with a password carries its hash`,
    );
  }
  const layout = source.layout(await detectLayout(exportPath), exportPath);
  const opened = await source.open(exportPath, layout, settings);
  return {
    ...opened,
    // The pending users change the payload: part of the migration key.
    inputDigests: settings.passwordHook === true ? [...opened.inputDigests, 'password-hook'] : opened.inputDigests,
    layout,
    records: opened.records ?? ((counter?: ByteCounter) => recordsOf(exportPath, layout, true, counter)),
    checkFirst: (value) => source.checkFirst?.(value, layout),
    close: () => opened.close?.(),
  };
}
