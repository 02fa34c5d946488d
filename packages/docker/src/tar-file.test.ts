import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { firstFileFromTar, singleFileTar } from './tar-file.js';

function tarEntry(name: string, content: string, type = '0'): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0);
  header.write(content.length.toString(8).padStart(11, '0') + '\0', 124);
  header.write(type, 156);
  const body = Buffer.alloc(Math.ceil(content.length / 512) * 512);
  body.write(content);
  return Buffer.concat([header, body]);
}

test('returns the content of the first regular file, skipping directories', () => {
  const archive = Buffer.concat([
    tarEntry('dir/', '', '5'),
    tarEntry('dir/f', 'A=1\nB=2\n'),
    Buffer.alloc(1024),
  ]);
  assert.equal(firstFileFromTar(archive)?.toString(), 'A=1\nB=2\n');
});

test('an archive without a regular file gives undefined', () => {
  assert.equal(firstFileFromTar(Buffer.alloc(1024)), undefined);
  assert.equal(firstFileFromTar(Buffer.alloc(0)), undefined);
});

test('singleFileTar makes an archive that firstFileFromTar and tar(1) read back', () => {
  const content = Buffer.from('{"version":1}\n'.repeat(100));
  const archive = singleFileTar('state.json', content);
  assert.equal(archive.length % 512, 0);
  assert.deepEqual(firstFileFromTar(archive), content);
  const listed = spawnSync('tar', ['-tvf', '-'], { input: archive, encoding: 'utf8' });
  assert.equal(listed.status, 0, listed.stderr);
  assert.match(listed.stdout, /-rw-r--r-- .* 1400 .*state\.json/);
});
