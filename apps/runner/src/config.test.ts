import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isSluiceError } from '@sluice/errors';
import { parseRunnerConfig } from './config.js';
import { RUNNER_DEFAULTS } from './runner-config.js';
import { WARM_POOL_DEFAULTS } from './backends/kubernetes/warm-pool-size.js';

const base = { SLUICE_SERVER_URL: 'http://cp:8080/', SLUICE_AGENT_TOKEN: 'sk_agent' };

function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    assert.ok(isSluiceError(err));
    assert.equal(err.code, 'SLUICE_AGENT_CONFIG_INVALID');
    return err.details?.problems as string[];
  }
  assert.fail('expected the configuration to be refused');
}

test('flags win over the environment; numbers and defaults are applied', () => {
  const config = parseRunnerConfig(
    { concurrency: '3', inClusterRuntime: 'prod/ci', httpPort: '0' },
    {
      ...base,
      SLUICE_AGENT_CONCURRENCY: '9',
      SLUICE_AGENT_QUEUE_SIZE: '7',
      SLUICE_NAMESPACE: 'ci',
    },
  );
  assert.equal(config.serverUrl, 'http://cp:8080');
  assert.equal(config.concurrency, 3);
  assert.equal(config.queueSize, 7);
  assert.deepEqual(config.http, { host: '0.0.0.0', port: 0 });
  assert.deepEqual(config.runtimes, [
    { kind: 'kubernetes', name: 'prod/ci', source: { type: 'in-cluster' }, namespace: 'ci' },
  ]);
});

test('SLUICE_DIND_HOST_ALIAS applies to the in-cluster runtime too (clusters without DNS)', () => {
  const config = parseRunnerConfig(
    { inClusterRuntime: 'prod/ci' },
    { ...base, SLUICE_DIND_HOST_ALIAS: 'true' },
  );
  assert.deepEqual(config.runtimes, [
    {
      kind: 'kubernetes',
      name: 'prod/ci',
      source: { type: 'in-cluster' },
      namespace: undefined,
      dindHostAlias: true,
    },
  ]);
});

test('a warm pool applies to the Kubernetes runtimes; a maximum below the minimum is the minimum; a bad mode is named', () => {
  const config = parseRunnerConfig(
    { inClusterRuntime: 'prod/ci', warmPoolMin: '2', warmPoolMax: '1' },
    {
      ...base,
      SLUICE_WARM_POOL_MODE: 'adaptive',
      SLUICE_WARM_POOL_PRIORITY_CLASS: 'low',
      SLUICE_WARM_POOL_BUILD_PRIORITY_CLASS: 'no-preempt',
    },
  );
  assert.deepEqual(config.runtimes[0]?.kind === 'kubernetes' && config.runtimes[0].warmPool, {
    mode: 'adaptive',
    minSize: 2,
    maxSize: 2,
    windowMs: 60_000,
    idleMs: 300_000,
    priorityClassName: 'low',
    buildPriorityClassName: 'no-preempt',
  });
  const none = parseRunnerConfig({ inClusterRuntime: 'prod/ci' }, base);
  assert.equal(none.runtimes[0]?.kind === 'kubernetes' && none.runtimes[0].warmPool, undefined);
  assert.deepEqual(
    problems(() =>
      parseRunnerConfig(
        { inClusterRuntime: 'prod/ci', warmPoolMax: '3', warmPoolMode: 'eager' },
        base,
      ),
    ),
    ['--warm-pool-mode (SLUICE_WARM_POOL_MODE) is "eager": give "fixed" or "adaptive"'],
  );
});

test('every problem is reported at once, each naming its flag and variable', () => {
  const found = problems(() =>
    parseRunnerConfig({ concurrency: 'many', kubeRuntime: 'x' }, { SLUICE_SERVER_URL: 'cp' }),
  );
  assert.deepEqual(found, [
    '--server-url (SLUICE_SERVER_URL) must be an http(s) URL, got "cp"',
    '--token (SLUICE_AGENT_TOKEN) is not set',
    '--concurrency (SLUICE_AGENT_CONCURRENCY) must be an integer from 1 to 1000, got "many"',
    '--kube-runtime (SLUICE_KUBE_RUNTIME) needs --kubeconfig (KUBECONFIG)',
    'No runtime to serve: give --in-cluster-runtime, --config-dir, --kube-runtime with --kubeconfig, or --local-runtime',
  ]);
});

test('a config directory gives one runtime per *.runtime.yaml; bad files are named', () => {
  const dir = mkdtempSync(join(tmpdir(), 'runner-config-'));
  writeFileSync(
    join(dir, 'east.runtime.yaml'),
    'type: runtime\nname: east/ci\nhost: https://east:6443\ntoken: t1\ncrt: PEM\nnamespace: builds\n',
  );
  writeFileSync(join(dir, 'notes.txt'), 'ignored');
  const config = parseRunnerConfig({ configDir: dir }, base);
  assert.deepEqual(config.runtimes, [
    {
      kind: 'kubernetes',
      name: 'east/ci',
      source: {
        type: 'token',
        host: 'https://east:6443',
        token: 't1',
        caPem: 'PEM',
        file: join(dir, 'east.runtime.yaml'),
      },
      namespace: 'builds',
    },
  ]);
  writeFileSync(join(dir, 'west.runtime.yaml'), 'type: cluster\nname: west\nhost: 5\n');
  const found = problems(() => parseRunnerConfig({ configDir: dir }, base));
  const file = join(dir, 'west.runtime.yaml');
  assert.deepEqual(found, [
    `${file}: field "type" must be "runtime", got "cluster"`,
    `${file}: field "host" must be a non-empty string`,
    `${file}: field "token" must be a non-empty string`,
  ]);
});

