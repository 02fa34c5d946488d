/**
 * `sluice engine` against a real `sluice server` (on PostgreSQL) and Docker: a build runs its steps,
 * reports events, timing and the masked log in order; a cancelled build ends `terminated`
 * promptly and leaves no container; behind an HTTP proxy every call goes through it, and the
 * runtime's user variables, user volume mounts and proxy reach the steps; a build past its
 * runtime's log limit stores its lines up to the limit and one notice, and its steps go on.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { TestDatabases } from '@sluice/db/testing';
import { exportSecretKey, generateSecretKey } from '@sluice/pki';
import { createClient } from '@sluice/protocol';
import type { SluiceClient } from '@sluice/protocol';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDockerEngine, ensureTestImages, makeTempDir, startHttpProxy } from '@sluice/testkit';
import { kill, runSluice, startServer, startSluice } from './cli-harness.js';
import type { RunningServer } from './cli-harness.js';
import { acknowledgeTasks, createLocalRuntime, createPipelines } from './control-plane-seed.js';

const TOKEN = 'slu_u_engine-remote-token-0123456789';
const SECRET = 'hunter2-engine-secret';
const PROJECT = `eng${process.pid}${Date.now().toString(36)}`;
const STEPS_YAML = [
  'version: "1.0"',
  'steps:',
  '  first:',
  '    image: sluice/busybox:1',
  '    commands:',
  '      - "echo line one"',
  '      - "echo line two"',
  '      - "cf_export GREETING=hello"',
  '      - "echo the token is $TOKEN"',
  '  second:',
  '    image: sluice/busybox:1',
  '    commands:',
  '      - "echo greeting is $GREETING"',
  '      - "for i in 1 2 3 4 5; do echo count $i; done"',
  '',
].join('\n');
const SLOW_YAML = [
  'version: "1.0"',
  'steps:',
  '  wait:',
  '    image: sluice/busybox:1',
  '    commands:',
  '      - "echo sleeping"',
  '      - "sleep 600"',
  '',
].join('\n');

const SETTINGS_YAML = [
  'version: "1.0"',
  'steps:',
  '  show:',
  '    image: sluice/busybox:1',
  '    commands:',
  '      - "echo team is $TEAM"',
  '      - "echo npm token is $NPM_TOKEN"',
  '      - "echo proxy is $HTTP_PROXY"',
  '      - "cat /shared/hello.txt"',
  '',
].join('\n');
const CHATTY_YAML = [
  'version: "1.0"',
  'steps:',
  '  chatty:',
  '    image: sluice/busybox:1',
  '    commands:',
  '      - "i=0; while [ $i -lt 400 ]; do i=$((i+1)); echo line $i; done"',
  '  after:',
  '    image: sluice/busybox:1',
  '    commands:',
  '      - "echo the next step ran"',
  '',
].join('\n');
/** A name only the test's proxy resolves: an engine that reaches it went through the proxy. */
const PROXIED_HOST = 'sluice-control-plane.test';

const databases = TestDatabases.create({ kinds: ['postgres'] });
/**
 * The engines' log spools: `sluice engine` puts them under its working directory unless told,
 * and the harness runs it in the repository, which every test file shares.
 */
const spool = await makeTempDir('sluice-engine-spool-');
let server: RunningServer | undefined;
let admin: SluiceClient;
let agent: SluiceClient;
let pipelines: Record<string, string>;

before(async () => {
  await ensureDockerEngine();
  await ensureTestImages();
  const target = await databases.prepare('postgres');
  server = await startServer(target, {
    SLUICE_BOOTSTRAP_TOKEN: TOKEN,
    SLUICE_SECRET_KEY: exportSecretKey(generateSecretKey()),
  });
  admin = createClient({ baseUrl: server.url, token: TOKEN });
  await createLocalRuntime(admin, { isDefault: true });
  const variables = { TOKEN: { value: SECRET, secret: true } };
  pipelines = await createPipelines(
    admin,
    PROJECT,
    { app: STEPS_YAML, slow: SLOW_YAML, settings: SETTINGS_YAML, chatty: CHATTY_YAML },
    { variables },
  );
  const { token } = await admin.call('createAgent', { body: { name: 'a1', runtimes: ['local'] } });
  agent = createClient({ baseUrl: server.url, token });
});

