/**
 * Engine processes with real child processes standing in for `sluice engine`: pid files written
 * before `start` resolves and found again by a second instance (a restarted agent), a stop that
 * reaches the whole process group and escalates to SIGKILL, and pid files that name a live
 * process which is not the build's engine never trusted.
 * @module
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { silentLogger } from '@sluice/log';
import { makeTempDir } from '@sluice/testkit';
import { processAlive } from '@sluice/process';
import { EngineProcesses } from './engine-processes.js';

const temp = await makeTempDir('sluice-engine-processes-');
after(() => temp.cleanup());

/**
 * Starts a grandchild in its process group and prints its pid, then waits; SIGTERM ends it
 * unless told to ignore it. The handler is in place before the line that tells the test to stop.
 */
const SCRIPT = `
if (process.env.IGNORE_TERM) process.on('SIGTERM', () => {});
else process.on('SIGTERM', () => process.exit(0));
const { spawn } = require('node:child_process');
const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
console.log('grandchild ' + child.pid);
setInterval(() => {}, 1000);
`;
const COMMAND = [process.execPath, '-e', SCRIPT];

function engines(dir = 'state'): EngineProcesses {
  return EngineProcesses.create({
    stateDir: join(temp.path, dir),
    command: COMMAND,
    logger: silentLogger,
  });
}

async function grandchildOf(processes: EngineProcesses, buildId: string): Promise<number> {
  for (;;) {
    const match = /grandchild (\d+)/.exec(readFileSync(processes.logPath(buildId), 'utf8'));
    if (match) return Number(match[1]);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('start writes the pid file before it resolves; a second instance finds the engine; stop ends its group', async () => {
  const first = engines();
  const file = await first.start('bld_a', process.env);
  assert.ok(existsSync(first.pidFilePath('bld_a')));
  assert.deepEqual(JSON.parse(readFileSync(first.pidFilePath('bld_a'), 'utf8')), file);
  const grandchild = await grandchildOf(first, 'bld_a');

  const restarted = engines();
  assert.equal(restarted.running('bld_a')?.pid, file.pid);
  assert.deepEqual(restarted.list(), [{ buildId: 'bld_a', pid: file.pid }]);
  assert.equal(await restarted.stop('bld_a', 10_000), 'stopped');
  assert.ok(!processAlive(file.pid), 'the engine survived');
  assert.ok(!processAlive(grandchild), "the engine's child survived");
  assert.ok(!existsSync(first.pidFilePath('bld_a')));
  assert.equal(await restarted.stop('bld_a', 10_000), 'not-running');
  first.release();
});

test('an engine that ignores SIGTERM is killed after the grace period', async () => {
  const processes = engines();
  const file = await processes.start('bld_b', { ...process.env, IGNORE_TERM: '1' });
  const grandchild = await grandchildOf(processes, 'bld_b');
  assert.equal(await processes.stop('bld_b', 300), 'killed');
  assert.ok(!processAlive(file.pid) && !processAlive(grandchild));
  assert.deepEqual(processes.list(), []);
});

test('a pid file naming a live process that is not the build engine is dropped, never signalled', async () => {
  const processes = engines('foreign');
  const other = await processes.start('bld_other', process.env);
  const write = (buildId: string, pid: number, command: string[]) =>
    writeFileSync(
      processes.pidFilePath(buildId),
      JSON.stringify({ pid, startedAt: new Date().toISOString(), command }),
    );
  write('bld_test', process.pid, COMMAND); // Alive, another command line.
  write('bld_reused', other.pid, COMMAND); // Alive, same command, another build.
  writeFileSync(processes.pidFilePath('bld_torn'), '{"pid":');
  assert.deepEqual(processes.list(), [{ buildId: 'bld_other', pid: other.pid }]);
  for (const buildId of ['bld_test', 'bld_reused', 'bld_torn'])
    assert.ok(!existsSync(processes.pidFilePath(buildId)), buildId);
  assert.equal(await processes.stop('bld_reused', 1000), 'not-running');
  assert.ok(processAlive(other.pid), 'another build engine was stopped');
  assert.equal(await processes.stop('bld_other', 10_000), 'stopped');
});

test('the exit of an engine this instance started removes its pid file', async () => {
  const processes = EngineProcesses.create({
    stateDir: join(temp.path, 'exit'),
    command: [process.execPath, '-e', 'setTimeout(() => {}, 50)'],
    logger: silentLogger,
  });
  await processes.start('bld_c', process.env);
  while (existsSync(processes.pidFilePath('bld_c')))
    await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(processes.list(), []);
});

test('logs and log spools of builds that no longer run go after the retention; fresh ones stay', () => {
  const stateDir = join(temp.path, 'retention');
  const processes = EngineProcesses.create({
    stateDir,
    command: COMMAND,
    logger: silentLogger,
    logRetentionMs: 3_600_000,
  });
  const old = new Date(Date.now() - 7_200_000);
  for (const buildId of ['bld_old', 'bld_new']) {
    writeFileSync(join(stateDir, `${buildId}.log`), 'output\n');
    mkdirSync(join(stateDir, 'log-spool', buildId), { recursive: true });
    writeFileSync(join(stateDir, 'log-spool', buildId, '000000000001.seg'), '{"seq":0}\n');
  }
  utimesSync(join(stateDir, 'bld_old.log'), old, old);
  utimesSync(join(stateDir, 'log-spool', 'bld_old'), old, old);
  assert.deepEqual(processes.list(), []);
  assert.ok(!existsSync(join(stateDir, 'bld_old.log')));
  assert.ok(!existsSync(join(stateDir, 'log-spool', 'bld_old')));
  assert.ok(existsSync(join(stateDir, 'bld_new.log')));
  assert.ok(existsSync(join(stateDir, 'log-spool', 'bld_new', '000000000001.seg')));
});

test('an engine whose agent died before writing its pid file is found and not started twice', async () => {
  // What start() spawns, without the pid file: the agent was killed in between.
  const orphan = spawn(COMMAND[0] ?? '', COMMAND.slice(1), {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, SLUICE_BUILD_ID: 'bld_orphan' },
  });
  await new Promise((resolve) => orphan.once('spawn', resolve));
  const pid = orphan.pid ?? 0;
  try {
    const restarted = engines('orphans');
    assert.equal(restarted.running('bld_other'), undefined, 'another build took the engine');
    assert.equal(restarted.running('bld_orphan')?.pid, pid);
    assert.equal(readPid(restarted.pidFilePath('bld_orphan')), pid, 'its pid file is written');
    assert.deepEqual(restarted.list(), [{ buildId: 'bld_orphan', pid }]);
    assert.equal(await restarted.stop('bld_orphan', 10_000), 'stopped');
    assert.ok(!processAlive(pid), 'the engine survived');
  } finally {
    if (processAlive(pid)) process.kill(-pid, 'SIGKILL');
  }
});

function readPid(path: string): number {
  return (JSON.parse(readFileSync(path, 'utf8')) as { pid: number }).pid;
}
