import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, symlink, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { DockerClient } from '@sluice/docker';
import { silentLogger } from '@sluice/log';
import { parsePipeline } from '@sluice/pipeline';
import { createCertificateAuthority, issueServerCertificate } from '@sluice/pki';
import { ensureTestImages, makeTempDir, runCommand, startTlsDockerd } from '@sluice/testkit';
import type { TempDir, TlsDockerd } from '@sluice/testkit';
import { DindCleaner } from './dind-cleaner.js';
import type { DindCleanerOptions } from './dind-cleaner.js';
import type { CleanerSettings } from './cleaner-settings.js';
import { CLEANER_HELPER_LABEL, DindVolume } from './dind-volume.js';
import { parseState } from './cleaner-state.js';
import { runBuild } from '../flow/run-build.js';
import type { BuildEvent } from '../base/build-events.js';

// The cleaner against a real, throwaway dockerd (never the machine's: other tests use its
// images) whose data root is a 64 MiB tmpfs of the test's own, so the thresholds are crossed for
// real. Time for the retain and clean periods comes from a clock the test moves.

const HOUR = 3_600_000;
const BUSYBOX = 'sluice/busybox:1';
const TMPFS_MIB = 64;

let temp: TempDir;
let dataRoot: string;
let dind: TlsDockerd | undefined;
let certs: { caPem: string; serverCertPem: string; serverKeyPem: string };
let now = Date.UTC(2030, 0, 1);

before(async () => {
  await ensureTestImages({ only: 'busybox' });
  temp = await makeTempDir('sluice-cleaner-');
  dataRoot = join(temp.path, 'data-root');
  await mkdir(dataRoot);
  const mounted = await runCommand('mount', [
    '-t',
    'tmpfs',
    '-o',
    `size=${TMPFS_MIB}m`,
    'tmpfs',
    dataRoot,
  ]);
  assert.equal(mounted.code, 0, `mount tmpfs: ${mounted.stderr}`);
  const ca = await createCertificateAuthority({ commonName: 'cleaner CA', validityDays: 1 });
  const server = await issueServerCertificate(ca, {
    commonName: 'dind',
    ipAddresses: ['127.0.0.1'],
    validityDays: 1,
  });
  certs = { caPem: ca.certPem, serverCertPem: server.certPem, serverKeyPem: server.keyPem };
  dind = await startTlsDockerd({ ...certs, dataRoot });
  await dind.loadImages([BUSYBOX]);
});

after(async () => {
  await dind?.stop();
  await runCommand('umount', [dataRoot]);
  await temp.cleanup();
});

function daemon(): TlsDockerd {
  assert.ok(dind !== undefined, 'the test dockerd did not start');
  return dind;
}

async function docker(...args: string[]): Promise<string> {
  const result = await runCommand('docker', ['-H', `unix://${daemon().socketPath}`, ...args]);
  assert.equal(result.code, 0, `docker ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

/** An image of its own (its id differs from every other): busybox plus `mib` MiB of noise. */
async function makeImage(name: string, mib: number): Promise<void> {
  const root = join(temp.path, `image-${name.replace(/\W/g, '-')}`);
  await mkdir(join(root, 'bin'), { recursive: true });
  await copyFile('/bin/busybox', join(root, 'bin', 'busybox'));
  for (const applet of ['sh', 'true', 'sleep']) await symlink('busybox', join(root, 'bin', applet));
  await writeFile(join(root, 'blob'), randomBytes(Math.max(1, mib * 1024 * 1024)));
  const sock = daemon().socketPath;
  const imported = await runCommand('bash', [
    '-c',
    `tar -C ${root} -c . | docker -H unix://${sock} import - ${name} && rm -rf ${root}`,
  ]);
  assert.equal(imported.code, 0, `import ${name}: ${imported.stderr}`);
}

async function images(): Promise<string[]> {
  return (await docker('image', 'ls', '--format', '{{.Repository}}:{{.Tag}}')).split('\n');
}

