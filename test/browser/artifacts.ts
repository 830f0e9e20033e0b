/**
 * Screenshots kept by the browser tests (docs/web-protocol.md "Browser tests"): written to
 * `test-artifacts/screenshots/` at the repository root (git-ignored; CI uploads the folder),
 * or under `SKILLGATE_TEST_ARTIFACTS` when set.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';

/** The folder screenshots go to. */
export const SCREENSHOT_DIR = join(
  process.env.SKILLGATE_TEST_ARTIFACTS ?? resolve(import.meta.dirname, '..', '..', 'test-artifacts'),
  'screenshots',
);

/** Save a full-page screenshot of `page` as `<name>.png`. @returns its path */
export async function keepScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
