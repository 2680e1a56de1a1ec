/**
 * Token lifespans of an OAuth2 client, in the notation the reference's provider (Ory Hydra, a Go
 * program) reads and writes: Go's `time.Duration` text. Read: a sequence of decimal numbers, each
 * with an optional fraction and a unit (`ns`, `us` or `µs`, `ms`, `s`, `m`, `h`), with an optional
 * sign, or `0` — `90m`, `1.5h`, `1h0m0s`. Written back in Go's canonical form: `1h30m0s`, `1.5s`,
 * `300ms`, `0s`. Durations are counted in whole nanoseconds and must fit a signed 64-bit integer,
 * as in Go. Pure computation (BigInt), no I/O.
 */

const NS = 1n;
const US = 1000n * NS;
const MS = 1000n * US;
const SECOND = 1000n * MS;
const MINUTE = 60n * SECOND;
const HOUR = 60n * MINUTE;

const UNITS: Readonly<Record<string, bigint>> = {
  ns: NS,
  us: US,
  µs: US, // U+00B5 micro sign
  μs: US, // U+03BC Greek small letter mu
  ms: MS,
  s: SECOND,
  m: MINUTE,
  h: HOUR,
};

const MAX = (1n << 63n) - 1n;

/** Why a duration text was refused, worded as Go words it (quotes as the provider sends them: `'`). */
export class DurationError extends Error {}

const invalid = (text: string) => new DurationError(`time: invalid duration '${text}'`);

/** Go's `time.ParseDuration`: the number of nanoseconds a duration text stands for. */
export function parseGoDuration(text: string): bigint {
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') throw invalid(text);
  let total = 0n;
  while (rest !== '') {
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest);
    const whole = number?.[1] ?? '';
    const fraction = number?.[2];
    // A component needs digits before or after its point.
    if (whole === '' && (fraction === undefined || fraction === '')) throw invalid(text);
    rest = rest.slice(number?.[0].length ?? 0);
    const unitText = /^[^\d.]*/.exec(rest)?.[0] ?? '';
    if (unitText === '') throw new DurationError(`time: missing unit in duration '${text}'`);
    const unit = UNITS[unitText];
    if (unit === undefined) throw new DurationError(`time: unknown unit '${unitText}' in duration '${text}'`);
    rest = rest.slice(unitText.length);
    let value = BigInt(whole === '' ? '0' : whole) * unit;
    if (fraction) value += (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length);
    total += value;
    if (total > (negative ? MAX + 1n : MAX)) throw invalid(text);
  }
  return negative ? -total : total;
}

/** The digits of `value`'s fraction at `precision` places without trailing zeros (`.5`, or nothing), and the whole part. */
function fractionOf(value: bigint, precision: number): { text: string; whole: bigint } {
  const scale = 10n ** BigInt(precision);
  const digits = (value % scale).toString().padStart(precision, '0').replace(/0+$/, '');
  return { text: digits === '' ? '' : `.${digits}`, whole: value / scale };
}

/** Go's `Duration.String`: the canonical text of a number of nanoseconds. */
export function formatGoDuration(nanoseconds: bigint): string {
  const sign = nanoseconds < 0n ? '-' : '';
  const u = nanoseconds < 0n ? -nanoseconds : nanoseconds;
  if (u === 0n) return '0s';
  if (u < SECOND) {
    const [precision, unit] = u < US ? [0, 'ns'] : u < MS ? [3, 'µs'] : [6, 'ms'];
    const { text, whole } = fractionOf(u, precision);
    return `${sign}${whole}${text}${unit}`;
  }
  const { text, whole: seconds } = fractionOf(u, 9);
  let out = `${seconds % 60n}${text}s`;
  const minutes = seconds / 60n;
  if (minutes > 0n) {
    out = `${minutes % 60n}m${out}`;
    const hours = minutes / 60n;
    if (hours > 0n) out = `${hours}h${out}`;
  }
  return `${sign}${out}`;
}

/** A lifespan as the provider stores it: parsed, then written in canonical form. Throws {@link DurationError}. */
export function canonicalDuration(text: string): string {
  return formatGoDuration(parseGoDuration(text));
}