test('a local runtime needs a state directory and the engine command; names are unique', () => {
  const found = problems(() =>
    parseRunnerConfig(
      { localRuntime: 'local', inClusterRuntime: 'local' },
      { ...base, SLUICE_AGENT_HTTP_PORT: '-1' },
    ),
  );
  assert.deepEqual(found, [
    '--local-runtime (SLUICE_LOCAL_RUNTIME) needs --state-dir (SLUICE_AGENT_STATE_DIR)',
    '--local-runtime (SLUICE_LOCAL_RUNTIME) needs the command that starts an engine',
    'Runtime "local" is configured twice',
  ]);
  const ok = parseRunnerConfig(
    { localRuntime: 'local', stateDir: '/tmp/s', engineCommand: ['node', 'sluice.js', 'engine'] },
    { ...base, SLUICE_AGENT_HTTP_PORT: '-1' },
  );
  assert.equal(ok.http, undefined);
  assert.equal(ok.runtimes[0]?.kind, 'local');
});

test('a flag given leaves its variable unread; a bad switch and a bad number are named', () => {
  const config = parseRunnerConfig(
    { concurrency: '3', inClusterRuntime: 'prod/ci' },
    { ...base, SLUICE_AGENT_CONCURRENCY: 'many' },
  );
  assert.equal(config.concurrency, 3);
  assert.equal(config.heartbeatMs, RUNNER_DEFAULTS.heartbeatMs);
  assert.deepEqual(
    problems(() =>
      parseRunnerConfig(
        { inClusterRuntime: 'prod/ci' },
        { ...base, SLUICE_DIND_HOST_ALIAS: 'maybe', SLUICE_AGENT_DRAIN_SECONDS: '-1' },
      ),
    ),
    [
      '--drain-seconds (SLUICE_AGENT_DRAIN_SECONDS) must be a number from 0 to 3600 (seconds), got "-1"',
      '--dind-host-alias (SLUICE_DIND_HOST_ALIAS) must be one of 1, 0, true, false, yes, no, on, off, got "maybe"',
    ],
  );
});

test("a runtime file's warmPool is that runtime's pool; the agent's pool variables are not", () => {
  const dir = mkdtempSync(join(tmpdir(), 'runner-config-'));
  const head = 'type: runtime\nhost: https://east:6443\ntoken: t1\n';
  writeFileSync(
    join(dir, 'east.runtime.yaml'),
    `${head}name: east/ci\nwarmPool:\n  minSize: 1\n  maxSize: 3\n  mode: adaptive\n  priorityClassName: low\n`,
  );
  writeFileSync(join(dir, 'west.runtime.yaml'), `${head}name: west/ci\n`);
  const config = parseRunnerConfig(
    { configDir: dir, inClusterRuntime: 'home/ci' },
    { ...base, SLUICE_WARM_POOL_MAX: '2', SLUICE_WARM_POOL_PRIORITY_CLASS: 'home-low' },
  );
  const pools = Object.fromEntries(
    config.runtimes.map((r) => [r.name, r.kind === 'kubernetes' ? r.warmPool : undefined]),
  );
  assert.deepEqual(pools, {
    'home/ci': { ...WARM_POOL_DEFAULTS, minSize: 0, maxSize: 2, priorityClassName: 'home-low' },
    'east/ci': {
      ...WARM_POOL_DEFAULTS,
      mode: 'adaptive',
      minSize: 1,
      maxSize: 3,
      priorityClassName: 'low',
    },
    'west/ci': undefined,
  });
  writeFileSync(
    join(dir, 'west.runtime.yaml'),
    `${head}name: west/ci\nwarmPool:\n  minSize: -1\n  maxSize: lots\n  mode: eager\n  size: 3\n  buildPriorityClassName: ""\n`,
  );
  const file = join(dir, 'west.runtime.yaml');
  assert.deepEqual(
    problems(() => parseRunnerConfig({ configDir: dir }, base)),
    [
      `${file}: field "warmPool.size" is not a field: give minSize, maxSize, mode, priorityClassName, buildPriorityClassName`,
      `${file}: field "warmPool.mode" is "eager": give "fixed" or "adaptive"`,
      `${file}: field "warmPool.minSize" must be an integer from 0 to 100, got -1`,
      `${file}: field "warmPool.maxSize" must be an integer from 0 to 100, got "lots"`,
      `${file}: field "warmPool.buildPriorityClassName" must be a PriorityClass name, got ""`,
    ],
  );
  writeFileSync(join(dir, 'west.runtime.yaml'), `${head}name: west/ci\nwarmPool: 3\n`);
  assert.deepEqual(
    problems(() => parseRunnerConfig({ configDir: dir }, base)),
    [`${file}: field "warmPool" must be a map (minSize, maxSize, mode), got 3`],
  );
});
