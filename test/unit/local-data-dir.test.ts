/**
 * The local runtime's data directory is private (bin/local/data-dir.ts): created 0700, and an
 * existing one — with its files — tightened to owner-only, with a list of what changed.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ensurePrivateDir, makeDataDirPrivate, octal } from '../../bin/local/data-dir.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});
function root(): string {
  const dir = mkdtempSync(join(tmpdir(), 'auth-core-data-dir-'));
  roots.push(dir);
  return dir;
}
const modeOf = (path: string) => octal(statSync(path).mode);

describe('the data directory', () => {
  it('is created owner-only (0700), parents included', () => {
    const dir = join(root(), 'a', 'b', '.data');
    expect(ensurePrivateDir(dir)).toEqual([]);
    expect(modeOf(dir)).toBe('0700');
  });

  it('an existing one with loose modes is tightened, files and folders in it too, and each change reported', () => {
    const dir = join(root(), '.data');
    mkdirSync(join(dir, 'nested'), { recursive: true });
    writeFileSync(join(dir, 'shared-local-instance.db'), 'db');
    writeFileSync(join(dir, 'credentials.key'), 'k');
    writeFileSync(join(dir, 'nested', 'x'), 'x');
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'nested'), 0o775);
    chmodSync(join(dir, 'shared-local-instance.db'), 0o644);
    chmodSync(join(dir, 'credentials.key'), 0o600);
    chmodSync(join(dir, 'nested', 'x'), 0o666);

    const changed = makeDataDirPrivate(dir);

    expect(changed.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: '.', was: '0755' },
      { name: 'nested', was: '0775' },
      { name: 'nested/x', was: '0666' },
      { name: 'shared-local-instance.db', was: '0644' },
    ]);
    expect(modeOf(dir)).toBe('0700');
    expect(modeOf(join(dir, 'nested'))).toBe('0700');
    expect(modeOf(join(dir, 'shared-local-instance.db'))).toBe('0600');
    expect(modeOf(join(dir, 'credentials.key'))).toBe('0600');
    expect(modeOf(join(dir, 'nested', 'x'))).toBe('0600');
    // A second start has nothing left to tighten.
    expect(makeDataDirPrivate(dir)).toEqual([]);
  });

  it('never loosens: stricter modes stay as they are', () => {
    const dir = join(root(), '.data');
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, 'read-only'), 'r');
    chmodSync(join(dir, 'read-only'), 0o400);
    expect(makeDataDirPrivate(dir)).toEqual([]);
    expect(modeOf(join(dir, 'read-only'))).toBe('0400');
  });

  it('leaves symbolic links and what they point to alone', () => {
    const base = root();
    const outside = join(base, 'outside.txt');
    writeFileSync(outside, 'o');
    chmodSync(outside, 0o644);
    const dir = join(base, '.data');
    mkdirSync(dir, { mode: 0o700 });
    symlinkSync(outside, join(dir, 'link'));
    expect(makeDataDirPrivate(dir)).toEqual([]);
    expect(modeOf(outside)).toBe('0644');
  });

  it('property: whatever the modes were, afterwards nothing in it is readable, writable or searchable by others', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0o700, max: 0o777 }),
        fc.integer({ min: 0o600, max: 0o777 }),
        (dirMode, fileMode) => {
          const dir = join(root(), '.data');
          mkdirSync(dir);
          writeFileSync(join(dir, 'f'), 'f');
          chmodSync(join(dir, 'f'), fileMode);
          chmodSync(dir, dirMode);
          const changed = makeDataDirPrivate(dir);
          expect(statSync(dir).mode & 0o077).toBe(0);
          expect(statSync(join(dir, 'f')).mode & 0o177).toBe(0);
          expect(changed.length).toBe((dirMode & 0o077 ? 1 : 0) + (fileMode & 0o177 ? 1 : 0));
        },
      ),
      { numRuns: 40 },
    );
  });
});
