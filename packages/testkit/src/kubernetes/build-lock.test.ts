import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '../temp-dir.js';
import { acquireLock } from './build-lock.js';
import { processAlive } from '@sluice/process';

test('a second caller waits until the first releases the lock', async () => {
  const temp = await makeTempDir();
  try {
    const path = join(temp.path, '.lock');
    const first = await acquireLock(path);
    assert.equal(await readFile(path, 'utf8'), `${process.pid}\n`);
    let acquired = false;
    let waited: (pid: number) => void = () => undefined;
    const waitedFor = new Promise<number>((resolve) => (waited = resolve));
    const second = acquireLock(path, { pollMs: 20, onWait: (pid) => waited(pid) }).then((lock) => {
      acquired = true;
      return lock;
    });
    // It says whom it waits for, and waits: still not acquired a few polls later.
    assert.equal(await waitedFor, process.pid);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(acquired, false);
    await first.release();
    await (await second).release();
    assert.equal(acquired, true);
  } finally {
    await temp.cleanup();
  }
});

test('a lock left by a process that died is taken over', async () => {
  const temp = await makeTempDir();
  try {
    const child = spawn('true');
    const pid = child.pid ?? 0;
    await new Promise((resolve) => child.on('exit', resolve));
    assert.equal(processAlive(pid), false);
    const path = join(temp.path, '.lock');
    await writeFile(path, `${pid}\n`);
    const lock = await acquireLock(path, { timeoutMs: 1000 });
    assert.equal(await readFile(path, 'utf8'), `${process.pid}\n`);
    await lock.release();
  } finally {
    await temp.cleanup();
  }
});

test('a caller that waits too long is told which process holds the lock', async () => {
  const temp = await makeTempDir();
  try {
    const path = join(temp.path, '.lock');
    const first = await acquireLock(path);
    await assert.rejects(acquireLock(path, { timeoutMs: 50, pollMs: 10 }), {
      name: 'UnavailableError',
      code: 'SLUICE_TEST_KUBE_BUILD_FAILED',
      message: `Waited 0s for process ${process.pid}, which still holds the build lock ${path}`,
    });
    await first.release();
  } finally {
    await temp.cleanup();
  }
});
