/**
 * The marketplace step types that talk to the control plane, on a real `sluice server` (on PostgreSQL)
 * with a real `sluice agent` serving the local runtime, so every build runs in `sluice engine`
 * on the Docker engine: `codefresh-run` runs another pipeline and passes or fails with its build,
 * and `bump-build-number` counts builds in a pipeline variable. Both reach the server from their
 * step containers through the Docker bridge's gateway, with CF_URL and CF_API_KEY set on the
 * pipeline as Codefresh's steps expect.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestDatabases } from '@sluice/db/testing';
import { exportSecretKey, generateSecretKey } from '@sluice/pki';
import { createClient } from '@sluice/protocol';
import type { Build, SluiceClient } from '@sluice/protocol';
import {
  dockerHostAddress,
  ensureDockerEngine,
  ensureTestImages,
  freeLoopbackPort,
} from '@sluice/testkit';
import { kill, REPO_ROOT, SLUICE_AGENT_BIN, startServer } from './cli-harness.js';
import type { RunningServer } from './cli-harness.js';
import { createLocalRuntime, createPipelines } from './control-plane-seed.js';

const TOKEN = 'slu_u_marketplace-e2e-token-0123456789';
const PROJECT = `mkt${process.pid}${Date.now().toString(36)}`;

const CHILD_YAML = `version: '1.0'
steps:
  child:
    image: sluice/busybox:1
    commands: ['echo "child built $IMAGE on $CF_BRANCH"']
`;
const BROKEN_YAML = `version: '1.0'
steps:
  broken:
    image: sluice/busybox:1
    commands: ['echo "about to fail"', 'exit 3']
`;
const PARENT_YAML = `version: '1.0'
steps:
  run_child:
    type: codefresh-run:1.6.0
    arguments:
      PIPELINE_ID: ${PROJECT}/child
      BRANCH: release
      VARIABLE: [IMAGE=app:1.2]
      POLL_SECONDS: 1
  run_broken:
    type: codefresh-run
    fail_fast: false
    arguments:
      PIPELINE_ID: ${PROJECT}/broken
      POLL_SECONDS: 1
  after:
    image: sluice/busybox:1
    commands: ['echo "child build was $BUILD_ID"']
`;
const COUNTED_YAML = `version: '1.0'
steps:
  bump:
    type: bump-build-number:1.0.5
  show:
    image: sluice/busybox:1
    commands: ['echo "build number $CF_BUILD_NUMBER"']
`;

const databases = TestDatabases.create({ kinds: ['postgres'] });
let server: RunningServer | undefined;
let agent: ChildProcess | undefined;
/** What the agent printed, shown when a build never starts. */
let agentOutput = '';
let admin: SluiceClient;
let pipelines: Record<string, string>;

