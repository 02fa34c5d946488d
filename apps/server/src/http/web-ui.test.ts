import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { request } from 'node:http';
import { silentLogger } from '@sluice/log';
import { createHttpApp } from './http-app.js';
import { pickEncoding, registerWebUi } from './web-ui.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-web-'));
mkdirSync(join(dir, 'assets'));
writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Sluice</title>');
writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
// As scripts/build-web.mjs leaves them: a bundle with its compressed copies, and an old map.
const BUNDLE = 'console.log("compressed");'.repeat(100);
writeFileSync(join(dir, 'assets', 'big-abc123.js'), BUNDLE);
writeFileSync(join(dir, 'assets', 'big-abc123.js.br'), brotliCompressSync(BUNDLE));
writeFileSync(join(dir, 'assets', 'big-abc123.js.gz'), gzipSync(BUNDLE));
writeFileSync(join(dir, 'assets', 'big-abc123.js.map'), '{"sources":["secret.ts"]}');
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

/** A GET with exactly these request headers (fetch would add and decode its own encoding). */
function rawGet(path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>(
    (resolve, reject) => {
      request(`${base}${path}`, { headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
      })
        .on('error', reject)
        .end();
    },
  );
}

test('a compressed bundle is sent as the request accepts it, varying by Accept-Encoding', async () => {
  const br = await rawGet('/assets/big-abc123.js', { 'accept-encoding': 'gzip, deflate, br' });
  assert.equal(br.headers['content-encoding'], 'br');
  assert.equal(br.headers.vary, 'Accept-Encoding');
  assert.equal(brotliDecompressSync(br.body).toString(), BUNDLE);
  const gz = await rawGet('/assets/big-abc123.js', { 'accept-encoding': 'gzip, br;q=0' });
  assert.equal(gz.headers['content-encoding'], 'gzip');
  assert.equal(gunzipSync(gz.body).toString(), BUNDLE);
  const plain = await rawGet('/assets/big-abc123.js', {});
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.equal(plain.headers.vary, 'Accept-Encoding');
  assert.equal(plain.body.toString(), BUNDLE);
});

test('a source map is never served, even one left in the directory', async () => {
  const map = await fetch(`${base}/assets/big-abc123.js.map`);
  assert.equal(map.status, 404);
  assert.doesNotMatch(await map.text(), /secret\.ts/);
});

test("Accept-Encoding: the first of the build's encodings the request allows", () => {
  assert.equal(pickEncoding('gzip, br', ['br', 'gzip']), 'br');
  assert.equal(pickEncoding('GZIP;q=0.5', ['br', 'gzip']), 'gzip');
  assert.equal(pickEncoding('br;q=0, gzip;q=0', ['br', 'gzip']), undefined);
  assert.equal(pickEncoding('*', ['gzip']), 'gzip');
  assert.equal(pickEncoding(undefined, ['br', 'gzip']), undefined);
  assert.equal(pickEncoding('br', []), undefined);
});
