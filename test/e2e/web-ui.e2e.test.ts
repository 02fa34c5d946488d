/**
 * The web UI in Debian's Chromium against `sluice up` (the control plane with its local runtime
 * and agent, builds running on the Docker engine): sign in with the admin's password to an
 * HttpOnly session cookie, nothing kept in the browser's storage; a pipeline with
 * a typo shows its problem on its line, fixed it runs, its log streams while it runs and the
 * final state shows without a reload; a running build is cancelled and a pending one approved
 * from the keyboard; a build of a pipeline with `stages:` shows each stage's heading with its
 * steps under it; a pipeline and a project are deleted once the page has said what goes (Keep
 * deletes nothing); a runtime environment is edited, its diff shown, and set as the default; a
 * Kubernetes cluster is added from a kubeconfig (a refused one shows why), its token never on
 * the page, and deleted; an admin adds a user, changes her role, makes and revokes a token and
 * filters the audit log, and that user, a viewer, is offered none of the admin pages and refused
 * them; an API token signs in too, exchanged for a session.
 * Every page is saved at desktop and phone width (apps/web/test-output/screenshots/).
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createClient } from '@sluice/protocol';
import type { SluiceClient } from '@sluice/protocol';
import {
  ensureDockerEngine,
  ensureTestImages,
  freeRestartablePort,
  makeTempDir,
} from '@sluice/testkit';
import type { TempDir } from '@sluice/testkit';
import type { Browser, Page } from 'playwright-core';
import { seededDataDir, startSluice, waitForUp } from './cli-harness.js';
import type { RunningCli } from './cli-harness.js';
import { createPipelines } from './control-plane-seed.js';
import {
  focusedText,
  headerStatus,
  browserStorage,
  launchChromium,
  screenshots,
  waitForStatus,
} from './browser.js';

const PASSWORD = 'web ui password 1';

const PROJECT = `web${process.pid}`;
const TICKS = `version: "1.0"
steps:
  ticks:
    image: sluice/busybox:1
    commands:
      - printf '\\033[32mgreen start\\033[0m\\n'
      - for i in $(seq 1 25); do echo "tick $i"; sleep 0.2; done
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
    image: sluice/busybox:1
    commands:
      - echo approved
`;

const STAGED = `version: "1.0"
stages: [compile, check]
steps:
  build:
    stage: compile
    image: sluice/busybox:1
    commands: [echo built]
  unit:
    stage: check
    image: sluice/busybox:1
    commands: [echo unit]
  lint:
    stage: check
    image: sluice/busybox:1
    commands: [echo lint]
`;

let cli: RunningCli;
let temp: TempDir;
let browser: Browser;
let page: Page;
let url = '';
let token = '';
let admin: SluiceClient;
let ids: Record<string, string> = {};
let loads = 0;
let port = 0;

before(async () => {
  browser = await launchChromium();
  await ensureDockerEngine();
  await ensureTestImages();
  temp = await makeTempDir('sluice-web-');
  // A fixed port, so that the restart below comes back where the page is: one outside the
  // ephemeral range, which other test files' servers and connections do not take meanwhile.
  port = await freeRestartablePort();
  cli = startSluice(['up', '--port', String(port), '--data-dir', await seededDataDir(temp.path)]);
  ({ url, token } = await waitForUp(cli));
  admin = createClient({ baseUrl: url, token });
  ids = await createPipelines(admin, PROJECT, { slow: SLOW, gated: GATED, staged: STAGED });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('load', () => loads++);
});

after(async () => {
  await browser?.close();
  if (cli?.child.exitCode === null) cli.child.kill('SIGTERM');
  await cli?.done;
  await temp?.cleanup();
  for (const name of ['hello', 'slow', 'gated', 'staged'])
    spawnSync('docker', ['volume', 'rm', '-f', `sluice-volume-${PROJECT}-${name}`]);
});

test('signs in with a password to an HttpOnly session cookie; no token in the browser storage', async () => {
  await admin.call('updateUser', { params: { name: 'admin' }, body: { password: PASSWORD } });
  await page.goto(url);
  await screenshots(page, 'sign-in');
  await page.fill('#user', 'admin');
  await page.fill('#password', 'not the password');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByText('Wrong user name or password').waitFor();
  await page.fill('#password', PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Builds' }).waitFor();
  assert.ok(!page.url().includes(PASSWORD));
  assert.deepEqual(await browserStorage(page), { local: {}, session: {} });
  const [cookie, ...others] = await page.context().cookies();
  assert.equal(others.length, 0);
  assert.equal(cookie?.name, 'sluice_session');
  assert.equal(cookie?.httpOnly, true);
  assert.equal(cookie?.sameSite, 'Lax');
  assert.equal(cookie?.path, '/');
  // Plain http on localhost: not Secure, or Chromium would not send it back (docs/access.md).
  assert.equal(cookie?.secure, false);
  assert.equal(await page.evaluate<string>('document.cookie'), '', 'a script reads no cookie');
  await screenshots(page, 'builds');
});

test('a typo shows on its line; fixed, the pipeline runs and its log streams live', async () => {
  await page.getByRole('link', { name: 'Pipelines' }).click();
  await page.getByRole('link', { name: 'New pipeline' }).click();
  await page.getByLabel('Project').fill(PROJECT);
  await page.getByLabel('Name').fill('hello');
  const editor = page.getByLabel('Pipeline YAML');
  await editor.fill(TICKS.replace('    image:', '    imgae:'));
  // The server's answer marks the step's line (3) in the editor's gutter and lists it.
  await page.locator('.cm-gutter-lint .cm-lint-marker-error').waitFor();
  const problem = await page.locator('.issues li[data-line="3"]').innerText();
  assert.match(problem, /^Line 3:\d+ — .*image/);
  await screenshots(page, 'pipeline-new');
  await editor.fill(TICKS);
  await page.getByText('No problems found.').waitFor();
  await page.getByRole('button', { name: 'Create pipeline' }).click();
  await page.getByRole('heading', { name: `${PROJECT}/hello` }).waitFor();
  const variable = page.getByRole('form', { name: 'Set a variable' });
  await variable.getByLabel('Name').fill('DEPLOY_KEY');
  await variable.getByLabel('Secret').check();
  await variable.getByLabel('Value').fill('never-shown-4711');
  await variable.getByRole('button', { name: 'Set' }).click();
  await page.getByText('•••••• (secret)').waitFor();
  assert.ok(!(await page.content()).includes('never-shown-4711'), 'a secret is write-only');
  const triggers = page.getByRole('form', { name: 'Add a trigger' });
  await triggers.getByRole('button', { name: 'Add trigger' }).click();
  const shownOnce = await page.getByRole('status').filter({ hasText: 'Secret:' }).innerText();
  assert.match(shownOnce, /URL: http:\/\/127\.0\.0\.1:\d+\/api\/webhooks\/\S+/);
  const secret = /Secret: ([0-9a-f]{64})/.exec(shownOnce)?.[1] ?? '';
  assert.ok(secret, shownOnce);
  await triggers.getByLabel('Kind').selectOption('cron');
  await triggers.getByLabel('Schedule (UTC)').fill('*/5 * * * *');
  await triggers.getByRole('button', { name: 'Add trigger' }).click();
  await page.getByRole('cell', { name: /^\*\/5 \* \* \* \* UTC · next / }).waitFor();
  assert.ok(!(await page.content()).includes(secret), 'the webhook secret is shown once');
  await page.getByRole('cell', { name: 'git (github)' }).waitFor();
  await screenshots(page, 'pipeline');
  await page.getByLabel('Branch').fill('main');
  await page.getByRole('button', { name: 'Run' }).click();
  await page.waitForURL(/\/builds\/[^/]+$/);

  const log = page.getByRole('log');
  await log.getByText('tick 3', { exact: true }).waitFor({ timeout: 120_000 });
  const whileStreaming = await headerStatus(page);
  assert.equal(whileStreaming, 'running', 'lines arrive while the build runs');
  assert.equal(await page.locator('.log-view .ansi-fg-2').first().innerText(), 'green start');
  await waitForStatus(page, 'success');
  await log.getByText('tick 25', { exact: true }).waitFor();
  await page.getByText(/complete · \d+ lines/).waitFor();
  const steps = await page.getByRole('table', { name: 'Steps' }).innerText();
  assert.match(steps, /ticks\s+success/);
  const timing = await page.getByRole('table', { name: 'Timing waterfall' }).innerText();
  assert.match(timing, /First step → finished\s+\d/);
  // The local runtime records the build's Docker volume: new for a pipeline's first build.
  assert.match(await page.locator('.facts').innerText(), /Cache\s+miss · volume sluice-volume-/);
  assert.equal(loads, 1, 'the page was never reloaded');
  await screenshots(page, 'build');
});

