/**
 * The pipeline editor and the app-wide habits of the web UI, in Debian's Chromium against
 * `sluice server` (PGlite, no agent: nothing here runs a build): two people editing one
 * pipeline in two browser contexts see the conflict and keep their text; the 15 s refresh never
 * replaces unsaved text; a reload keeps the draft and leaving asks; an error on line 40 is
 * marked on line 40; every page loads with no console error, its own title and no axe
 * violation, and focus moves to its heading; a missing build's page says so and stops asking;
 * a pipeline's name taken twice is refused in words;
 * the bundle is sent compressed and its source map is not served.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { exportSecretKey, generateSecretKey } from '@sluice/pki';
import { createClient } from '@sluice/protocol';
import type { SluiceClient } from '@sluice/protocol';
import { makeTempDir } from '@sluice/testkit';
import type { TempDir } from '@sluice/testkit';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { kill, serverDatabase, startServer } from './cli-harness.js';
import type { RunningServer, ServerDatabase } from './cli-harness.js';
import { createPipelines } from './control-plane-seed.js';
import {
  axeViolations,
  browserStorage,
  focusedText,
  launchChromium,
  screenshots,
  signInWithToken,
} from './browser.js';

const TOKEN = 'slu_u_web-editor-token-0123456789';
const PROJECT = 'editor';
const YAML = `version: "1.0"
steps:
  hello:
    image: sluice/busybox:1
    commands:
      - echo hello
`;
/** 43 lines; step s10's key is line 40 and its `image` is misspelt, so line 40 has the error. */
function fortyLines(): string {
  let text = 'version: "1.0"\n# step s10 is on line 40\nsteps:\n';
  for (let i = 1; i <= 10; i++) {
    const n = String(i).padStart(2, '0');
    text += `  s${n}:\n    ${i === 10 ? 'imgae' : 'image'}: sluice/busybox:1\n    commands:\n      - echo ${n}\n`;
  }
  return text;
}

let temp: TempDir;
let database: ServerDatabase | undefined;
let server: RunningServer;
let browser: Browser;
let admin: SluiceClient;
let ids: Record<string, string> = {};

before(async () => {
  browser = await launchChromium();
  temp = await makeTempDir('sluice-web-editor-');
  database = await serverDatabase();
  server = await startServer(database.target, {
    SLUICE_BOOTSTRAP_TOKEN: TOKEN,
    SLUICE_SECRET_KEY: exportSecretKey(generateSecretKey()),
  });
  admin = createClient({ baseUrl: server.url, token: TOKEN });
  ids = await createPipelines(admin, PROJECT, { shared: YAML, drafted: YAML, other: YAML });
});

after(async () => {
  await browser?.close();
  if (server) await kill(server, 'SIGTERM');
  await database?.close();
  await temp?.cleanup();
});

/** A signed-in page in a context of its own (its own storage: another person's browser). */
async function signedIn(): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors: string[] = [];
  // Signed out, the page's first question (GET /api/v1/session) is answered 401, which Chromium
  // logs as a failed load: the errors counted are those of the signed-in pages.
  await signInWithToken(page, server.url, TOKEN);
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`${page.url()}: ${error.message}`));
  return { context, page, errors };
}

/** The editor's text, as CodeMirror holds it (its lines are rendered as `.cm-line`s). */
async function editorText(page: Page): Promise<string> {
  // The editor is a chunk of its own, loaded after the page's heading shows.
  await page.locator('.cm-content').waitFor();
  return page.evaluate<string>(
    `[...document.querySelectorAll('.cm-content .cm-line')].map((l) => l.textContent).join('\\n')`,
  );
}

/** Types `text` at the end of the editor's text, as a person does. */
async function typeAtEnd(page: Page, text: string): Promise<void> {
  await page.getByLabel('Pipeline YAML').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(text);
}

