import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogSpool } from './log-spool.js';

const at = '2024-01-01T00:00:00.000Z';
const lines = (...texts: string[]) =>
  texts.map((line) => ({ step: 's', stream: 'stdout' as const, line, at }));
const root = await mkdtemp(join(tmpdir(), 'sluice-spool-'));
after(() => rm(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(root, `spool-${dirs++}`);

async function segmentsOf(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((n) => n.endsWith('.seg')).sort();
}

test('chunks get gapless seqs and are on disk before they are acknowledged', async () => {
  const dir = freshDir();
  const spool = await LogSpool.open(dir);
  assert.equal(spool.append(lines('a', 'b')), 0);
  assert.equal(spool.append(lines('c')), 1);
  await spool.flushed();
  const [segment] = await segmentsOf(dir);
  const records = (await readFile(join(dir, segment ?? ''), 'utf8')).trim().split('\n');
  assert.deepEqual(
    records.map((r) => (JSON.parse(r) as { seq: number }).seq),
    [0, 1],
  );
  assert.deepEqual((await spool.read(1)).lines, lines('c'));
  assert.equal(spool.unacknowledged, 2);
  assert.equal((await stat(dir)).mode & 0o777, 0o700);
  await spool.close();
});

test('segments whose every chunk is acknowledged are deleted; the newest one is kept for resends', async () => {
  const dir = freshDir();
  const spool = await LogSpool.open(dir, { segmentBytes: 200, memoryBytes: 0 });
  for (let i = 0; i < 12; i++) spool.append(lines(`line ${i} ${'x'.repeat(60)}`));
  await spool.flushed();
  const before = await segmentsOf(dir);
  assert.ok(before.length >= 4, `segments: ${before.join(', ')}`);
  await spool.acknowledge(7);
  const afterAck = await segmentsOf(dir);
  assert.ok(afterAck.length < before.length, `${before.join(', ')} → ${afterAck.join(', ')}`);
  // Every unacknowledged chunk is still readable, from disk (memory holds none).
  for (let seq = 8; seq < 12; seq++)
    assert.match((await spool.read(seq)).lines[0]?.line ?? '', new RegExp(`^line ${seq} `));
  assert.equal(spool.unacknowledged, 4);
  await spool.acknowledge(11);
  assert.equal(spool.unacknowledged, 0);
  await spool.remove();
  await assert.rejects(stat(dir), { code: 'ENOENT' });
  // The directory of spools stays while another build's spool is in it, and goes once empty.
  const parent = join(root, 'several');
  const [a, b] = [await LogSpool.open(join(parent, 'a')), await LogSpool.open(join(parent, 'b'))];
  await a.remove();
  assert.deepEqual(await readdir(parent), ['b']);
  await b.remove();
  await assert.rejects(stat(parent), { code: 'ENOENT' });
});

test('a spool reopened after its process died keeps every whole record and cuts a torn one', async () => {
  const dir = freshDir();
  const first = await LogSpool.open(dir, { segmentBytes: 150 });
  for (let i = 0; i < 6; i++) first.append(lines(`line ${i} ${'y'.repeat(40)}`));
  await first.close();
  const newest = (await segmentsOf(dir)).at(-1) ?? '';
  // The process was killed inside a write: half a record at the end.
  await appendFile(join(dir, newest), '{"seq":6,"lines":[{"step":"s","str');

  const second = await LogSpool.open(dir);
  assert.deepEqual(second.recovered, { from: 0, to: 6 });
  assert.equal(second.nextSeq, 6);
  for (let seq = 0; seq < 6; seq++)
    assert.match((await second.read(seq)).lines[0]?.line ?? '', new RegExp(`^line ${seq} `));
  assert.equal(second.append(lines('after')), 6);
  await second.close();
  const text = await readFile(join(dir, newest), 'utf8');
  assert.ok(text.endsWith('\n'), 'the torn record is still there');

  const third = await LogSpool.open(dir);
  assert.deepEqual(third.recovered, { from: 0, to: 7 });
  assert.deepEqual((await third.read(6)).lines, lines('after'));
  await third.close();
});

test('numbering starts at the control plane next seq when the spool holds nothing newer', async () => {
  const spool = await LogSpool.open(freshDir(), { startSeq: 42 });
  assert.deepEqual(spool.recovered, { from: 0, to: 0 });
  assert.equal(spool.append(lines('a')), 42);
  assert.equal(spool.firstSeq, 42);
  await spool.close();
});

test('a spool that cannot be written keeps its chunks in memory, none lost', async () => {
  const dir = freshDir();
  const spool = await LogSpool.open(dir);
  await rm(dir, { recursive: true }); // The disk goes away under it.
  spool.append(lines('a'));
  spool.append(lines('b'));
  await spool.flushed();
  assert.deepEqual((await spool.read(0)).lines, lines('a'));
  assert.deepEqual((await spool.read(1)).lines, lines('b'));
  await spool.close();
});
