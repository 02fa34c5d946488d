import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '../temp-dir.js';
import { findStaleClusters, loadRecord, newRecord, saveRecord } from './cluster-record.js';

async function deadPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid ?? 0;
}

test('a cluster whose owner died is stale; a live one and the logs dirs are not', async () => {
  const temp = await makeTempDir();
  try {
    const live = newRecord('aaaaaa', join(temp.path, 'sluice-kube-aaaaaa'));
    const dead = {
      ...newRecord('bbbbbb', join(temp.path, 'sluice-kube-bbbbbb')),
      ownerPid: await deadPid(),
    };
    for (const record of [live, dead]) {
      await mkdir(record.dir);
      await mkdir(record.logsDir);
      await saveRecord(record);
    }
    await mkdir(join(temp.path, 'unrelated'));
    const stale = await findStaleClusters(temp.path);
    assert.deepEqual(
      stale.map((s) => s.record?.id),
      ['bbbbbb'],
    );
    assert.deepEqual(await loadRecord(live.dir), live);
  } finally {
    await temp.cleanup();
  }
});

test('a cluster dir without a record is only stale once it is old', async () => {
  const temp = await makeTempDir();
  try {
    await mkdir(join(temp.path, 'sluice-kube-cccccc'));
    assert.deepEqual(await findStaleClusters(temp.path), []);
  } finally {
    await temp.cleanup();
  }
});

test('only directories named like a cluster are swept: a look-alike is never stale', async () => {
  const temp = await makeTempDir();
  try {
    // What the test command's background set-up once named its log directory: a sweep took it
    // for a cluster that died while starting and SIGKILLed the test runner, whose command line
    // names it.
    const old = new Date(Date.now() - 3600_000);
    for (const name of ['sluice-kube-setup.AbC123', 'sluice-kube-abcdef0', 'sluice-kube-dddddd']) {
      await mkdir(join(temp.path, name));
      await utimes(join(temp.path, name), old, old);
    }
    assert.deepEqual(
      (await findStaleClusters(temp.path)).map((s) => s.dir),
      [join(temp.path, 'sluice-kube-dddddd')],
    );
  } finally {
    await temp.cleanup();
  }
});
