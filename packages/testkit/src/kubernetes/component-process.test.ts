import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { UnavailableError } from '@sluice/errors';
import { makeTempDir } from '../temp-dir.js';
import { processAlive } from '@sluice/process';
import { startComponent, stopPid, waitUntil } from './component-process.js';

test('a component that dies while being waited on fails the wait with its step and log', async () => {
  const temp = await makeTempDir();
  try {
    const logPath = join(temp.path, 'broken.log');
    const broken = startComponent(
      'broken',
      ['sh', '-c', 'echo "flag provided but not defined"; exit 3'],
      { logPath },
    );
    const failure = await waitUntil(() => Promise.resolve(false), {
      step: 'broken /healthz',
      timeoutMs: 10_000,
      component: broken,
    }).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(failure instanceof UnavailableError);
    assert.equal(failure.code, 'SLUICE_TEST_KUBE_UNAVAILABLE');
    assert.equal(
      failure.message,
      `Starting the test cluster failed at step "broken /healthz: broken exited with code 3" (log: ${logPath})`,
    );
    assert.equal(failure.details?.['logTail'], 'flag provided but not defined');
  } finally {
    await temp.cleanup();
  }
});

test('a wait that times out says how long it waited', async () => {
  const failure = await waitUntil(() => Promise.resolve(false), {
    step: 'etcd /health',
    timeoutMs: 100,
    intervalMs: 20,
  }).then(
    () => undefined,
    (err: unknown) => err,
  );
  assert.ok(failure instanceof UnavailableError);
  assert.match(failure.message, /step "etcd \/health \(gave up after 0\.1 s\)"/);
});

test('stopPid stops a process by its PID, with SIGKILL if SIGTERM is ignored', async () => {
  const temp = await makeTempDir();
  try {
    const stubborn = startComponent(
      'stubborn',
      ['sh', '-c', 'trap "" TERM; while true; do sleep 0.1; done'],
      {
        logPath: join(temp.path, 'stubborn.log'),
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    await stopPid(stubborn.pid, 300);
    await waitUntil(() => Promise.resolve(stubborn.exit !== undefined), {
      step: 'exit',
      timeoutMs: 5000,
    });
    assert.equal(stubborn.exit?.signal, 'SIGKILL');
    assert.equal(processAlive(stubborn.pid), false);
  } finally {
    await temp.cleanup();
  }
});