async function volumes(): Promise<string[]> {
  return (await docker('volume', 'ls', '--format', '{{.Name}}')).split('\n');
}

const RETAIN: CleanerSettings = {
  cleanPeriodSeconds: 100 * 24 * 3600,
  cleanPeriodBuilds: 1000,
  imageRetainSeconds: 4 * 3600,
  volumeRetainSeconds: 4 * 3600,
  diskUsageThreshold: 0.99,
  inodeUsageThreshold: 0.99,
  background: false,
};

function start(
  settings: Partial<CleanerSettings>,
  lines: string[],
  buildId: string,
  more: Partial<DindCleanerOptions> = {},
) {
  const options: DindCleanerOptions = {
    docker: DockerClient.create({ host: `unix://${daemon().socketPath}` }),
    settings: { ...RETAIN, ...settings },
    buildId,
    helperImage: BUSYBOX,
    protect: { images: [BUSYBOX], volumes: [] },
    buildLabels: { 'io.sluice.build': buildId },
    say: (line) => lines.push(line),
    log: silentLogger,
    clock: () => now,
    // The test daemon shares the test's clock, and a read reaching back before a session's start
    // would date an image made just before it at the moved clock.
    eventOverlapMs: 0,
    ...more,
  };
  return DindCleaner.start(options);
}

async function bookkeeping() {
  const client = DockerClient.create({ host: `unix://${daemon().socketPath}` });
  const volume = await DindVolume.open(client.housekeeping(), BUSYBOX);
  try {
    return parseState(await volume.readState(), 0).state;
  } finally {
    await volume.close();
  }
}

/** The cleaner's helper containers, running or not. */
async function helpers(): Promise<string[]> {
  const out = await docker('ps', '-aq', '--filter', `label=${CLEANER_HELPER_LABEL}`);
  return out === '' ? [] : out.split('\n');
}

test('retain periods: a deep clean removes the image and volume unused for longer, keeps those used within', async () => {
  await makeImage('old:1', 1);
  await makeImage('recent:1', 1);
  await docker('volume', 'create', 'old-volume');
  await docker('volume', 'create', 'recent-volume');
  const lines: string[] = [];
  const cleaner = await start({ cleanPeriodBuilds: 1 }, lines, 'b-retain');
  now += 3 * HOUR;
  await docker('run', '--rm', '-v', 'recent-volume:/v', 'recent:1', '/bin/true');
  await cleaner.pass();
  now += 2 * HOUR;
  const report = await cleaner.finish();

  assert.match(report.deepClean ?? '', /1 builds since the last clean/);
  const left = await images();
  assert.ok(!left.includes('old:1'), `old:1 (unused 5 h) was not removed:\n${lines.join('\n')}`);
  assert.ok(left.includes('recent:1'), 'recent:1 (used 2 h ago) was removed');
  assert.ok(left.includes(BUSYBOX), "the engine's helper image was removed");
  const vols = await volumes();
  assert.ok(!vols.includes('old-volume'), 'old-volume (unused 5 h) was not removed');
  assert.ok(vols.includes('recent-volume'), 'recent-volume (mounted 2 h ago) was removed');
  assert.ok(
    lines.some((l) => /removed 1 image\(s\) unused for 14400 s.*old:1/.test(l)),
    lines.join('\n'),
  );
  assert.ok(lines.some((l) => /removed 1 volume\(s\) unused for 14400 s: old-volume/.test(l)));
  assert.ok(!lines.some((l) => /hard prune/.test(l)), 'pruned hard although below the thresholds');
  const state = await bookkeeping();
  assert.equal(state.lastClean, now);
  assert.equal(state.buildsSinceClean, 0);
});

