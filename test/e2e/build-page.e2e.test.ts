/**
 * The build page in Debian's Chromium against `sluice up` (builds running on the Docker engine):
 * one failed build of a step printing 25,100 lines, progress with carriage returns and bright
 * colours, a parallel block and a step that fails on stderr. Its log opens at the failed step's
 * section with the others closed; the parallel block's lines are labelled with their step; a
 * progress line shows as a terminal leaves it; `#L25000` and `#step-count` work on load; the
 * engine's lines styled apart, timestamps on a toggle and in the download; the page
 * fits a 390 px screen; "Restart from broken" says why it cannot; no axe violation. Who approved
 * and when, the steps' titles, the variables (the build's and its pipeline's, secrets as `****`)
 * and who ran it; a webhook build's commit message, author and link; a DAG pipeline's graph with
 * each step's status, a node opening its log; a typed step's group drawn in order and nested
 * parallel blocks as boxes; a restart's link naming its pipeline; cancel sent once.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from '@sluice/protocol';
import type { Build, SluiceClient } from '@sluice/protocol';
import { ensureDockerEngine, ensureTestImages, makeTempDir } from '@sluice/testkit';
import type { TempDir } from '@sluice/testkit';
import type { Browser, Page } from 'playwright-core';
import { REPO_ROOT, seededDataDir, startSluice, waitForUp } from './cli-harness.js';
import type { RunningCli } from './cli-harness.js';
import { createPipelines } from './control-plane-seed.js';
import {
  axeViolations,
  launchChromium,
  screenshots,
  signInWithToken,
  waitForStatus,
} from './browser.js';

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
const DAG = `version: "1.0"
mode: parallel
fail_fast: false
steps:
  setup:
    image: sluice/busybox:1
    commands: [echo setup]
  lint:
    image: sluice/busybox:1
    when:
      steps:
        - name: setup
    commands: [echo lint]
  test:
    image: sluice/busybox:1
    when:
      steps:
        - name: setup
    commands: [echo test-failed, exit 1]
  deploy:
    image: sluice/busybox:1
    when:
      steps:
        - name: lint
        - name: test
    commands: [echo deploy]
`;
const SLOW = `version: "1.0"
steps:
  wait:
    image: sluice/busybox:1
    commands:
      - echo sleeping
      - sleep 600
`;
const GATED = `version: "1.0"
steps:
  gate:
    type: pending-approval
    title: Ship it?
  after:
    title: Say it shipped
    image: sluice/busybox:1
    commands:
      - echo approved
`;

const GREET = `version: "1.0"
kind: step-type
metadata:
  name: acme/greet
  version: 1.0.0
spec:
  arguments:
    type: object
    additionalProperties: false
    properties:
      WHO: {type: string}
  steps:
    hello:
      image: sluice/busybox:1
      commands: ['echo hello [[ .Arguments.WHO ]]']
    bye:
      image: sluice/busybox:1
      commands: [echo bye]
`;
const NESTED = `version: "1.0"
steps:
  greet:
    type: acme/greet:1.0.0
    arguments: {WHO: graph}
  fanout:
    type: parallel
    steps:
      one:
        image: sluice/busybox:1
        commands: [echo one]
      inner:
        type: parallel
        steps:
          two:
            image: sluice/busybox:1
            commands: [echo two]
          three:
            image: sluice/busybox:1
            commands: [echo three]
  last:
    image: sluice/busybox:1
    commands: [echo last]
`;

let cli: RunningCli;
let temp: TempDir;
let browser: Browser;
let page: Page;
let url = '';
let admin: SluiceClient;
let build: Build;
let ids: Record<string, string> = {};

before(async () => {
  browser = await launchChromium();
  await ensureDockerEngine();
  await ensureTestImages();
  temp = await makeTempDir('sluice-build-page-');
  cli = startSluice(['up', '--port', '0', '--data-dir', await seededDataDir(temp.path)]);
  const up = await waitForUp(cli);
  url = up.url;
  admin = createClient({ baseUrl: url, token: up.token });
  await admin.call('putStepType', { body: { yaml: GREET } });
  const pipelines = { mixed: MIXED, gated: GATED, dag: DAG, slow: SLOW, nested: NESTED };
  ids = await createPipelines(admin, PROJECT, pipelines);
  build = await admin.call('createBuild', { params: { pipelineId: ids.mixed ?? '' } });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await signInWithToken(page, url, up.token);
});

after(async () => {
  await browser?.close();
  if (cli?.child.exitCode === null) cli.child.kill('SIGTERM');
  await cli?.done;
  await temp?.cleanup();
  for (const name of ['mixed', 'gated', 'dag', 'slow', 'nested'])
    spawnSync('docker', ['volume', 'rm', '-f', `sluice-volume-${PROJECT}-${name}`]);
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
  // The engine's own words, styled apart from the program's.
  const engine = page.locator('.log-line', { hasText: 'The step exited with code 3' }).first();
  assert.match((await engine.getAttribute('class')) ?? '', /stream-system/);
  await page.getByLabel('Timestamps').check();
  assert.match(await stderr.locator('.ts').innerText(), /^\d\d:\d\d:\d\d\.\d{3}$/);
  // The download then carries them too.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download', exact: true }).click(),
  ]);
  const text = readFileSync(await download.path(), 'utf8');
  assert.match(text, /^\d{4}-\d\d-\d\dT[\d:.]+Z \[broken\] to-stderr$/m);
  await page.getByLabel('Timestamps').uncheck();
  const restart = page.getByRole('button', { name: 'Restart from broken' });
  assert.ok(await restart.isDisabled(), 'the engine cannot start at a step');
  const why = await page.locator('#no-partial-restart').innerText();
  assert.match(why, /^Restart from broken is not possible: the engine runs a build from its first/);
  assert.match(why, /the 3 steps that succeeded run again\.$/, 'count, left and right');
  assert.deepEqual(await axeViolations(page), [], 'axe on a failed build with its log and graph');
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
  const background = await page.evaluate<string>(
    `getComputedStyle(document.querySelector('.log-line .ansi-bg-10')).backgroundColor`,
  );
  assert.equal(background, 'rgb(86, 211, 100)', 'bright green (102) is drawn');
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
  // A step's link opens its section on load, though the build failed in another.
  await page.goto(`${url}/builds`);
  await page.goto(`${url}/builds/${build.id}#step-count`);
  await page.getByText(/complete · \d+ lines/).waitFor();
  assert.equal(await section('count').getAttribute('aria-expanded'), 'true');
});

test("who approved, and when, with the steps' titles, the variables and who ran it", async () => {
  await admin.call('updatePipeline', {
    params: { pipelineId: ids.gated ?? '' },
    body: {
      variables: {
        REGION: { value: 'eu-1' },
        GREETING: { value: 'overridden-by-the-build' },
        DEPLOY_KEY: { value: 'pipeline-secret-4470', secret: true },
      },
    },
  });
  const gated = await admin.call('createBuild', {
    params: { pipelineId: ids.gated ?? '' },
    body: { variables: { GREETING: 'hi' }, secrets: { TOKEN: 'never-shown-5813' } },
  });
  await page.goto(`${url}/builds/${gated.id}`);
  await page.getByRole('button', { name: 'Approve' }).click();
  await waitForStatus(page, 'success');
  const gate = page.getByRole('table', { name: 'Steps' }).locator('tr[data-step="gate"]');
  await gate.getByText(/^Approved by admin at /).waitFor();
  assert.match(await gate.innerText(), /Ship it\?/);
  await section('after').getByText('Say it shipped').waitFor();
  const option = page.locator('.log-panel select option[value="after"]');
  assert.equal(await option.textContent(), 'after — Say it shipped', "the step picker's title");
  const facts = await page.locator('dl.facts').innerText();
  assert.match(facts, /Trigger\s+manual by admin/);
  assert.match(facts, /GREETING=hi/);
  assert.match(facts, /TOKEN=\*\*\*\*/);
  // The pipeline's variables the build does not override, after its own.
  assert.match(
    facts,
    /TOKEN=\*\*\*\*\s+DEPLOY_KEY=\*\*\*\* \(pipeline's, as set now\)\s+REGION=eu-1/,
  );
  assert.doesNotMatch(facts, /overridden-by-the-build/);
  const content = await page.content();
  for (const secret of ['never-shown-5813', 'pipeline-secret-4470'])
    assert.ok(!content.includes(secret), 'a secret is never shown');
});