test('two people save one pipeline: the second sees both versions and keeps theirs', async () => {
  const a = await signedIn();
  const b = await signedIn();
  try {
    for (const { page } of [a, b]) {
      await page.goto(`${server.url}/pipelines/${ids.shared}`);
      await page.getByRole('heading', { name: `${PROJECT}/shared` }).waitFor();
    }
    await typeAtEnd(a.page, '# from A');
    await typeAtEnd(b.page, '# from B');
    await b.page.getByRole('button', { name: 'Save' }).click();
    await b.page.getByRole('status').getByText('Saved.').waitFor();

    // A's page refreshes (as its 15 s poll does; a tab shown again asks at once): the
    // pipeline changed elsewhere, and A's unsaved text stays.
    await a.page.evaluate(`document.dispatchEvent(new Event('visibilitychange'))`);
    const conflict = a.page.getByRole('region', { name: 'This pipeline changed elsewhere' });
    await conflict.waitFor();
    assert.match(await editorText(a.page), /# from A$/);
    assert.match(await conflict.getByLabel('Your version').innerText(), /# from A/);
    assert.match(await conflict.getByLabel('The saved version').innerText(), /# from B/);
    await screenshots(a.page, 'pipeline-conflict');

    // Saving anyway is refused by the server (409): nothing of B's is overwritten unasked.
    await conflict.getByRole('button', { name: 'Keep mine' }).click();
    await conflict.waitFor({ state: 'detached' });
    await b.page.reload();
    await typeAtEnd(b.page, '\n# B again');
    await b.page.getByRole('button', { name: 'Save' }).click();
    await b.page.getByRole('status').getByText('Saved.').waitFor();
    await a.page.getByRole('button', { name: 'Save' }).click();
    await conflict.waitFor();
    assert.match(
      (await admin.call('getPipeline', { params: { pipelineId: ids.shared ?? '' } })).yaml,
      /# B again$/,
    );

    await conflict.getByRole('button', { name: 'Keep mine' }).click();
    await a.page.getByRole('button', { name: 'Save' }).click();
    await a.page.getByRole('status').getByText('Saved.').waitFor();
    const saved = await admin.call('getPipeline', { params: { pipelineId: ids.shared ?? '' } });
    assert.match(saved.yaml, /# from A$/);
    assert.doesNotMatch(saved.yaml, /# from B/);
    assert.deepEqual(
      [...a.errors, ...b.errors].filter((e) => !e.includes('409')),
      [],
    );
  } finally {
    await a.context.close();
    await b.context.close();
  }
});

test('unsaved YAML survives a reload, leaving asks, and the saved version can be taken', async () => {
  const { context, page } = await signedIn();
  try {
    await page.goto(`${server.url}/pipelines/${ids.drafted}`);
    await typeAtEnd(page, '# draft');
    // A link inside the app asks; declined, the page stays.
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('heading', { name: `${PROJECT}/drafted` }).waitFor();
    // A reload asks with the browser's own question; accepted, the draft comes back.
    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.type());
      void dialog.accept();
    });
    await page.reload();
    await page.getByText('Your unsaved draft from this browser is restored.').waitFor();
    assert.deepEqual(asked, ['beforeunload']);
    assert.match(await editorText(page), /# draft$/);
    const kept = JSON.stringify(await browserStorage(page));
    assert.ok(!kept.includes(TOKEN), 'the draft never keeps the token');

    // Changed elsewhere meanwhile: taking the saved version drops the draft for it.
    const pipelineId = ids.drafted ?? '';
    const elsewhere = `${YAML}# elsewhere\n`;
    await admin.call('updatePipeline', { params: { pipelineId }, body: { yaml: elsewhere } });
    await page.evaluate(`document.dispatchEvent(new Event('visibilitychange'))`);
    await page.getByRole('button', { name: 'Take the saved version' }).click();
    await page.getByRole('region', { name: 'This pipeline changed elsewhere' }).waitFor({
      state: 'detached',
    });
    assert.equal(await editorText(page), elsewhere);
    assert.equal(
      await page.evaluate<string | null>(`localStorage.getItem('sluice.draft.${pipelineId}')`),
      null,
    );
  } finally {
    await context.close();
  }
});

test('an error on line 40 is marked on line 40, in the gutter and under its text', async () => {
  const { context, page } = await signedIn();
  try {
    await page.goto(`${server.url}/pipelines/new`);
    await page.getByLabel('Pipeline YAML').fill(fortyLines());
    const problem = page.locator('.issues li[data-line="40"]');
    await problem.waitFor();
    // The problem's button puts the cursor on its line and scrolls it into view.
    await problem.getByRole('button').click();
    const rows = await page.evaluate<{
      marker: number[];
      number: number;
      line: number;
      text: string;
    }>(`(() => {
      const top = (el) => Math.round(el.getBoundingClientRect().top);
      const numbers = [...document.querySelectorAll('.cm-lineNumbers .cm-gutterElement')];
      const forty = numbers.find((el) => el.textContent === '40');
      const markers = [...document.querySelectorAll('.cm-gutter-lint .cm-gutterElement')]
        .filter((el) => el.querySelector('.cm-lint-marker'));
      const underline = document.querySelector('.cm-lintRange-error');
      const line = underline.closest('.cm-line');
      return { marker: markers.map(top), number: top(forty), line: top(line), text: line.textContent };
    })()`);
    assert.ok(
      rows.marker.includes(rows.number),
      `a marker at ${rows.number}: ${rows.marker.join(', ')}`,
    );
    assert.equal(rows.line, rows.number, 'the underline is on the 40th row');
    assert.equal(rows.text, '  s10:');
    await screenshots(page, 'pipeline-new-40-lines');
    // The problem's button left the cursor in the editor; Tab leaves it (no keyboard trap).
    const inEditor = `document.activeElement?.closest('.cm-editor') !== null`;
    assert.equal(await page.evaluate<boolean>(inEditor), true);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate<boolean>(inEditor), false);
  } finally {
    await context.close();
  }
});

test("a pipeline's name taken twice is refused in words, not the database's", async () => {
  const { context, page } = await signedIn();
  try {
    await page.goto(`${server.url}/pipelines/new`);
    // Known as a project once the list has come (else the page would try to create it).
    await page.locator(`#projects option[value="${PROJECT}"]`).waitFor({ state: 'attached' });
    await page.getByLabel('Project').fill(PROJECT);
    await page.getByLabel('Name').fill('other');
    await page.locator('.cm-content').waitFor();
    await page.getByRole('button', { name: 'Create pipeline' }).click();
    const note = await page.getByRole('alert').innerText();
    assert.match(note, new RegExp(`^Pipeline ${PROJECT}/other already exists`));
    assert.doesNotMatch(note, /constraint|duplicate key|unique|pipelines_/i);
  } finally {
    await context.close();
  }
});

test('every page: no console error, its own title, focus on its heading, no axe violation', async () => {
  const signIn = await browser.newPage();
  await signIn.goto(server.url);
  await signIn.getByText('Use an API token instead').click();
  assert.deepEqual(await axeViolations(signIn), [], 'axe on the sign-in page');
  await signIn.close();
  const { context, page, errors } = await signedIn();
  try {
    const pages: [string, string][] = [
      ['Pipelines', 'Pipelines'],
      ['Runtime environments', 'Runtime environments'],
      ['Agents', 'Agents'],
      ['Clusters', 'Kubernetes clusters'],
      ['Tokens', 'API tokens'],
      ['Users', 'Users'],
      ['Audit log', 'Audit log'],
      ['Builds', 'Builds'],
    ];
    for (const [link, heading] of pages) {
      await page.getByRole('navigation').getByRole('link', { name: link }).click();
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      assert.equal(await focusedText(page), heading, `focus on the heading of ${link}`);
      assert.equal(await page.title(), `${heading} · Sluice`);
      assert.deepEqual(await axeViolations(page), [], `axe on ${link}`);
    }
    for (const [path, heading] of [
      [`/pipelines/${ids.other}`, `${PROJECT}/other`],
      ['/pipelines/new', 'New pipeline'],
    ] as const) {
      await page.goto(`${server.url}${path}`);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      await page.getByText('No problems found.').first().waitFor({ state: 'attached' });
      assert.equal(await page.title(), `${heading} · Sluice`);
      assert.deepEqual(await axeViolations(page), [], `axe on ${path}`);
    }
    assert.deepEqual(errors, [], 'no console error on any page');

    // A build that does not exist: the page says so, and stops asking: for it and for its log
    // (asked for together), one 404 each.
    const asked: string[] = [];
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith('/api/v1/builds/bld_missing')) asked.push(path);
    });
    await page.goto(`${server.url}/builds/bld_missing`);
    await page
      .getByRole('alert')
      .getByText(/bld_missing does not exist/)
      .waitFor();
    await page.evaluate(`document.dispatchEvent(new Event('visibilitychange'))`);
    await page.getByRole('alert').waitFor();
    assert.deepEqual(
      asked.sort(),
      ['/api/v1/builds/bld_missing', '/api/v1/builds/bld_missing/log/stream'],
      'a missing build and its log are asked for once each',
    );
    assert.equal(await page.title(), 'Not found · Sluice');
    assert.deepEqual(await axeViolations(page), []);
  } finally {
    await context.close();
  }
});

test('the bundle is sent compressed, its source map is not served, and there is an icon', async () => {
  const index = await (await fetch(server.url)).text();
  const script = /<script[^>]+src="([^"]+\.js)"/.exec(index)?.[1] ?? '';
  assert.ok(script, index);
  for (const encoding of ['br', 'gzip']) {
    const bundle = await fetch(`${server.url}${script}`, {
      headers: { 'accept-encoding': encoding },
    });
    assert.equal(bundle.headers.get('content-encoding'), encoding);
    assert.equal(bundle.headers.get('vary'), 'Accept-Encoding');
    assert.match(await bundle.text(), /createRoot|react/i, 'fetch decodes it to the bundle');
  }
  assert.equal((await fetch(`${server.url}${script}.map`)).status, 404);
  assert.match(index, /<link rel="icon" type="image\/svg\+xml" href="\/favicon.svg"/);
  const icon = await fetch(`${server.url}/favicon.svg`);
  assert.equal(icon.headers.get('content-type'), 'image/svg+xml');
});
