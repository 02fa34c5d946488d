import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKubeCredentials } from './kube-credentials.js';
import { createKubeTransport } from './kube-transport.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-kube-credentials-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const transport = createKubeTransport({
  server: 'https://127.0.0.1:1',
  tls: { rejectUnauthorized: true },
  maxSockets: 1,
});
after(() => transport.close());

test('a token file is read on first use and again once a minute has passed', async () => {
  const path = join(dir, 'token');
  writeFileSync(path, 'first\n');
  let now = 0;
  const credentials = createKubeCredentials({ tokenFile: path }, transport, () => now);
  assert.deepEqual(await credentials.headers(), { authorization: 'Bearer first' });
  writeFileSync(path, 'rotated');
  now = 59_000;
  assert.deepEqual(await credentials.headers(), { authorization: 'Bearer first' });
  now = 60_001;
  assert.deepEqual(await credentials.headers(), { authorization: 'Bearer rotated' });
});

test('a bearer token, basic auth and impersonation become headers', async () => {
  const token = createKubeCredentials({ token: 't', impersonate: 'bob' }, transport);
  assert.deepEqual(await token.headers(), { authorization: 'Bearer t', 'impersonate-user': 'bob' });
  const basic = createKubeCredentials({ username: 'u', password: 'p' }, transport);
  assert.deepEqual(await basic.headers(), {
    authorization: `Basic ${Buffer.from('u:p').toString('base64')}`,
  });
  assert.deepEqual(await createKubeCredentials({}, transport).headers(), {});
});

test('an unreadable token file fails the request, not the client', async () => {
  const credentials = createKubeCredentials({ tokenFile: join(dir, 'missing') }, transport);
  await assert.rejects(credentials.headers(), { code: 'ENOENT' });
});