test("a DAG pipeline's graph has its steps with their statuses; a node opens its log", async () => {
  const dag = await admin.call('createBuild', { params: { pipelineId: ids.dag ?? '' } });
  await page.goto(`${url}/builds/${dag.id}`);
  await waitForStatus(page, '(success|failure|error|terminated)', 180_000);
  const graph = page.getByRole('group', { name: 'Pipeline graph' });
  const final = await admin.call('getBuild', { params: { buildId: dag.id } });
  // fail_fast: false: the build succeeds though `test` failed.
  assert.equal(final.status, 'success', final.reason ?? '');
  const expected = Object.fromEntries(final.steps.map((s) => [s.name, s.status]));
  assert.equal(expected.test, 'failure');
  assert.equal(expected.lint, 'success');
  await graph.locator('[data-step="test"][data-status="failure"]').waitFor();
  // Strings run in the page: this file is compiled without the DOM's types.
  // Strings run in the page: this file is compiled without the DOM's types.
  const nodes = await page.evaluate<[string, string][]>(
    `[...document.querySelectorAll('.graph-node')].map((n) =>
      [n.getAttribute('data-step'), n.getAttribute('data-status')])`,
  );
  assert.deepEqual(Object.fromEntries(nodes), expected);
  const edges = await page.evaluate<string[]>(
    `[...document.querySelectorAll('.graph-edge')].map((e) => e.getAttribute('data-edge')).sort()`,
  );
  assert.deepEqual(edges, ['lint>deploy', 'setup>lint', 'setup>test', 'test>deploy']);
  await graph.locator('[data-step="lint"]').click();
  assert.equal(await section('lint').getAttribute('aria-expanded'), 'true');
  await page.locator('.log-line .lt', { hasText: /^lint$/ }).waitFor();
  // So does a step's name in the step table.
  assert.equal(await section('setup').getAttribute('aria-expanded'), 'false');
  await page.getByRole('table', { name: 'Steps' }).getByRole('link', { name: 'setup' }).click();
  assert.equal(await section('setup').getAttribute('aria-expanded'), 'true');
  await screenshots(page, 'build-graph');
});