before(async () => {
  await ensureDockerEngine();
  await ensureTestImages();
  const target = await databases.prepare('postgres');
  const port = await freeLoopbackPort();
  // Step containers reach the server through the bridge's gateway, not loopback; so do the
  // engines, through the public URL.
  const publicUrl = `http://${await dockerHostAddress()}:${port}`;
  server = await startServer(
    target,
    {
      SLUICE_BOOTSTRAP_TOKEN: TOKEN,
      SLUICE_SECRET_KEY: exportSecretKey(generateSecretKey()),
      SLUICE_HOST: '0.0.0.0',
      SLUICE_PUBLIC_URL: publicUrl,
    },
    port,
  );
  const local = `http://127.0.0.1:${port}`;
  admin = createClient({ baseUrl: local, token: TOKEN });
  for (const name of ['codefresh-run', 'bump-build-number']) {
    const yaml = readFileSync(`${REPO_ROOT}step-types/${name}.yml`, 'utf8');
    await admin.call('putStepType', { body: { yaml } });
  }
  await createLocalRuntime(admin, { isDefault: true });
  const variables = {
    CF_URL: { value: publicUrl },
    CF_API_KEY: { value: TOKEN, secret: true },
  };
  pipelines = await createPipelines(
    admin,
    PROJECT,
    { child: CHILD_YAML, broken: BROKEN_YAML, parent: PARENT_YAML, counted: COUNTED_YAML },
    { variables },
  );
  const { token } = await admin.call('createAgent', { body: { name: 'a1', runtimes: ['local'] } });
  agent = spawn(process.execPath, [SLUICE_AGENT_BIN], {
    env: {
      ...process.env,
      SLUICE_SERVER_URL: local,
      SLUICE_AGENT_TOKEN: token,
      SLUICE_LOCAL_RUNTIME: 'local',
      SLUICE_AGENT_STATE_DIR: mkdtempSync(join(tmpdir(), 'sluice-mkt-agent-')),
      SLUICE_AGENT_HTTP_PORT: '0',
      SLUICE_AGENT_HTTP_HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  agent.stdout?.on('data', (chunk: Buffer) => (agentOutput += chunk.toString()));
  agent.stderr?.on('data', (chunk: Buffer) => (agentOutput += chunk.toString()));
});

after(async () => {
  agent?.kill('SIGTERM');
  if (server) await kill(server);
  await databases.close();
  for (const name of Object.keys(pipelines ?? {}))
    spawnSync('docker', ['volume', 'rm', '-f', `sluice-volume-${PROJECT}-${name}`]);
});

/** Runs the pipeline through the agent and waits for its build to end. */
async function runPipeline(name: string): Promise<{ build: Build; log: string }> {
  const pipelineId = pipelines[name] ?? '';
  const created = await admin.call('createBuild', { params: { pipelineId }, body: {} });
  const deadline = Date.now() + 240_000;
  for (;;) {
    const build = await admin.call('getBuild', { params: { buildId: created.id } });
    if (['success', 'failure', 'terminated', 'error'].includes(build.status)) {
      const response = await admin.raw('buildLog', { params: { buildId: build.id } });
      return { build, log: await response.text() };
    }
    assert.ok(
      Date.now() < deadline && agent?.exitCode === null,
      `build ${build.id} still ${build.status}; the agent printed:\n${agentOutput.slice(-4000)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function buildsOf(name: string): Promise<Build[]> {
  const page = await admin.call('listBuilds', { query: { pipelineId: pipelines[name] } });
  return page.items;
}

test('codefresh-run runs another pipeline with its variables, waits, and fails with a failed build', async () => {
  const { build, log } = await runPipeline('parent');
  const steps = Object.fromEntries(build.steps.map((s) => [s.name, s.status]));
  const shown = `${JSON.stringify(build.steps.map((s) => [s.name, s.status, s.reason]))}\n${log}`;
  assert.equal(steps.run_child, 'success', shown);
  assert.equal(steps.run_broken, 'failure', shown);
  assert.equal(steps.after, 'success', shown);

  const [child] = await buildsOf('child');
  assert.ok(child, 'no build of the child pipeline');
  assert.equal(child.status, 'success');
  assert.equal(child.branch, 'release');
  assert.match(log, new RegExp(`Started build ${child.id} of ${PROJECT}/child`));
  assert.match(log, /child built app:1\.2 on release/, 'the child log was not followed');
  const [broken] = await buildsOf('broken');
  assert.ok(broken, 'no build of the broken pipeline');
  assert.equal(broken.status, 'failure');
  assert.match(log, new RegExp(`codefresh-run: build ${broken.id} ended failure`));
  // BUILD_ID is exported by each run; the last one wins, as cf_export does.
  assert.match(log, new RegExp(`child build was ${broken.id}`));
  assert.ok(!log.includes(TOKEN), 'the API token was logged');
});

test('bump-build-number counts in a pipeline variable and exports CF_BUILD_NUMBER', async () => {
  const first = await runPipeline('counted');
  assert.equal(first.build.status, 'success', `${first.build.reason}\n${first.log}`);
  assert.match(first.log, /build_number bumped from 0 to 1/);
  assert.match(first.log, /build number 1$/m);
  const second = await runPipeline('counted');
  assert.equal(second.build.status, 'success', second.log);
  assert.match(second.log, /build number 2$/m);
  const pipeline = await admin.call('getPipeline', {
    params: { pipelineId: pipelines.counted ?? '' },
  });
  assert.deepEqual(
    pipeline.variables.find((v) => v.name === 'build_number'),
    { name: 'build_number', value: '2', secret: false },
  );
});
