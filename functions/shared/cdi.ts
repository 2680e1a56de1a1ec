import { BadRequestError } from './errors.js';

/** CDI versions this core speaks, oldest first (the reference core's supported set). */
export const SUPPORTED_CDI_VERSIONS = [
  '2.7',
  '2.8',
  '2.9',
  '2.10',
  '2.11',
  '2.12',
  '2.13',
  '2.14',
  '2.15',
  '2.16',
  '2.17',
  '2.18',
  '2.19',
  '2.20',
  '2.21',
  '3.0',
  '3.1',
  '4.0',
  '5.0',
  '5.1',
  '5.2',
  '5.3',
  '5.4',
  '5.5',
  '5.6',
] as const;
const LATEST_CDI_VERSION = '5.6';

const VERSION_SYNTAX = /^[0-9]+(\.[0-9]+)*$/;

/** Numeric comparison of dotted versions: negative if a < b. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Versions listed by `/apiversion`: every supported version up to the app's maximum. */
export function versionsUpTo(max: string | undefined): string[] {
  const limit = max ?? LATEST_CDI_VERSION;
  return SUPPORTED_CDI_VERSIONS.filter((v) => compareVersions(v, limit) <= 0);
}

/**
 * Parses the `cdi-version` header with the reference core's rules and messages. A missing header
 * means the newest version the app allows.
 */
export function resolveCdiVersion(
  header: string | undefined,
  limits: { max?: string | undefined; min?: string | undefined },
): string {
  const max = limits.max ?? LATEST_CDI_VERSION;
  if (header === undefined) return max;
  const version = header.trim();
  if (!VERSION_SYNTAX.test(version)) throw new BadRequestError('cdi-version header is invalid');
  if (compareVersions(version, max) > 0) throw new BadRequestError(`cdi-version ${version} not supported`);
  if (limits.min !== undefined && compareVersions(version, limits.min) < 0) {
    throw new BadRequestError(`cdi-version ${version} is lower than the minimum allowed version ${limits.min}`);
  }
  if (!(SUPPORTED_CDI_VERSIONS as readonly string[]).includes(version)) {
    throw new BadRequestError(`cdi-version ${version} not supported`);
  }
  return version;
}

export function cdiAtLeast(version: string, floor: string): boolean {
  return compareVersions(version, floor) >= 0;
}