test("a typed step's group is drawn in order, nested parallel blocks as boxes", async () => {
  const nested = await admin.call('createBuild', { params: { pipelineId: ids.nested ?? '' } });
  await page.goto(`${url}/builds/${nested.id}`);
  const graph = page.getByRole('group', { name: 'Pipeline graph' });
  await graph.locator('[data-step="greet_hello"]').waitFor();
  const blocks = await page.evaluate<string[]>(
    `[...document.querySelectorAll('.graph-block')].map((b) =>
      b.getAttribute('data-block') + ':' + b.getAttribute('data-runs'))`,
  );
  assert.deepEqual(blocks, ['greet:sequential', 'fanout:parallel', 'inner:parallel']);
  const edges = await page.evaluate<string[]>(
    `[...document.querySelectorAll('.graph-edge')].map((e) => e.getAttribute('data-edge')).sort()`,
  );
  assert.deepEqual(edges, [
    'greet_bye>one',
    'greet_bye>three',
    'greet_bye>two',
    'greet_hello>greet_bye',
    'one>last',
    'three>last',
    'two>last',
  ]);
  // The inner block's box is inside the outer one's.
  const box = (name: string) => graph.locator(`[data-block="${name}"] rect`).boundingBox();
  const [outer, inner] = [await box('fanout'), await box('inner')];
  assert.ok(outer && inner, 'both blocks are drawn');
  assert.ok(inner.x >= outer.x && inner.x + inner.width <= outer.x + outer.width);
  assert.ok(inner.y >= outer.y && inner.y + inner.height <= outer.y + outer.height);
  assert.ok(inner.width * inner.height < outer.width * outer.height, 'inner is the smaller');
  await screenshots(page, 'build-graph-nested');
  await admin.call('cancelBuild', { params: { buildId: nested.id } }).catch(() => {});
});

