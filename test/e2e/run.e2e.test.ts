import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDockerEngine, ensureTestImages, makeTempDir } from '@sluice/testkit';
import { REPO_ROOT, runSluice, startSluice } from './cli-harness.js';

const dir = await makeTempDir('sluice-e2e-run-');
const volumeKeys: string[] = [];

before(async () => {
  await ensureDockerEngine();
  await ensureTestImages();
});

after(async () => {
  for (const key of volumeKeys) spawnSync('docker', ['volume', 'rm', '-f', `sluice-volume-${key}`]);
  await dir.cleanup();
});

function pipelineFile(name: string, steps: string[]): string {
  const path = join(dir.path, name);
  writeFileSync(path, ['version: "1.0"', 'steps:', ...steps, ''].join('\n'));
  return path;
}

function uniqueKey(label: string): string {
  const key = `e2e-${label}-${process.pid}-${Date.now().toString(36)}`;
  volumeKeys.push(key);
  return key;
}

function docker(args: string[]): string {
  return execFileSync('docker', args, { encoding: 'utf8' }).trim();
}

test('the hello example runs, streams its logs, masks the exported token and exits 0', async () => {
  const result = await runSluice([
    'run',
    'examples/hello/codefresh.yml',
    '--branch',
    'main',
    '--volume-key',
    uniqueKey('hello'),
  ]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /━━ \[1\/3\] prepare · Prepare the workspace on main/);
  assert.match(result.stdout, /hello from step build, writing out\/app.txt/);
  assert.match(result.stdout, /the token is \*\*\*\* \(masked in the log\)/);
  assert.ok(!result.stdout.includes('not-for-your-eyes'), 'the masked export leaked');
  assert.match(result.stdout, /STEP\s+RESULT\s+DURATION/);
  assert.match(result.stdout, /Build \S+ succeeded in/);
});

test('a failing step exits 1, shows its exit code and skips what follows', async () => {
  const file = pipelineFile('fail.yml', [
    '  first:',
    '    image: sluice/busybox:1',
    '    commands: ["echo before", "exit 4"]',
    '  second:',
    '    image: sluice/busybox:1',
    '    commands: ["echo never"]',
  ]);
  const result = await runSluice(['run', file, '--volume-key', uniqueKey('fail')]);
  assert.equal(result.code, 1);
  assert.match(result.stdout, /✖ first failure in \S+ \(exit code 4\)/);
  assert.match(result.stdout, /second\s+skipped\s+-\s+step "first" failed/);
  assert.ok(!result.stdout.includes('echo never') && !/^\s+never$/m.test(result.stdout));
});

test('--secret and --var reach the steps and the secret is masked', async () => {
  const file = pipelineFile('vars.yml', [
    '  show:',
    '    image: sluice/busybox:1',
    '    commands: ["echo user=${{USER_NAME}} pass=$DB_PASSWORD"]',
  ]);
  const result = await runSluice([
    'run',
    file,
    '--var',
    'USER_NAME=ada',
    '--secret',
    'DB_PASSWORD=hunter2-secret',
    '--volume-key',
    uniqueKey('vars'),
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /user=ada pass=\*\*\*\*/);
  assert.ok(!(result.stdout + result.stderr).includes('hunter2-secret'));
});

test('an invalid pipeline exits 2 before anything runs', async () => {
  const file = pipelineFile('invalid.yml', [
    '  a:',
    '    image: sluice/busybox:1',
    '    timeout: 5 minutes',
  ]);
  const result = await runSluice(['run', file]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /invalid.yml:5:14: error: .*timeout.*duration/);
});

test('a missing image fails its step with a message naming the image', async () => {
  const file = pipelineFile('missing.yml', [
    '  a:',
    '    image: sluice/no-such-image:9',
    '    commands: ["true"]',
  ]);
  const result = await runSluice(['run', file, '--volume-key', uniqueKey('missing')]);
  assert.equal(result.code, 1);
  assert.match(
    result.stdout,
    /Image "sluice\/no-such-image:9" is not on the Docker engine and could not be pulled/,
  );
});

test('an unreachable Docker engine exits 69 with what to do', async () => {
  const file = pipelineFile('unreachable.yml', [
    '  a:',
    '    image: sluice/busybox:1',
    '    commands: ["true"]',
  ]);
  const result = await runSluice(['run', file, '--docker-host', `unix://${dir.path}/no.sock`]);
  assert.equal(result.code, 69);
  assert.match(result.stderr, /Cannot reach the Docker engine at unix:\/\/.*no\.sock/);
  assert.match(result.stderr, /hint: Start the Docker engine/);
});

test('SIGTERM during a long step stops it, exits 143 and leaves only the volume', async () => {
  const file = pipelineFile('long.yml', [
    '  long:',
    '    image: sluice/busybox:1',
    '    commands: ["echo started", "sleep 600"]',
    '  after:',
    '    image: sluice/busybox:1',
    '    commands: ["echo never"]',
  ]);
  // Pids come round again: a run killed before its clean-up may have left this pid's containers.
  const buildId = `e2e-term-${process.pid}-${Date.now().toString(36)}`;
  const key = uniqueKey('term');
  const run = startSluice(['run', file, '--build-id', buildId, '--volume-key', key]);
  await run.waitForOutput('started');
  run.child.kill('SIGTERM');
  const result = await run.done;
  assert.equal(result.code, 143, result.stdout + result.stderr);
  assert.match(result.stdout, /long\s+terminated/);
  assert.match(result.stdout, /Build e2e-term-\S+ was terminated/);
  assert.equal(docker(['ps', '-aq', '--filter', `label=io.sluice.build-id=${buildId}`]), '');
  assert.equal(docker(['network', 'ls', '-q', '--filter', `name=sluice-build-${buildId}`]), '');
  assert.equal(
    docker(['volume', 'ls', '-q', '--filter', `name=sluice-volume-${key}`]),
    `sluice-volume-${key}`,
  );
});

test('-o json prints one event per line, in order', async () => {
  const file = pipelineFile('json.yml', [
    '  a:',
    '    image: sluice/busybox:1',
    '    commands: ["echo one", "echo two >&2"]',
  ]);
  const result = await runSluice(['run', file, '-o', 'json', '--volume-key', uniqueKey('json')]);
  assert.equal(result.code, 0, result.stderr);
  const events = result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; line?: string; stream?: string });
  assert.deepEqual(
    events.map((e) => e.type),
    [
      'build-started',
      'volume-ready',
      'step-started',
      'step-log',
      'step-log',
      'step-finished',
      'build-finished',
    ],
  );
  // Docker copies stdout and stderr separately: order holds within a stream, not across them.
  const logs = events.filter((e) => e.type === 'step-log').map((e) => `${e.stream}:${e.line}`);
  assert.deepEqual(logs.sort(), ['stderr:two', 'stdout:one']);
});

test('npx sluice works from the repository root', () => {
  const out = spawnSync('npx', ['--no-install', 'sluice', '--help'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  assert.equal(out.status, 0, out.stderr);
  assert.match(out.stdout, /run \[options\] \[file\]/);
  assert.match(out.stdout, /validate \[options\] \[files\.\.\.\]/);
});
