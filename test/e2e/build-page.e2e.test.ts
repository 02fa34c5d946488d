/**
 * The build page in Debian's Chromium against `sluice up` (builds running on the Docker engine):
 * one failed build of a step printing 25,100 lines, progress with carriage returns and bright
 * colours, a parallel block and a step that fails on stderr. Its log opens at the failed step's
 * section with the others closed; the parallel block's lines are labelled with their step; a
 * progress line shows as a terminal leaves it; `#L25000` shows line 25,000 on load; the page
 * fits a 390 px screen.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createClient } from '@sluice/protocol';
import type { Build, SluiceClient } from '@sluice/protocol';
import { ensureDockerEngine, ensureTestImages, makeTempDir } from '@sluice/testkit';
import type { TempDir } from '@sluice/testkit';
import type { Browser, Page } from 'playwright-core';
import { seededDataDir, startSluice, waitForUp } from './cli-harness.js';
import type { RunningCli } from './cli-harness.js';
import { createPipelines } from './control-plane-seed.js';
import { launchChromium, screenshots, waitForStatus } from './browser.js';

const PROJECT = `page${process.pid}`;
const MIXED = `version: "1.0"
steps:
  count:
    image: sluice/busybox:1
    commands:
      - seq 1 25100 | sed 's/^/line /'
      - printf 'fetch 10%%\\rfetch 60%%\\rfetch 100%% done\\n'
      - printf '\\033[102mbright bg\\033[0m \\033[93mbright fg\\033[0m\\n'
  checks:
    type: parallel
    steps:
      left:
        image: sluice/busybox:1
        commands: [echo from-left]
      right:
        image: sluice/busybox:1
        commands: [echo from-right]
  broken:
    image: sluice/busybox:1
    commands:
      - echo to-stderr >&2
      - exit 3
`;

let cli: RunningCli;
let temp: TempDir;
let browser: Browser;
let page: Page;
let url = '';
let admin: SluiceClient;
let build: Build;

before(async () => {
  browser = await launchChromium();
  await ensureDockerEngine();
  await ensureTestImages();
  temp = await makeTempDir('sluice-build-page-');
  cli = startSluice(['up', '--port', '0', '--data-dir', await seededDataDir(temp.path)]);
  const up = await waitForUp(cli);
  url = up.url;
  admin = createClient({ baseUrl: url, token: up.token });
  const ids = await createPipelines(admin, PROJECT, { mixed: MIXED });
  build = await admin.call('createBuild', { params: { pipelineId: ids.mixed ?? '' } });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(url);
  await page.fill('#token', up.token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Builds' }).waitFor();
});

after(async () => {
  await browser?.close();
  if (cli?.child.exitCode === null) cli.child.kill('SIGTERM');
  await cli?.done;
  await temp?.cleanup();
  spawnSync('docker', ['volume', 'rm', '-f', `sluice-volume-${PROJECT}-mixed`]);
});

const section = (name: string) => page.locator(`.log-section[data-section="${name}"] button`);

test('the log opens at the failed step, its stderr marked, the other sections closed', async () => {
  await page.goto(`${url}/builds/${build.id}`);
  await waitForStatus(page, 'failure', 180_000);
  await page.getByText(/complete · \d+ lines/).waitFor();
  assert.equal(await section('broken').getAttribute('aria-expanded'), 'true');
  assert.equal(await section('count').getAttribute('aria-expanded'), 'false');
  assert.equal(await section('checks').getAttribute('aria-expanded'), 'false');
  assert.match(await section('broken').innerText(), /broken\s+failure/);
  const stderr = page.locator('.log-line', { hasText: 'to-stderr' });
  assert.match((await stderr.getAttribute('class')) ?? '', /stream-stderr/);
  await screenshots(page, 'build-sections');
});

test("a parallel block's lines are labelled with their step", async () => {
  await section('checks').click();
  assert.match(await section('checks').innerText(), /parallel: left, right/);
  for (const side of ['left', 'right']) {
    const line = page.locator('.log-line', { hasText: `from-${side}` });
    assert.equal(await line.locator('.step-label').innerText(), side);
  }
});

test('a progress line shows as a terminal leaves it; bright colours are drawn', async () => {
  await page.getByLabel('Search the log').fill('fetch');
  const current = page.locator('.log-line.current .lt');
  await current.waitFor();
  // Its section (closed: the build failed elsewhere) opened to show it.
  assert.equal(await current.innerText(), 'fetch 100% done');
  await page.getByLabel('Search the log').fill('bright bg');
  const bright = page.locator('.log-line .ansi-bg-10');
  await bright.waitFor();
  const background = String(await bright.evaluate('(e) => getComputedStyle(e).backgroundColor'));
  assert.notEqual(background, 'rgba(0, 0, 0, 0)', 'the bright background has a colour');
});

test('#L25000 shows line 25,000 on load, not the end', async () => {
  await page.goto(`${url}/builds`);
  await page.goto(`${url}/builds/${build.id}#L25000`);
  const line = page.locator('.log-line.current[data-line="25000"]');
  await line.waitFor({ timeout: 60_000 });
  await page.getByText(/complete · \d+ lines/).waitFor();
  const box = await line.boundingBox();
  const view = await page.getByRole('log').boundingBox();
  assert.ok(box && view, 'the line and the log are laid out');
  assert.ok(box.y >= view.y && box.y + box.height <= view.y + view.height, 'the line is in sight');
  assert.match(await line.innerText(), /line \d+/);
});
