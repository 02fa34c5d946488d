import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isSluiceError } from '@sluice/errors';
import { installRecordObject, parseInstallRecord } from './install-record.js';
import type { InstallRecord } from './install-record.js';
import { installObjects, runtimeSpecFor } from './runner-install.js';
import { resolveRunnerSettings } from './runner-settings.js';
import type { RunnerFlags, RunnerSettings } from './runner-settings.js';

const DEFAULTS = { contextName: 'prod', env: {} };

/** Every setting away from its default, as a platform team's install would have them. */
function installFlags(): RunnerFlags {
  const specFile = join(mkdtempSync(join(tmpdir(), 'install-record-')), 'spec.yaml');
  writeFileSync(specFile, 'runtimeScheduler:\n  imagePullPolicy: Never\n');
  return {
    namespace: 'ci',
    buildNamespace: 'builds',
    runtime: 'prod/builds',
    agentName: 'prod-agent',
    controlPlaneUrl: 'http://ci.internal:8080',
    storageClass: 'fast',
    buildNodeSelector: 'pool=builds',
    buildToleration: ['dedicated=ci:NoSchedule'],
    httpProxy: 'http://proxy:3128',
    imageRepository: 'registry.internal:5000/sluice/engine',
    imageTag: '1.1',
    registryMirror: ['http://mirror.internal:5000'],
    insecureRegistry: ['mirror.internal:5000'],
    warmVolumes: true,
    setValue: ['agent.replicas=2', 'agent.image.pullPolicy=Never'],
    runtimeSpec: specFile,
  };
}

/** The settings a rerun resolves from the record `settings` wrote, and `flags`. */
function rerun(settings: RunnerSettings, flags: RunnerFlags = {}, env = {}): RunnerSettings {
  const record: InstallRecord = parseInstallRecord(installRecordObject(settings, {}));
  return resolveRunnerSettings(
    { namespace: settings.namespace, ...flags },
    {},
    { ...DEFAULTS, env, stored: record },
  );
}

test('a rerun without flags resolves exactly the settings the install was made with', () => {
  const first = resolveRunnerSettings(installFlags(), {}, DEFAULTS);
  const again = rerun(first, {}, { HTTP_PROXY: 'http://another-shell:1' });
  assert.deepEqual(again, first);
  assert.deepEqual(installObjects(again, 't'), installObjects(first, 't'));
  assert.deepEqual(runtimeSpecFor(again), runtimeSpecFor(first));
});

test('a flag given changes its setting and keeps the rest; an empty selector clears it', () => {
  const first = resolveRunnerSettings(installFlags(), {}, DEFAULTS);
  const upgraded = rerun(first, { imageTag: '1.2', buildNodeSelector: '' });
  assert.equal(upgraded.values.agent.image?.tag, '1.2');
  assert.equal(upgraded.values.agent.image?.repository, 'registry.internal:5000/sluice/engine');
  assert.equal(upgraded.values.agent.replicas, 2);
  assert.deepEqual(upgraded.buildNodeSelector, {});
  assert.deepEqual(upgraded.buildTolerations, first.buildTolerations);
  assert.equal(upgraded.values.proxy?.httpProxy, 'http://proxy:3128');
  assert.equal(upgraded.values.volumes?.enabled, true, '--warm-volumes stays without the flag');
  // Every workload moves: the agent, the volume provisioner and its DaemonSet.
  const images = installObjects(upgraded, 't')
    .filter((o) => o.kind === 'Deployment' || o.kind === 'DaemonSet')
    .map((o) => {
      const pod = (o['spec'] as { template: { spec: { containers: { image: string }[] } } })
        .template.spec;
      return `${o.kind} ${o.metadata.name}: ${pod.containers.map((c) => c.image).join(' ')}`;
    });
  assert.deepEqual(images.sort(), [
    'DaemonSet sluice-volume-agent: registry.internal:5000/sluice/engine:1.2',
    'Deployment sluice-agent: registry.internal:5000/sluice/engine:1.2',
    'Deployment sluice-provisioner: registry.internal:5000/sluice/engine:1.2',
  ]);
  const spec = runtimeSpecFor(upgraded) as {
    runtimeScheduler: { image: string; imagePullPolicy: string };
    dockerDaemonScheduler: { dindImage: string; daemonConfig: unknown };
  };
  assert.equal(spec.runtimeScheduler.image, 'registry.internal:5000/sluice/engine:1.2');
  assert.equal(spec.runtimeScheduler.imagePullPolicy, 'Never', '--runtime-spec stays');
  assert.equal(
    spec.dockerDaemonScheduler.dindImage,
    'registry.internal:5000/sluice/dind:1.2',
    'the derived dind image moves with the tag',
  );
  assert.deepEqual(spec.dockerDaemonScheduler.daemonConfig, {
    registryMirrors: ['http://mirror.internal:5000'],
    insecureRegistries: ['mirror.internal:5000'],
  });
});

test('the same settings give the same record text, whatever order they were given in', () => {
  const flags = installFlags();
  const first = resolveRunnerSettings(flags, {}, DEFAULTS);
  const reordered = resolveRunnerSettings(
    { ...flags, setValue: [...(flags.setValue ?? [])].reverse() },
    {},
    DEFAULTS,
  );
  const text = (s: RunnerSettings) => installRecordObject(s, {})['data'];
  assert.deepEqual(text(reordered), text(first));
  assert.deepEqual(text(rerun(first)), text(first));
  const record = JSON.stringify(text(first));
  assert.ok(!record.includes('"token"'), 'the agent token is never recorded');
});

test('a ConfigMap that is not a record is refused, naming it and the fix', () => {
  for (const data of [{}, { 'settings.json': '{' }, { 'settings.json': '{"version":2}' }]) {
    try {
      parseInstallRecord({ metadata: { name: 'sluice-install', namespace: 'ci' }, data });
      assert.fail('accepted');
    } catch (err) {
      assert.ok(isSluiceError(err), String(err));
      assert.equal(err.code, 'SLUICE_RUNNER_RECORD_INVALID');
      assert.match(err.message, /ConfigMap ci\/sluice-install/);
      assert.match(err.hint ?? '', /kubectl -n ci delete configmap sluice-install/);
    }
  }
});