test('the builds list shows a new build without a reload', async () => {
  await page.getByRole('link', { name: 'Builds' }).first().click();
  await page.locator('tr[data-build]').first().waitFor();
  const build = await admin.call('createBuild', { params: { pipelineId: ids.gated ?? '' } });
  await page.locator(`tr[data-build="${build.id}"]`).waitFor({ timeout: 15_000 });
  await page.getByLabel('Status').selectOption('success');
  await page.waitForURL(/status=success/);
  await page.locator(`tr[data-build="${build.id}"]`).waitFor({ state: 'detached' });
  await admin.call('cancelBuild', { params: { buildId: build.id } });
  assert.equal(loads, 1);
});

test('a running build is cancelled from its page', async () => {
  const build = await admin.call('createBuild', { params: { pipelineId: ids.slow ?? '' } });
  await page.goto(`${url}/builds/${build.id}`);
  await page.getByRole('log').getByText('sleeping').waitFor({ timeout: 120_000 });
  await page.getByRole('button', { name: 'Cancel' }).click();
  await waitForStatus(page, 'terminated');
  const final = await admin.call('getBuild', { params: { buildId: build.id } });
  assert.equal(final.status, 'terminated');
});

test("the build page's timeline shows each stage's heading with its steps under it", async () => {
  const build = await admin.call('createBuild', { params: { pipelineId: ids.staged ?? '' } });
  await page.goto(`${url}/builds/${build.id}`);
  await waitForStatus(page, 'success');
  // Where its definition came from: the pipeline's stored YAML (a repository's file at a commit).
  const facts = page.locator('dl.facts');
  assert.match(await facts.innerText(), /Definition\s+the pipeline's stored YAML/);
  const timeline = page.getByRole('table', { name: 'Steps' });
  // Each stage is a row group: its heading first, then its steps' rows, in the pipeline's order.
  const groups = [];
  for (const body of await timeline.locator('tbody').all()) {
    assert.equal(await body.locator('tr').first().getAttribute('class'), 'stage-row');
    groups.push(await body.locator('tr > th').allTextContents());
  }
  assert.deepEqual(groups, [
    ['compile', 'build'],
    ['check', 'unit', 'lint'],
  ]);
  const heading = timeline.locator('tbody[data-stage="check"] .stage-row th');
  assert.ok(await heading.isVisible(), 'the stage heading is shown');
  assert.equal(await heading.getAttribute('scope'), 'rowgroup');
  assert.match(
    await timeline.locator('tbody[data-stage="check"] tr[data-step="lint"]').innerText(),
    /lint\s+success/,
  );
  await screenshots(page, 'build-stages');
});

test('a pipeline, then a project, is deleted once the page has said what goes', async () => {
  // `staged` ran once (above): its page says what its delete takes, and Keep takes nothing.
  const [ran] = (await admin.call('listBuilds', { query: { pipelineId: ids.staged ?? '' } })).items;
  assert.ok(ran, 'the staged pipeline has a build');
  await page.goto(`${url}/pipelines/${ids.staged}`);
  const subject = `pipeline ${PROJECT}/staged`;
  await page.getByRole('button', { name: `Delete ${subject}` }).click();
  const question = page.getByRole('group', { name: `Confirm deleting ${subject}` });
  assert.match(
    await question.innerText(),
    new RegExp(
      `Delete ${subject} with 1 build and [\\d.]+ (B|KiB) of logs \\(\\d+ chunks?\\)\\? It cannot be undone`,
    ),
  );
  await screenshots(page, 'pipeline-delete');
  await question.getByRole('button', { name: 'Keep' }).click();
  await question.waitFor({ state: 'detached' });
  assert.equal((await admin.call('getBuild', { params: { buildId: ran.id } })).id, ran.id);

  await page.getByRole('button', { name: `Delete ${subject}` }).click();
  await question.getByRole('button', { name: 'Yes, delete' }).click();
  await page.getByRole('heading', { name: 'Pipelines', exact: true }).waitFor();
  await assert.rejects(admin.call('getBuild', { params: { buildId: ran.id } }), /does not exist/);
  await assert.rejects(
    admin.call('getPipeline', { params: { pipelineId: ids.staged ?? '' } }),
    /does not exist/,
  );

  // A project of its own, whose one pipeline never ran: its section goes from the list.
  const gone = `${PROJECT}-gone`;
  await createPipelines(admin, gone, { unused: STAGED });
  const section = page.getByRole('region', { name: `Project ${gone}` });
  await section.getByRole('button', { name: `Delete project ${gone}` }).click();
  assert.match(
    await section.getByRole('group', { name: `Confirm deleting project ${gone}` }).innerText(),
    new RegExp(`Delete project ${gone} with no builds\\? It cannot be undone`),
  );
  await section.getByRole('button', { name: 'Yes, delete' }).click();
  await section.waitFor({ state: 'detached' });
  assert.ok(!(await admin.call('listProjects')).items.some((p) => p.name === gone));
});

test('a pending build is approved with the keyboard alone', async () => {
  const build = await admin.call('createBuild', { params: { pipelineId: ids.gated ?? '' } });
  await page.goto(`${url}/builds/${build.id}`);
  await waitForStatus(page, 'pending-approval');
  await page.getByRole('button', { name: 'Approve' }).waitFor();
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    if ((await focusedText(page)) === 'Approve') break;
  }
  assert.equal(await focusedText(page), 'Approve');
  await page.keyboard.press('Enter');
  await waitForStatus(page, 'success');
  const final = await admin.call('getBuild', { params: { buildId: build.id } });
  assert.ok(final.steps.some((s) => s.name === 'gate' && s.answeredBy === 'admin'));
});

