import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConflictError, InputError } from '@sluice/errors';
import { makeTempDir } from '@sluice/testkit';
import { processAlive } from '@sluice/process';
import { LOCK_FILE, lockDataDir } from './data-dir-lock.js';

function isLocked(pid: number) {
  return (err: unknown): boolean => {
    assert.ok(err instanceof ConflictError);
    assert.equal(err.code, 'SLUICE_DB_LOCKED');
    assert.match(err.message, new RegExp(`in use by process ${pid}$`));
    assert.match(err.hint ?? '', /sluice\.lock/);
    return true;
  };
}

/** The pid of a process that has already exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  assert.ok(child.pid !== undefined && !processAlive(child.pid));
  return child.pid;
}

test('the lock creates the directory and holds our pid until released', async () => {
  const temp = await makeTempDir();
  try {
    const dataDir = join(temp.path, 'nested', 'data');
    const lock = await lockDataDir(dataDir);
    assert.equal(lock.path, join(dataDir, LOCK_FILE));
    assert.equal(await readFile(lock.path, 'utf8'), `${process.pid}\n`);
    await assert.rejects(lockDataDir(dataDir), isLocked(process.pid));
    await lock.release();
    await lock.release();
    assert.equal(existsSync(lock.path), false);
    const again = await lockDataDir(dataDir);
    await again.release();
  } finally {
    await temp.cleanup();
  }
});

test('a lock held by another live process is refused, naming its pid', async () => {
  const temp = await makeTempDir();
  const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
  try {
    const pid = sleeper.pid ?? 0;
    await writeFile(join(temp.path, LOCK_FILE), `${pid}\n`);
    await assert.rejects(lockDataDir(temp.path), isLocked(pid));
    assert.equal(await readFile(join(temp.path, LOCK_FILE), 'utf8'), `${pid}\n`);
  } finally {
    sleeper.kill('SIGKILL');
    await temp.cleanup();
  }
});

test('stale locks are taken over: dead pid, garbage, our own pid from an earlier life', async () => {
  const temp = await makeTempDir();
  try {
    const warnings: unknown[] = [];
    const logger = {
      warn: (_m: string, f?: unknown) => warnings.push(f),
      info: () => {},
      debug: () => {},
    };
    for (const content of [`${await deadPid()}\n`, '', 'not a pid', `${process.pid}\n`]) {
      await writeFile(join(temp.path, LOCK_FILE), content);
      const lock = await lockDataDir(temp.path, { logger });
      assert.equal(await readFile(lock.path, 'utf8'), `${process.pid}\n`);
      await lock.release();
    }
    assert.equal(warnings.length, 4);
  } finally {
    await temp.cleanup();
  }
});

test('release leaves a lock that is no longer ours', async () => {
  const temp = await makeTempDir();
  try {
    const lock = await lockDataDir(temp.path);
    await writeFile(lock.path, '999999999\n');
    await lock.release();
    assert.equal(await readFile(lock.path, 'utf8'), '999999999\n');
  } finally {
    await temp.cleanup();
  }
});

test('a data directory that cannot be created is SLUICE_DB_DATA_DIR_INVALID', async () => {
  const temp = await makeTempDir();
  try {
    await writeFile(join(temp.path, 'file'), '');
    await assert.rejects(lockDataDir(join(temp.path, 'file', 'data')), (err: unknown) => {
      assert.ok(err instanceof InputError);
      assert.equal(err.code, 'SLUICE_DB_DATA_DIR_INVALID');
      return true;
    });
  } finally {
    await temp.cleanup();
  }
});