test("a restarted build's page links the build it restarts by its pipeline's name", async () => {
  const again = await admin.call('restartBuild', { params: { buildId: build.id } });
  await page.goto(`${url}/builds/${again.id}`);
  const link = page
    .locator('dl.facts')
    .getByRole('link', { name: `${PROJECT}/mixed #${build.number}` });
  await link.waitFor();
  assert.equal(await link.getAttribute('href'), `/builds/${build.id}`);
  await admin.call('cancelBuild', { params: { buildId: again.id } });
  await page.goto(`${url}/builds?pipelineId=${ids.mixed ?? ''}`);
  await page.getByRole('link', { name: `mixed #${again.number}` }).waitFor();
});

test("a pipeline's second local build shows its warm volume; the first, a new one", async () => {
  // The DAG pipeline ran once above, on a new Docker volume: this build finds it left.
  const again = await admin.call('createBuild', { params: { pipelineId: ids.dag ?? '' } });
  await page.goto(`${url}/builds/${again.id}`);
  await page
    .getByTestId('cache')
    .getByText(/^hit · volume sluice-volume-/)
    .waitFor();
  const [first] = (await admin.call('listBuilds', { query: { pipelineId: ids.dag ?? '' } })).items
    .filter((b) => b.id !== again.id)
    .map((b) => b.cache);
  assert.equal(first?.outcome, 'miss', JSON.stringify(first));
  const warm = await admin.call('getBuild', { params: { buildId: again.id } });
  assert.equal(warm.cache?.volume, first?.volume, 'the same volume, kept between builds');
  await waitForStatus(page, '(success|failure|error|terminated)', 180_000);
  // The one page the editor's tests cannot show (their server has no runtime environment).
  await page.goto(`${url}/runtimes/local`);
  await page.getByRole('heading', { level: 1, name: 'local' }).waitFor();
  assert.deepEqual(await axeViolations(page), [], 'axe on a runtime environment');
});

test("a webhook build shows its commit's message, author and link, and its sender", async () => {
  const secret = 'build-page-webhook-secret-0123456789';
  const trigger = await admin.call('createTrigger', {
    params: { pipelineId: ids.gated ?? '' },
    body: { kind: 'git', provider: 'github', repo: 'acme/widgets', events: ['push'], secret },
  });
  const body = readFileSync(
    join(REPO_ROOT, 'packages/triggers/test-data/webhooks/github-push.json'),
    'utf8',
  );
  const delivered = await fetch(`${url}/api/webhooks/${trigger.id}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'push',
      'x-github-delivery': `push-${process.pid}`,
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    },
    body,
  });
  const answer = (await delivered.json()) as { outcome?: string; buildId?: string };
  assert.equal(answer.outcome, 'build-created', JSON.stringify(answer));
  await page.goto(`${url}/builds/${answer.buildId ?? ''}`);
  const facts = page.locator('dl.facts');
  await facts.getByText('Add login form').waitFor();
  assert.match(await facts.innerText(), /Commit\s+0d1a26e6 Add login form by monalisa/);
  assert.match(await facts.innerText(), /Trigger\s+webhook by octocat/);
  assert.equal(
    await facts.getByRole('link', { name: '0d1a26e6' }).getAttribute('href'),
    'https://github.com/acme/widgets/commit/0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
  );
  // Its clone of github.com fails here, or it is still running: either way it ends now.
  await admin.call('cancelBuild', { params: { buildId: answer.buildId ?? '' } }).catch(() => {});
});

test('cancel is sent once and says so until the build stops', async () => {
  const slow = await admin.call('createBuild', { params: { pipelineId: ids.slow ?? '' } });
  await page.goto(`${url}/builds/${slow.id}`);
  await page.getByRole('log').getByText('sleeping').waitFor({ timeout: 120_000 });
  const cancel = page.locator('.page-head .actions button', { hasText: /^Cancel/ });
  await cancel.click();
  await page
    .getByRole('status')
    .getByText(/^Cancel sent/)
    .waitFor();
  assert.equal(await cancel.innerText(), 'Cancelling…');
  assert.ok(await cancel.isDisabled(), 'a second cancel cannot be sent');
  await waitForStatus(page, 'terminated');
});
