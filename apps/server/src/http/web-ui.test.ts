import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { silentLogger } from '@sluice/log';
import { createHttpApp } from './http-app.js';
import { registerWebUi } from './web-ui.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-web-'));
mkdirSync(join(dir, 'assets'));
writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Sluice</title>');
writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
const outside = join(tmpdir(), 'sluice-web-secret.txt');
writeFileSync(outside, 'outside');
const app = createHttpApp(silentLogger, { bodyTimeoutMs: 30_000 });
app.get('/api/v1/ping', () => ({ pong: true }));
registerWebUi(app, dir);
let base = '';

before(async () => {
  base = await app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { force: true });
});

test('/ is the UI, revalidated every time, with a content security policy', async () => {
  const response = await fetch(`${base}/`);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(response.headers.get('cache-control'), 'no-cache');
  assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'self'/);
  assert.match(await response.text(), /<title>Sluice<\/title>/);
});

test("a page's address is answered with the UI (the UI's router shows the page)", async () => {
  const response = await fetch(`${base}/builds/bld_123?status=running`);
  assert.equal(response.status, 200);
  assert.match(await response.text(), /<title>Sluice/);
});

test('hashed bundles are cached for a year; a missing one is a 404, not the page', async () => {
  const bundle = await fetch(`${base}/assets/index-abc123.js`);
  assert.equal(bundle.status, 200);
  assert.equal(bundle.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  assert.equal(bundle.headers.get('content-type'), 'text/javascript; charset=utf-8');
  const missing = await fetch(`${base}/assets/index-old.js`);
  assert.equal(missing.status, 404);
  assert.equal(
    ((await missing.json()) as { error: { code: string } }).error.code,
    'SLUICE_ROUTE_NOT_FOUND',
  );
});

test('the UI never shadows the API: its routes answer, an unknown one keeps the JSON 404', async () => {
  assert.deepEqual(await (await fetch(`${base}/api/v1/ping`)).json(), { pong: true });
  for (const path of ['/api/v1/nothing-here', '/api', '/api/']) {
    const response = await fetch(`${base}${path}`);
    assert.equal(response.status, 404, path);
    const body = (await response.json()) as { error: { code: string } };
    assert.equal(body.error.code, 'SLUICE_ROUTE_NOT_FOUND', path);
  }
});

test('no file outside the UI directory is served', async () => {
  for (const path of ['/..%2fsluice-web-secret.txt', '/%2e%2e/sluice-web-secret.txt']) {
    const response = await fetch(`${base}${path}`);
    assert.notEqual(await response.text(), 'outside', path);
  }
});

test('without a built UI, / says how to build it', async () => {
  const bare = createHttpApp(silentLogger, { bodyTimeoutMs: 30_000 });
  registerWebUi(bare, join(dir, 'missing'));
  const response = await bare.inject({ method: 'GET', url: '/' });
  assert.equal(response.statusCode, 404);
  const body = response.json<{ error: { code: string; hint: string } }>();
  assert.equal(body.error.code, 'SLUICE_WEB_UI_NOT_BUILT');
  assert.match(body.error.hint, /npm run build/);
});