after(async () => {
  if (server) await kill(server);
  await databases.close();
  await spool.cleanup();
  for (const name of ['app', 'slow', 'settings', 'chatty'])
    spawnSync('docker', ['volume', 'rm', '-f', `sluice-volume-${PROJECT}-${name}`]);
});

/** Creates a build and takes its RunEngine task as the agent would: the engine token. */
async function startBuild(
  pipeline: string,
  runtimeEnvironment?: string,
): Promise<{ buildId: string; engineToken: string }> {
  const pipelineId = pipelines[pipeline] ?? '';
  const build = await admin.call('createBuild', {
    params: { pipelineId },
    body: { runtimeEnvironment },
  });
  for (let round = 0; round < 10; round++) {
    const { tasks } = await agent.call('pollTasks', { query: { wait: 5 } });
    await acknowledgeTasks(agent, tasks);
    const task = tasks.find((t) => t.type === 'RunEngine' && t.buildId === build.id);
    if (task !== undefined)
      return { buildId: build.id, engineToken: String(task.spec.engineToken) };
  }
  throw new Error(`no RunEngine task for build ${build.id}`);
}

function engineEnv(engineToken: string): NodeJS.ProcessEnv {
  return {
    SLUICE_SERVER_URL: server?.url ?? '',
    SLUICE_ENGINE_TOKEN: engineToken,
    SLUICE_LOG_SPOOL_DIR: spool.path,
  };
}

test('sluice engine runs a build for the control plane and reports steps, timing and the masked log', async () => {
  const { buildId, engineToken } = await startBuild('app');
  const result = await runSluice(['engine'], { env: engineEnv(engineToken) });
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.ok(!(result.stdout + result.stderr).includes(engineToken), 'the token was printed');

  const build = await admin.call('getBuild', { params: { buildId } });
  assert.equal(build.status, 'success', JSON.stringify(build));
  assert.deepEqual(
    build.steps.map((s) => [s.name, s.status, s.exitCode]),
    [
      ['first', 'success', 0],
      ['second', 'success', 0],
    ],
  );
  for (const step of build.steps) assert.ok(step.startedAt && step.finishedAt, step.name);
  for (const stamp of ['engineStartedAt', 'firstStepStartedAt', 'finishedAt'] as const)
    assert.ok(build.timing[stamp], `timing.${stamp}: ${JSON.stringify(build.timing)}`);

  const text = await (await admin.raw('buildLog', { params: { buildId } })).text();
  assert.ok(!text.includes(SECRET), `the secret leaked:\n${text}`);
  const expected = [
    '[first] line one',
    '[first] line two',
    '[first] the token is ****',
    '[second] greeting is hello',
    ...[1, 2, 3, 4, 5].map((i) => `[second] count ${i}`),
  ];
  const lines = text.split('\n');
  let from = 0;
  for (const line of expected) {
    const at = lines.indexOf(line, from);
    assert.ok(at >= 0, `"${line}" missing or out of order in:\n${text}`);
    from = at + 1;
  }
});

test("a build past its runtime's log limit stores its lines up to it and one notice, and its steps go on", async () => {
  const spec = {
    metadata: { name: 'small-log' },
    runtimeScheduler: { type: 'LocalDocker', buildLogLimit: '1Ki' },
    dockerDaemonScheduler: { type: 'LocalDocker' },
  };
  await admin.call('createRuntimeEnvironment', { body: { name: 'small-log', spec } });
  const agents = await admin.call('listAgents');
  const a1 = agents.items.find((a) => a.name === 'a1');
  await admin.call('updateAgent', {
    params: { agentId: a1?.id ?? '' },
    body: { runtimes: ['local', 'small-log'] },
  });
  const { buildId, engineToken } = await startBuild('chatty', 'small-log');
  const result = await runSluice(['engine'], { env: engineEnv(engineToken) });
  assert.equal(result.code, 0, result.stdout + result.stderr);

  const build = await admin.call('getBuild', { params: { buildId } });
  assert.equal(build.status, 'success', JSON.stringify(build));
  assert.deepEqual(
    build.steps.map((s) => [s.name, s.status]),
    [
      ['chatty', 'success'],
      ['after', 'success'],
    ],
  );
  const notice =
    "The build log reached its limit of 1 KiB during step chatty: later lines are not stored, the steps go on (runtimeScheduler.buildLogLimit, else the server's SLUICE_BUILD_LOG_LIMIT_BYTES)";
  assert.equal(build.annotations['sluice.log-limit'], notice);

  const text = await (await admin.raw('buildLog', { params: { buildId } })).text();
  const lines = text.split('\n').filter(Boolean);
  assert.equal(lines.at(-1), `[chatty] ${notice}`, 'the notice, last');
  assert.equal(lines.filter((l) => l.includes('reached its limit')).length, 1, 'the notice, once');
  assert.ok(!text.includes('the next step ran'), 'a line past the limit was stored');
  // Every line below the limit, in order, none lost: `line 1` to `line N`.
  const printed = lines.filter((l) => l.startsWith('[chatty] line '));
  assert.deepEqual(
    printed,
    printed.map((_, i) => `[chatty] line ${i + 1}`),
  );
  const bytes = lines
    .slice(0, -1)
    .reduce((n, l) => n + Buffer.byteLength(l.replace(/^\[[^\]]*\] /, '')), 0);
  assert.ok(bytes <= 1024 && bytes > 1024 - 'line 400'.length, `${bytes} bytes stored`);
});