test('a runtime environment is edited, its diff shown, and made the default', async () => {
  const local = await admin.call('getRuntimeEnvironment', { params: { name: 'local' } });
  await admin.call('createRuntimeEnvironment', { body: { name: 'spare', spec: local.spec } });
  await page.getByRole('link', { name: 'Runtime environments' }).click();
  const row = page.locator('tr', { has: page.getByRole('link', { name: 'local' }) });
  assert.match(await row.innerText(), /default/);
  await screenshots(page, 'runtimes');
  await page.getByRole('link', { name: 'spare' }).click();
  const spec = page.getByLabel('Spec YAML');
  await spec.fill(`${await spec.inputValue()}proxy:\n  httpProxy: http://proxy.internal:3128\n`);
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('version 2').waitFor();
  const diff = await page.getByLabel('Diff').innerText();
  assert.match(diff, /^\+ proxy:$/m);
  assert.match(diff, /^\+ {3}httpProxy: http:\/\/proxy\.internal:3128$/m);
  await page.getByRole('button', { name: 'Set as default' }).click();
  await page.locator('.page-head .badge', { hasText: 'default' }).waitFor();
  const spare = await admin.call('getRuntimeEnvironment', { params: { name: 'spare' } });
  assert.equal(spare.isDefault, true);
  assert.equal(spare.spec.proxy !== undefined, true);
  await screenshots(page, 'runtime');
  await admin.call('setDefaultRuntimeEnvironment', { params: { name: 'local' } });
});

