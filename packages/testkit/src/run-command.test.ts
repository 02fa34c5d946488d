import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { findExecutable, runCommand, tailLines } from './run-command.js';
import { makeTempDir } from './temp-dir.js';

test('runCommand collects stdout, stderr, the exit code and each stdout line', async () => {
  const lines: string[] = [];
  const result = await runCommand('sh', ['-c', 'printf "a\\nb\\nc"; echo oops >&2; exit 3'], {
    onLine: (line) => lines.push(line),
  });
  assert.equal(result.code, 3);
  assert.equal(result.stdout, 'a\nb\nc');
  assert.equal(result.stderr, 'oops\n');
  assert.deepEqual(lines, ['a', 'b', 'c']);
  assert.equal(result.spawnError, undefined);
});

test('runCommand passes input, cwd and env', async () => {
  const temp = await makeTempDir();
  try {
    const result = await runCommand('sh', ['-c', 'cat; pwd; echo "$GREETING"'], {
      cwd: temp.path,
      env: { PATH: '/usr/bin:/bin', GREETING: 'hello' },
      input: 'piped\n',
    });
    assert.equal(result.stdout, `piped\n${temp.path}\nhello\n`);
  } finally {
    await temp.cleanup();
  }
});

test('runCommand reports a missing binary as a spawn error, not a rejection', async () => {
  const result = await runCommand('sluice-no-such-binary', []);
  assert.equal(result.code, -1);
  assert.equal(result.spawnError?.code, 'ENOENT');
});

test('findExecutable returns the first executable file in the given dirs', async () => {
  const temp = await makeTempDir();
  try {
    const [a, b] = [join(temp.path, 'a'), join(temp.path, 'b')];
    await mkdir(a);
    await mkdir(b);
    await writeFile(join(a, 'tool'), 'not executable', { mode: 0o644 });
    await writeFile(join(b, 'tool'), '#!/bin/sh\n', { mode: 0o755 });
    await mkdir(join(a, 'dir-tool'));
    assert.equal(findExecutable('tool', [a, b]), join(b, 'tool'));
    assert.equal(findExecutable('dir-tool', [a, b]), undefined);
    assert.equal(findExecutable('absent', [a, b]), undefined);
  } finally {
    await temp.cleanup();
  }
});

test('tailLines keeps the last non-empty lines', () => {
  assert.equal(tailLines('1\n2\n\n3\n4\n', 2), '3\n4');
  assert.equal(tailLines('', 3), '');
});
