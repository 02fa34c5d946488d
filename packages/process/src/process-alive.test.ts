import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { processAlive } from './process-alive.js';

test('this process is alive; a child is alive until it has exited', async () => {
  assert.equal(processAlive(process.pid), true);
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
  const pid = child.pid ?? -1;
  assert.equal(processAlive(pid), true);
  child.kill('SIGKILL');
  await once(child, 'exit');
  assert.equal(processAlive(pid), false);
});

test('a pid no process has is not alive', () => {
  assert.equal(processAlive(2 ** 22 + 1), false);
});
