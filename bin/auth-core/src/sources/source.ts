/**
 * What the command knows about one source, in one place: each source's file exports a
 * `SourceDefinition` beside its converter — its flags, how its export is laid out, how its first
 * record is recognised, the side files it loads, the notes it prints and what the app must have.
 * sources/index.ts lists them; nothing else names a source.
 */
import type { ByteCounter, Layout, SourceRecord } from '../input.js';
import type { ConvertOptions } from './common.js';
import type { Conversion } from './conversion.js';

/** A flag only this source reads, in commander's syntax (`--hashes <file>`, `--with-roles`). */
interface SourceFlag {
  readonly flags: string;
  /** Shown in `--help` after the source's name. */
  readonly description: string;
}

/**
 * What the converters are given: the tenant and provider map every source takes, and the values of
 * the sources' own flags under commander's names (`hashes`, `hashConfig`, `withRoles`, …).
 */
export type SourceSettings = ConvertOptions & { readonly [flag: string]: unknown };

/** A coreConfig value the app must hold before users of this export can sign in (Firebase's signer key). */
export interface AppConfigRequirement {
  readonly key: string;
  /** What the value is, for messages (`the signer key`). */
  readonly name: string;
  /** The value; a credential: compared by its fingerprint, never printed. */
  readonly value: string;
  /** Where the value comes from, for messages (`the hash config`). */
  readonly from: string;
  /** What to do when the app holds another value. */
  readonly onMismatch: string;
}

/** A source made ready for one export: side files loaded, settings read. */
export interface OpenedSource {
  convert(value: unknown): Conversion;
  /** Reads the export's records, when this source reads them otherwise than by the layout (headerless CSV). */
  records?(counter?: ByteCounter): AsyncGenerator<SourceRecord>;
  /** Digests of the side files and settings that shape the payload (part of the Idempotency-Key). */
  readonly inputDigests: readonly string[];
  /** What was loaded, for the user (counts only). */
  readonly notes: readonly string[];
  /** Values never to print (they are redacted wherever they would appear). */
  readonly secrets?: readonly string[];
  readonly appConfig?: AppConfigRequirement;
  /**
   * Users known before the first record to carry TOTP devices (from a side file), so that an app
   * without `mfa_enabled` is named before anything is staged.
   */
  readonly totpUsersKnown?: number;
  close?(): void;
}

export interface SourceDefinition {
  readonly name: string;
  readonly flags: readonly SourceFlag[];
  /**
   * Whether `--password-hook` applies: users whose export carries no hash go in pending the app's
   * password-migration hook instead of being refused.
   */
  readonly pendsWithoutHash?: boolean;
  /** The layout to read the export as, given what it looks like; a usage error for one this source cannot read. */
  layout(detected: Layout, exportPath: string): Layout;
  /** Why the first record shows the file is not this source's export, if it does. */
  checkFirst?(value: unknown, layout: Layout): string | undefined;
  open(exportPath: string, layout: Layout, settings: SourceSettings): Promise<OpenedSource>;
}

/** `open` for a source without side files: its converter, given the settings. */
export function convertingAlone(
  convert: (value: unknown, options: ConvertOptions) => Conversion,
): SourceDefinition['open'] {
  return async (_exportPath, _layout, settings) => ({
    convert: (value) => convert(value, settings),
    inputDigests: [],
    notes: [],
  });
}

/** Whether a record (object) has the key: what `checkFirst` looks for. */
export function hasKey(value: unknown, key: string): boolean {
  return typeof value === 'object' && value !== null && key in value;
}

/** A flag's value that names a file; undefined when the flag was not given. */
export function fileSetting(settings: SourceSettings, name: string): string | undefined {
  const value = settings[name];
  return typeof value === 'string' ? value : undefined;
}
