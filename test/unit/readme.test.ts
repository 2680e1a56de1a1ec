import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';
import { withConfigReference } from '../../bin/config-doc.js';

const readme = readFileSync(resolve(import.meta.dirname, '..', '..', 'README.md'), 'utf8');

it('documents every configuration key exactly as the registry validates it', () => {
  // Regenerate with `npx tsx bin/config-doc.ts` after changing functions/config/registry.ts.
  expect(withConfigReference(readme)).toBe(readme);
});
