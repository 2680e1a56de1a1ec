import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { CONFIG_PAGE, withConfigReference } from '../../bin/config-doc.js';

const page = readFileSync(CONFIG_PAGE, 'utf8');

it('documents every configuration key exactly as the registry validates it (docs/configuration.md)', () => {
  // Regenerate with `npx tsx bin/config-doc.ts` after changing functions/config/registry.ts.
  expect(withConfigReference(page)).toBe(page);
});
