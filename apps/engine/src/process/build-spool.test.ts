import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@sluice/log';
import { openBuildSpool } from './build-spool.js';
import { LogSpool } from './log-spool.js';

const root = await mkdtemp(join(tmpdir(), 'sluice-build-spool-'));
after(() => rm(root, { recursive: true, force: true }));
const at = '2024-01-01T00:00:00.000Z';
const line = (text: string) => [{ step: 's', stream: 'stdout' as const, line: text, at }];

/** A spool with two unacknowledged chunks, as an engine killed mid-build leaves it. */
async function leftBehind(dir: string): Promise<void> {
  const spool = await LogSpool.open(dir);
  spool.append(line('one'));
  spool.append(line('two'));
  await spool.flushed();
  await spool.close();
}

test("on a volume that serves one build, an engine removes earlier builds' spools, nothing else, and recovers its own", async () => {
  const volume = join(root, 'one-build');
  await leftBehind(join(volume, 'earlier-build'));
  await leftBehind(join(volume, 'this-build'));
  // What is not a spool stays, should the directory be one a person chose.
  await mkdir(join(volume, 'notes'));
  await writeFile(join(volume, 'notes', 'todo.txt'), 'keep me');
  await writeFile(join(volume, 'README'), 'keep me too');
  const spool = await openBuildSpool({ buildId: 'this-build', logNextSeq: 0 }, silentLogger, {
    root: volume,
    oneBuild: true,
  });
  assert.deepEqual((await readdir(volume)).sort(), ['README', 'notes', 'this-build']);
  assert.deepEqual(await readdir(join(volume, 'notes')), ['todo.txt']);
  assert.equal(spool.unacknowledged, 2, 'its own unacknowledged chunks are kept, to be resent');
  assert.deepEqual((await spool.read(1)).lines, line('two'));
  await spool.close();
});

test("in a directory that several builds share (the local runtime's), other builds' spools stay", async () => {
  const shared = join(root, 'shared');
  await leftBehind(join(shared, 'running-build'));
  const spool = await openBuildSpool({ buildId: 'this-build', logNextSeq: 5 }, silentLogger, {
    root: shared,
  });
  assert.deepEqual((await readdir(shared)).sort(), ['running-build', 'this-build']);
  assert.equal(spool.nextSeq, 5, "numbering starts at the control plane's next chunk");
  await spool.close();
});
