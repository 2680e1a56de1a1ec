/**
 * A compact multimap from strings to numbers for millions of keys: each key is kept as a 64-bit
 * fingerprint (the first 8 bytes of its SHA-256) in an open-addressing table of typed arrays, 16 bytes a
 * slot, instead of a JavaScript Map of strings (~100 bytes an entry). Used for the password-hash index,
 * the duplicate check and the staged-id lookup, so memory stays small as exports grow.
 *
 * Two different keys share a fingerprint with probability ~n²/2⁶⁵; callers that must be exact check
 * the candidates they get back (`candidates` returns every value stored under the fingerprint).
 */
import { createHash } from 'node:crypto';

const EMPTY = 0n;

function fingerprint(key: string): bigint {
  const fp = createHash('sha256').update(key).digest().readBigUInt64BE(0);
  return fp === EMPTY ? 1n : fp;
}

export class FingerprintTable {
  private keys: BigUint64Array;
  private values: Float64Array;
  private used = 0;

  constructor(initialCapacity = 1024) {
    let capacity = 16;
    while (capacity < initialCapacity * 2) capacity *= 2;
    this.keys = new BigUint64Array(capacity);
    this.values = new Float64Array(capacity);
  }

  get size(): number {
    return this.used;
  }

  /** Adds `value` under `key` (a key may hold several values). */
  add(key: string, value: number): void {
    this.addFingerprint(fingerprint(key), value);
  }

  /** The first value stored under `key`, or undefined. */
  get(key: string): number | undefined {
    return this.candidates(key)[0];
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** Adds `value` under `key` unless the key is already there; returns the value already stored, if any. */
  addIfAbsent(key: string, value: number): number | undefined {
    const fp = fingerprint(key);
    const existing = this.lookup(fp);
    if (existing.length > 0) return existing[0];
    this.addFingerprint(fp, value);
    return undefined;
  }

  /** Every value stored under `key`'s fingerprint (in no particular order once the table has grown). */
  candidates(key: string): number[] {
    return this.lookup(fingerprint(key));
  }

  private lookup(fp: bigint): number[] {
    const mask = this.keys.length - 1;
    const found: number[] = [];
    for (let slot = Number(fp & BigInt(mask)); ; slot = (slot + 1) & mask) {
      const k = this.keys[slot];
      if (k === EMPTY) return found;
      if (k === fp) found.push(this.values[slot] as number);
    }
  }

  private addFingerprint(fp: bigint, value: number): void {
    if ((this.used + 1) * 2 > this.keys.length) this.grow();
    const mask = this.keys.length - 1;
    let slot = Number(fp & BigInt(mask));
    while (this.keys[slot] !== EMPTY) slot = (slot + 1) & mask;
    this.keys[slot] = fp;
    this.values[slot] = value;
    this.used += 1;
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldValues = this.values;
    this.keys = new BigUint64Array(oldKeys.length * 2);
    this.values = new Float64Array(oldKeys.length * 2);
    this.used = 0;
    for (let i = 0; i < oldKeys.length; i++) {
      const k = oldKeys[i] as bigint;
      if (k !== EMPTY) this.addFingerprint(k, oldValues[i] as number);
    }
  }
}
