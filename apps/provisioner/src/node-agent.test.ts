import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { test } from 'node:test';
import { diskUsage } from './node-agent.js';

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