const CLUSTER_TOKEN = `web-cluster-token-${process.pid}-0123456789`;

/** A kubeconfig of one context, its CA inline (any base64 does: nothing connects) and a token. */
function kubeconfig(server: string): string {
  return `apiVersion: v1
kind: Config
clusters:
  - name: staging
    cluster:
      server: ${server}
      certificate-authority-data: ${Buffer.from('not a real CA').toString('base64')}
users:
  - name: deployer
    user:
      token: ${CLUSTER_TOKEN}
contexts:
  - name: deployer@staging
    context: { cluster: staging, user: deployer }
current-context: deployer@staging
`;
}

test('a cluster is added from a kubeconfig, its token never on the page, and deleted', async () => {
  await page.getByRole('link', { name: 'Clusters' }).click();
  await page.getByRole('heading', { name: 'Kubernetes clusters' }).waitFor();
  const empty = await page.locator('.empty').innerText();
  assert.match(empty, /sluice create cluster NAME --runtime R --namespace N/);
  assert.match(empty, /sluice create cluster NAME --kubeconfig-file F/);
  await screenshots(page, 'clusters-empty');

  const form = page.getByRole('form', { name: 'Add a cluster from a kubeconfig' });
  await form.getByLabel('Name', { exact: true }).fill('staging');
  const text = form.getByLabel('Kubeconfig', { exact: true });
  await text.fill(kubeconfig('http://staging.example.internal:6443'));
  await form.getByRole('button', { name: 'Add cluster' }).click();
  const refused = await form.getByRole('alert').innerText();
  assert.match(refused, /SLUICE_CLUSTER_KUBECONFIG_INVALID/);
  assert.match(refused, /http:\/\/staging\.example\.internal:6443.*https:\/\//);

  await text.fill(kubeconfig('https://staging.example.internal:6443'));
  await form.getByLabel('Namespace (optional)').fill('apps');
  await form.getByLabel('Projects (optional, comma-separated)').fill(PROJECT);
  await form.getByRole('button', { name: 'Add cluster' }).click();
  await form.getByRole('status').getByText('Cluster staging added.').waitFor();
  const row = page.locator('tr[data-cluster="staging"]');
  const shown = await row.innerText();
  assert.match(shown, /kubeconfig/);
  assert.match(shown, /https:\/\/staging\.example\.internal:6443/);
  assert.match(shown, /kubectl --context staging/);
  assert.match(shown, /cluster: staging/);
  assert.match(shown, new RegExp(`apps\\s+${PROJECT}`));
  assert.equal(await text.inputValue(), '', 'the kubeconfig is dropped from the form');
  assert.ok(!(await page.content()).includes(CLUSTER_TOKEN), 'the token is never on the page');
  await screenshots(page, 'clusters');

  await row.getByRole('button', { name: 'Delete cluster staging' }).click();
  await row.getByRole('group', { name: 'Confirm deleting cluster staging' }).waitFor();
  await row.getByRole('button', { name: 'Yes, delete' }).click();
  await row.waitFor({ state: 'detached' });
  await page.locator('.empty').waitFor();
  assert.deepEqual((await admin.call('listClusters')).items, []);
});

test('a lost connection shows, and goes once the server is back, without a reload', async () => {
  await page.getByRole('link', { name: 'Builds' }).first().click();
  await page.locator('tr[data-build]').first().waitFor();
  const before = loads;
  cli.child.kill('SIGTERM');
  await cli.done;
  await page.getByRole('status').getByText('Connection to the server lost').waitFor();
  // The same data directory: the server comes back with what it had.
  cli = startSluice(['up', '--port', String(port), '--data-dir', temp.path]);
  await waitForUp(cli);
  await page.getByText('Connection to the server lost').waitFor({ state: 'detached' });
  const build = await admin.call('createBuild', { params: { pipelineId: ids.gated ?? '' } });
  await page.locator(`tr[data-build="${build.id}"]`).waitFor({ timeout: 15_000 });
  await admin.call('cancelBuild', { params: { buildId: build.id } });
  assert.equal(loads, before, 'the page was never reloaded');
});

test('users, tokens and the audit log pages work for an admin and are refused for a viewer', async () => {
  await page.getByRole('link', { name: 'Users' }).click();
  await page.getByRole('heading', { name: 'Users' }).waitFor();
  await page.fill('#new-user', 'vic');
  await page.selectOption('#new-role', 'member');
  await page.fill('#new-password', PASSWORD);
  await page.getByRole('button', { name: 'Add user' }).click();
  await page.locator('tr[data-user="vic"]').waitFor();
  const patched = page.waitForResponse(
    (r) => r.url().endsWith('/api/v1/users/vic') && r.request().method() === 'PATCH',
  );
  await page.getByLabel('Role of vic').selectOption('viewer');
  assert.equal((await patched).status(), 200);
  const vic = (await admin.call('listUsers')).items.find((u) => u.name === 'vic');
  assert.equal(vic?.role, 'viewer');
  const granted = page.waitForResponse(
    (r) => r.url().endsWith('/api/v1/users/vic') && r.request().method() === 'PATCH',
  );
  await page.getByLabel('Projects vic may use (empty: all)').fill(PROJECT);
  await page.getByRole('button', { name: 'Save projects of vic' }).click();
  assert.equal((await granted).status(), 200);
  const grants = (await admin.call('listUsers')).items.find((u) => u.name === 'vic')?.projects;
  assert.deepEqual(grants, [PROJECT]);
  await screenshots(page, 'users');

  await page.getByRole('link', { name: 'Tokens' }).click();
  await page.fill('#token-name', 'made-in-ui');
  await page.selectOption('#token-scope', 'read');
  await page.selectOption('#token-expiry', '7 days');
  await page.getByRole('button', { name: 'Create token' }).click();
  const value = (await page.locator('code.token-value').innerText()).trim();
  assert.match(value, /^slu_u_/);
  assert.equal((await createClient({ baseUrl: url, token: value }).call('me')).user.name, 'admin');
  const listed = (await admin.call('listTokens')).items.find((t) => t.name === 'made-in-ui');
  assert.equal(listed?.scope, 'read');
  const days = (Date.parse(listed?.expiresAt ?? '') - Date.now()) / 86_400_000;
  assert.ok(days > 6.9 && days <= 7, `expires in ${days} days`);
  await page.getByRole('button', { name: 'Done' }).click();
  await page.getByRole('button', { name: 'Revoke made-in-ui' }).click();
  await page.locator('tr[data-token="made-in-ui"]').getByText('revoked').waitFor();
  assert.deepEqual(await browserStorage(page), { local: {}, session: {} });

  await page.getByRole('link', { name: 'Audit log' }).click();
  await page.fill('#audit-action', 'createUser');
  await page.getByRole('button', { name: 'Show events' }).click();
  await page.getByRole('table', { name: 'Events' }).getByText('/api/v1/users').first().waitFor();
  await screenshots(page, 'audit');

  // The viewer, in a browser of her own: no admin pages offered, and refused when asked.
  const context = await browser.newContext();
  try {
    const viewer = await context.newPage();
    await viewer.goto(url);
    await viewer.fill('#user', 'vic');
    await viewer.fill('#password', PASSWORD);
    await viewer.getByRole('button', { name: 'Sign in', exact: true }).click();
    await viewer.getByRole('heading', { name: 'Builds' }).waitFor();
    assert.equal(await viewer.getByRole('link', { name: 'Users' }).count(), 0);
    await viewer.goto(`${url}/users`);
    await viewer.getByText('needs the admin role').waitFor();
    await viewer.goto(`${url}/audit`);
    await viewer.getByText('needs the admin role').waitFor();
    // Removed meanwhile: her next request ends at the sign-in page, saying why.
    await admin.call('deleteUser', { params: { name: 'vic' } });
    await viewer.getByRole('link', { name: 'Builds' }).click();
    await viewer.getByText(/Your session has ended .*Sign in again/).waitFor();
    await viewer.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
  } finally {
    await context.close();
  }
});

test('agents show online with their runtimes; sign-out ends the session', async () => {
  await page.getByRole('link', { name: 'Agents' }).click();
  const row = page.locator('tr', { hasText: 'local' }).last();
  await row.getByText('online').waitFor();
  await screenshots(page, 'agents');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
  assert.deepEqual(await page.context().cookies(), []);
  // The API token signs in too, exchanged once for a session; still nothing in storage.
  await page.getByText('Use an API token instead').click();
  await page.fill('#token', token);
  await page.getByRole('button', { name: 'Sign in with the token' }).click();
  // Back on the page it was on (Agents), signed in.
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  assert.deepEqual(await browserStorage(page), { local: {}, session: {} });
});
