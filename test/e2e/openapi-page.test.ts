/**
 * The reference page (`npm start`, then /openapi.html) in a real headless browser: Chromium from
 * the system's packages, driven by playwright-core. The page lists every operation of the
 * description, and one of them opens to show its parameters and answers; nothing is fetched from
 * anywhere but the core, and the page's Content-Security-Policy blocks nothing it needs.
 * Skipped, with the reason, where no Chromium is installed (`.ci/run` installs one).
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_PATHS } from '../../bin/local/openapi.js';
import { LocalProcess, removeDir } from '../helpers/local-process.js';
import { openApiValidator } from '../helpers/openapi.js';

/** Where Debian's `chromium` package puts the browser; CHROMIUM_PATH overrides. */
const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(
  (p): p is string => p !== undefined && p !== '',
);
const executablePath = CANDIDATES.find((p) => existsSync(p));
if (!executablePath) {
  console.warn(
    `openapi-page.test.ts skipped: no Chromium at ${CANDIDATES.join(', ')} (install Debian's chromium package, or set CHROMIUM_PATH)`,
  );
}

describe.skipIf(!executablePath)('the reference page in headless Chromium', () => {
  const validator = openApiValidator();
  let core: LocalProcess;
  let browser: Browser;

  beforeAll(async () => {
    core = await LocalProcess.start({ args: ['--in-memory'] });
    await core.waitUntilReady();
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  });

  afterAll(async () => {
    await browser?.close();
    await core?.dispose();
    if (core) removeDir(core.dataDir);
  });

  it('lists every operation and opens one', async () => {
    const page = await browser.newPage();
    const outside: string[] = [];
    const refused: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(core.url) && !request.url().startsWith('data:')) outside.push(request.url());
    });
    page.on('console', (message) => {
      if (message.type() === 'error') refused.push(message.text());
    });
    await page.goto(`${core.url}${LOCAL_PATHS.page}`);

    // The page opens with its tags (groups) closed; each opened tag lists its operations. One tag
    // at a time: Swagger UI stops rendering a page with some hundred operations open at once.
    const { description } = openApiValidator();
    const operationsOf = (tag: string) =>
      validator.operations().filter((key) => {
        const [method, template] = key.split(' ') as [string, string];
        return description.paths[template][method.toLowerCase()].tags.includes(tag);
      }).length;
    const tags = page.locator('.opblock-tag');
    await expect.poll(() => tags.count(), { timeout: 60_000 }).toBe(description.tags.length);
    let listed = 0;
    for (const { name } of description.tags) {
      const tag = page.locator(`[id="operations-tag-${name.replace(/ /g, '_')}"]`);
      const operations = page.locator('.opblock');
      await tag.click();
      await expect.poll(() => operations.count(), { timeout: 30_000, message: name }).toBe(operationsOf(name));
      listed += operationsOf(name);
      await tag.click();
      await expect.poll(() => operations.count(), { timeout: 30_000 }).toBe(0);
    }
    expect(listed).toBe(validator.operations().length);

    await page.locator('[id="operations-tag-Email_and_password"]').click();
    await expect.poll(() => page.locator('.opblock-summary-path', { hasText: /^\/recipe\/signin$/ }).count()).toBe(1);
    const signIn = page.locator('#operations-Email_and_password-signin');
    await signIn.locator('.opblock-summary-control').click();
    const body = signIn.locator('.opblock-body');
    await body.waitFor({ state: 'visible', timeout: 30_000 });
    await expect.poll(() => body.locator('.responses-table .response').count()).toBeGreaterThan(3);
    expect(await body.textContent()).toContain('WRONG_CREDENTIALS_ERROR');

    expect(outside).toEqual([]);
    expect(refused).toEqual([]);
  });
});
