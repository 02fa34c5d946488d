import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkServerUrl, isExposed, readContexts, writeContexts } from './context-file.js';

const dir = () => mkdtempSync(join(tmpdir(), 'sluice-contexts-'));

test('a missing file has no contexts; written, it is 0600 in a 0700 directory and reads back', () => {
  const file = join(dir(), 'deep', 'config.yaml');
  assert.deepEqual(readContexts(file), { current: null, contexts: [] });
  const value = { current: 'a', contexts: [{ name: 'a', url: 'http://x:1', token: 'slu_u_t' }] };
  writeContexts(file, value);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(join(file, '..')).mode & 0o777, 0o700);
  assert.deepEqual(readContexts(file), value);
  assert.equal(isExposed(file), false);
});

test("the CLI's own directory is made 0700 when it existed 0755; a chosen one is left as it is", () => {
  const value = { current: 'a', contexts: [{ name: 'a', url: 'http://x:1', token: 'slu_u_t' }] };
  const own = join(dir(), 'sluice');
  mkdirSync(own, { mode: 0o755 });
  chmodSync(own, 0o755); // whatever the umask
  writeContexts(join(own, 'config.yaml'), value, { ownDirectory: true });
  assert.equal(statSync(own).mode & 0o777, 0o700);
  assert.equal(statSync(join(own, 'config.yaml')).mode & 0o777, 0o600);
  const chosen = dir();
  chmodSync(chosen, 0o755);
  writeContexts(join(chosen, 'ci-contexts.yaml'), value);
  assert.equal(statSync(chosen).mode & 0o777, 0o755);
  assert.equal(statSync(join(chosen, 'ci-contexts.yaml')).mode & 0o777, 0o600);
});

test('a broken file names the file and where; a readable-by-others file is noticed', () => {
  const file = join(dir(), 'config.yaml');
  writeFileSync(file, 'contexts:\n  - name: a\n    url: [unclosed\n');
  assert.throws(
    () => readContexts(file),
    (err: Error) => err.message.startsWith(`${file} (`),
  );
  writeFileSync(file, 'contexts:\n  - name: a\n    url: http://x\n', { mode: 0o644 });
  assert.throws(() => readContexts(file), /\(contexts\[0\]\.token\): expected a non-empty string/);
  assert.equal(isExposed(file), true);
  assert.match(readFileSync(file, 'utf8'), /name: a/);
});

test('server URLs must be http(s); a trailing slash is dropped', () => {
  assert.equal(checkServerUrl('https://ci.example.com/'), 'https://ci.example.com');
  assert.throws(() => checkServerUrl('ftp://x'), /not an http\(s\) URL/);
  assert.throws(() => checkServerUrl('not a url'), /is not a URL/);
});