test('thresholds: below them no deep clean; above, one step at a time until below', async () => {
  const quiet: string[] = [];
  const idle = await start({ diskUsageThreshold: 0.5 }, quiet, 'b-below');
  const calm = await idle.finish();
  assert.equal(calm.deepClean, undefined, quiet.join('\n'));
  assert.ok(quiet.some((l) => /no deep clean needed/.test(l)));

  await makeImage('stale-a:1', 12);
  await makeImage('stale-b:1', 12);
  await makeImage('fresh:1', 12);
  await (await start({}, [], 'b-earlier')).finish();
  now += 3 * HOUR;
  const lines: string[] = [];
  const cleaner = await start({ diskUsageThreshold: 0.5 }, lines, 'b-above');
  await docker('run', '--rm', 'fresh:1', '/bin/true');
  now += 2 * HOUR;
  await cleaner.pass();

  const left = await images();
  assert.ok(!left.includes('stale-a:1') && !left.includes('stale-b:1'), left.join(' '));
  assert.ok(left.includes('fresh:1'), `fresh:1 (used 2 h ago) went:\n${lines.join('\n')}`);
  assert.ok(
    lines.some((l) => /above 50 %: cleaning while the build runs/.test(l)),
    lines.join('\n'),
  );
  assert.ok(!lines.some((l) => /hard prune|every image/.test(l)), 'escalated past the images');
  const freed = lines.map((l) => /^Cleaner: ([\d.]+) MiB freed \(disk/.exec(l)?.[1]).find(Boolean);
  assert.ok(Number(freed) >= 24, `the stale images (24 MiB) were not freed:\n${lines.join('\n')}`);
  const { usage } = await cleaner.finish();
  assert.ok(usage !== undefined && usage.disk <= 0.5, `still ${usage?.disk} used`);
});

test('in use is never removed: a running container keeps its image and volume through a hard prune', async () => {
  await makeImage('held:1', 4);
  await makeImage('spare:1', 4);
  await docker('volume', 'create', 'held-volume');
  await docker(
    'run',
    '-d',
    '--name',
    'holder',
    '-v',
    'held-volume:/v',
    'held:1',
    '/bin/sleep',
    '600',
  );
  try {
    const lines: string[] = [];
    const cleaner = await start(
      { diskUsageThreshold: 0.01, cleanPeriodBuilds: 1 },
      lines,
      'b-held',
    );
    const report = await cleaner.finish();

    assert.equal(report.pruned, true, lines.join('\n'));
    const left = await images();
    assert.ok(left.includes('held:1'), "the running container's image was removed");
    assert.ok(!left.includes('spare:1'), 'the unused image survived a hard prune');
    assert.ok(left.includes(BUSYBOX), "the engine's helper image was removed");
    assert.ok(
      (await volumes()).includes('held-volume'),
      "the running container's volume was removed",
    );
    assert.equal(await docker('inspect', '--format', '{{.State.Running}}', 'holder'), 'true');
  } finally {
    await docker('rm', '-f', 'holder');
  }
});

test('a build with the cleaner: its decisions are system lines of the build, and the build is counted on the volume', async () => {
  const parsed = parsePipeline(
    `version: '1.0'\nsteps:\n  hello:\n    image: ${BUSYBOX}\n    commands:\n      - echo hi\n`,
    { file: 'cleaner.yml' },
  );
  assert.ok(parsed.ok);
  const events: BuildEvent[] = [];
  const summary = await runBuild(parsed.pipeline, {
    docker: DockerClient.create({ host: `unix://${daemon().socketPath}` }),
    buildId: 'b-run-build',
    facts: { pipelineName: 'cleaner' },
    volumeKey: 'cleaner-workspace',
    onEvent: (event) => events.push(event),
    clock: () => now,
    cleaner: { ...RETAIN, cleanPeriodBuilds: 1 },
  });

  assert.equal(summary.result, 'success', summary.reason);
  const lines = events.flatMap((e) =>
    e.type === 'step-log' && e.step === '' && e.stream === 'system' ? [e.line] : [],
  );
  assert.ok(
    lines.some((l) => /^Cleaner: volume created/.test(l)),
    lines.join('\n'),
  );
  assert.ok(lines.some((l) => /^Cleaner: deep clean: 1 builds since the last clean/.test(l)));
  const finished = events.findIndex((e) => e.type === 'build-finished');
  assert.ok(events.findLastIndex((e) => e.type === 'step-log' && e.step === '') < finished);
  const state = await bookkeeping();
  assert.equal(state.builds.at(-1)?.id, 'b-run-build');
  assert.ok((await images()).includes(BUSYBOX), "the engine's helper image was removed");
});

test('one helper container serves every look of a build, is started again when a step removed it, and goes at the end', async () => {
  const lines: string[] = [];
  const cleaner = await start({}, lines, 'b-helper');
  assert.equal((await helpers()).length, 1, 'not one helper while the build runs');
  await cleaner.pass();
  assert.equal((await helpers()).length, 1, 'a background pass started another helper');
  // A step that removes every container (docker rm -f $(docker ps -aq)) takes the helper too.
  await docker('rm', '-f', ...(await helpers()));
  const report = await cleaner.finish();

  assert.ok(report.usage !== undefined, lines.join('\n'));
  assert.ok(!lines.some((l) => /failed/.test(l)), lines.join('\n'));
  assert.deepEqual(await helpers(), [], 'a helper container outlived the build');
  assert.equal((await bookkeeping()).builds.at(-1)?.id, 'b-helper');
});

test('the bookkeeping survives a restart of the daemon on the same data root', async () => {
  const before = await bookkeeping();
  assert.ok(before.builds.length >= 4, `builds recorded: ${before.builds.length}`);
  await daemon().stop();
  dind = await startTlsDockerd({ ...certs, dataRoot });
  const lines: string[] = [];
  const cleaner = await start({}, lines, 'b-after-restart');
  await cleaner.finish();
  const after = await bookkeeping();
  assert.equal(after.created, before.created);
  assert.deepEqual(
    after.builds.map((b) => b.id),
    [...before.builds.map((b) => b.id), 'b-after-restart'],
  );
  assert.ok((await images()).includes('held:1'), 'the image store did not survive either');
  assert.ok(after.images[await docker('image', 'inspect', '--format', '{{.Id}}', 'held:1')]);
});

test('the background passes clean on their own while the build runs, sparing its stopped containers and workspace volume', async () => {
  await makeImage('drift:1', 12);
  await (await start({}, [], 'b-before-background')).finish();
  now += 5 * HOUR;
  // Arrived for this build (as a pulled image does) before its container exists.
  await makeImage('pulled:1', 1);
  await docker('volume', 'create', 'bg-workspace');
  const own = await docker(
    'create',
    '--label',
    'io.sluice.build=b-background',
    '-v',
    'bg-workspace:/w',
    BUSYBOX,
    'true',
  );
  await docker('rm', '-v', await docker('create', '-v', 'bg-workspace:/w', BUSYBOX, 'true'));
  const lines: string[] = [];
  const cleaner = await start(
    { background: true, diskUsageThreshold: 0.01 },
    lines,
    'b-background',
    {
      intervalMs: 100,
      protect: { images: [BUSYBOX], volumes: ['bg-workspace'] },
    },
  );
  try {
    for (let waited = 0; !lines.some((l) => / freed \(disk/.test(l)); waited += 100) {
      assert.ok(waited < 60_000, `no background clean after 60 s:\n${lines.join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // While the build runs, its workspace volume and its stopped container stay.
    assert.ok(
      (await volumes()).includes('bg-workspace'),
      "the build's workspace volume was removed",
    );
    assert.equal(await docker('inspect', '--format', '{{.State.Status}}', own), 'created');
    assert.ok((await images()).includes('pulled:1'), 'an image that arrived for the build went');
  } finally {
    await cleaner.finish();
  }
  assert.ok(
    lines.some((l) => /cleaning while the build runs/.test(l)),
    lines.join('\n'),
  );
  assert.ok(!(await images()).includes('drift:1'), 'the background passes left an unused image');
  // The end of the build removes its stopped container.
  assert.ok(
    lines.some((l) => /removed 1 stopped container/.test(l)),
    lines.join('\n'),
  );
  assert.equal(
    (await runCommand('docker', ['-H', `unix://${daemon().socketPath}`, 'inspect', own])).code,
    1,
  );
});