test('a build cancelled through the API stops its engine promptly and leaves no container', async () => {
  const { buildId, engineToken } = await startBuild('slow');
  const engine = startSluice(['engine'], { env: engineEnv(engineToken) });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const build = await admin.call('getBuild', { params: { buildId } });
    if (build.steps[0]?.status === 'running') break;
    assert.ok(Date.now() < deadline, `the step never started: ${JSON.stringify(build)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const cancelledAt = Date.now();
  await admin.call('cancelBuild', { params: { buildId } });
  const result = await engine.done;
  assert.equal(result.code, 1, result.stdout + result.stderr);
  assert.ok(Date.now() - cancelledAt < 30_000, 'the engine took too long to stop');
  const build = await admin.call('getBuild', { params: { buildId } });
  assert.equal(build.status, 'terminated');
  assert.equal(build.steps[0]?.status, 'terminated');
  const left = execFileSync(
    'docker',
    ['ps', '-aq', '--filter', `label=io.sluice.build-id=${buildId}`],
    { encoding: 'utf8' },
  ).trim();
  assert.equal(left, '', 'containers of the build were left');
});

test('behind HTTP_PROXY every call of the engine goes through the proxy; user variables, mounts and the proxy reach the steps', async () => {
  const proxy = await startHttpProxy({ hosts: { [PROXIED_HOST]: '127.0.0.1' } });
  const shared = await makeTempDir('sluice-user-mount-');
  try {
    writeFileSync(join(shared.path, 'hello.txt'), 'hello from the user volume\n');
    const { buildId, engineToken } = await startBuild('settings');
    const port = new URL(server?.url ?? '').port;
    const result = await runSluice(['engine'], {
      env: {
        SLUICE_SERVER_URL: `http://${PROXIED_HOST}:${port}`,
        SLUICE_ENGINE_TOKEN: engineToken,
        SLUICE_LOG_SPOOL_DIR: spool.path,
        HTTP_PROXY: proxy.url,
        NO_PROXY: '',
        // As the engine pod gets them from the runtime spec.
        SLUICE_USER_ENV_TEAM: 'platform',
        SLUICE_USER_SECRET_ENV_NPM_TOKEN: 'npm-secret-4711',
        SLUICE_USER_VOLUME_MOUNTS: JSON.stringify([
          { mountPath: '/shared', source: shared.path, readOnly: true },
        ]),
      },
    });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const build = await admin.call('getBuild', { params: { buildId } });
    assert.equal(build.status, 'success', JSON.stringify(build));
    const text = await (await admin.raw('buildLog', { params: { buildId } })).text();
    assert.ok(!text.includes('npm-secret-4711'), `the user secret leaked:\n${text}`);
    for (const line of [
      '[show] team is platform',
      '[show] npm token is ****',
      `[show] proxy is ${proxy.url}`,
      '[show] hello from the user volume',
    ])
      assert.ok(text.split('\n').includes(line), `"${line}" missing in:\n${text}`);
    assert.ok(
      proxy.requests.includes(`CONNECT ${PROXIED_HOST}:${port}`),
      proxy.requests.join('\n'),
    );
    for (const call of [
      'GET /api/engine/v1/build',
      'POST /api/engine/v1/events',
      'POST /api/engine/v1/log',
    ])
      assert.ok(
        proxy.requests.includes(call),
        `${call} not seen by the proxy:\n${proxy.requests.join('\n')}`,
      );
  } finally {
    await proxy.close();
    await shared.cleanup();
  }
});
