/**
 * Debian's Chromium driven by playwright-core for the web UI's browser tests: launched with the
 * options that work here (no sandbox as root, no GPU, nothing fetched from the network), and
 * screenshots of each page at desktop and phone width under apps/web/test-output/.
 * @module
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { FINISHED_STATUSES } from '@sluice/protocol';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { REPO_ROOT } from './cli-harness.js';

export const CHROMIUM = '/usr/bin/chromium';
export const SCREENSHOTS = join(REPO_ROOT, 'apps/web/test-output/screenshots');
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is missing (${CHROMIUM}): install it with \`apt-get install -y chromium\` (bash scripts/test.sh does)`,
    );
  }
  const index = join(REPO_ROOT, 'apps/web/dist/index.html');
  if (!existsSync(index)) {
    throw new Error(`The web UI is not built (${index}): run \`npm run build\``);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Saves the page at desktop and phone width (`<name>-desktop.png`, `<name>-phone.png`) and
 * checks that at phone width nothing makes the page scroll sideways.
 */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  // Strings run in the page: this file is compiled without the DOM's types.
  const overflow = await page.evaluate<number>(
    'document.documentElement.scrollWidth - window.innerWidth',
  );
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize(DESKTOP);
  assert.ok(overflow <= 1, `${name} at phone width scrolls sideways by ${overflow}px`);
}

/** The text of the build page's status badge, beside its title. */
export function headerStatus(page: Page): Promise<string> {
  return page.locator('.page-head .badge').first().innerText();
}

/**
 * Waits until the build page's status badge reads `status`, a pattern (the page polls; no
 * reload).
 * @throws AssertionError at once when the build ends in another status, naming it.
 */
export async function waitForStatus(page: Page, status: string, timeout = 120_000) {
  const wanted = new RegExp(`^(${status})$`);
  const either = new RegExp(`^(${[status, ...FINISHED_STATUSES].join('|')})$`);
  const badge = page.locator('.page-head > .badge', { hasText: either });
  await badge.waitFor({ timeout });
  const shown = (await badge.first().innerText()).trim();
  assert.match(shown, wanted, `the build ended ${shown}, not ${status}`);
}

/** Everything the page keeps in localStorage and sessionStorage, as key-value pairs. */
export function browserStorage(
  page: Page,
): Promise<{ local: Record<string, string>; session: Record<string, string> }> {
  return page.evaluate(`({ local: { ...localStorage }, session: { ...sessionStorage } })`);
}

/** The text of the element that has the keyboard focus. */
export function focusedText(page: Page): Promise<string> {
  return page.evaluate<string>(`document.activeElement?.textContent ?? ''`);
}

/**
 * Signs the page in with an API token, as the sign-in page's "Use an API token instead" does
 * (the token is exchanged for a session cookie), and waits for the builds list.
 */
export async function signInWithToken(page: Page, url: string, token: string): Promise<void> {
  await page.goto(url);
  await page.getByText('Use an API token instead').click();
  await page.fill('#token', token);
  await page.getByRole('button', { name: 'Sign in with the token' }).click();
  await page.getByRole('heading', { name: 'Builds' }).waitFor();
}

// axe-core's own script, run in the page by the test (the page's CSP forbids loading it there).
let axeScript: string | undefined;

/** axe-core's violations on the page as it is (rule id and the first offending element). */
export async function axeViolations(page: Page): Promise<string[]> {
  axeScript ??= readFileSync(
    join(createRequire(import.meta.url).resolve('axe-core'), '..', 'axe.min.js'),
    'utf8',
  );
  await page.evaluate(axeScript);
  return page.evaluate<string[]>(`axe.run(document).then((result) =>
    result.violations.map((v) => v.id + ': ' + v.nodes[0].html))`);
}
