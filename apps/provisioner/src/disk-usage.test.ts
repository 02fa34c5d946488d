import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { directoryBytes, diskUsage } from './disk-usage.js';

test("disk usage is df's Use% and IUse% (blocks reserved for root count as neither)", async () => {
  const dir = tmpdir();
  const df = execFileSync('df', ['--output=pcent,ipcent', dir], { encoding: 'utf8' })
    .trim()
    .split('\n')[1]!
    .trim()
    .split(/\s+/)
    .map((p) => Number(p.replace('%', '')) / 100);
  const usage = await diskUsage(dir);
  // df rounds up to a whole percent; files may come and go between the two reads.
  assert.ok(Math.abs(usage.space - df[0]!) <= 0.02, `${usage.space} vs df ${df[0]}`);
  assert.ok(Math.abs(usage.inodes - df[1]!) <= 0.02, `${usage.inodes} vs df ${df[1]}`);
});

test("a volume's size is du's: the allocated blocks of every file under it, links not followed", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-vol-size-'));
  try {
    assert.equal(await directoryBytes(join(dir, 'absent')), undefined, 'not made yet');
    await mkdir(join(dir, 'a/b'), { recursive: true });
    await writeFile(join(dir, 'a/b/layer'), Buffer.alloc(300_000, 1));
    await writeFile(join(dir, 'a/small'), 'x');
    await symlink('/usr', join(dir, 'a/link'));
    const du = Number(execFileSync('du', ['-s', '-B1', dir], { encoding: 'utf8' }).split('\t')[0]);
    const ours = await directoryBytes(dir);
    // du counts the top directory itself; we count what is under it.
    const top = (await stat(dir)).blocks * 512;
    assert.equal(ours, du - top);
    assert.ok((ours ?? 0) >= 300_000, `${ours} bytes`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
