import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isSluiceError } from '@sluice/errors';
import { installObjects, runtimeSpecFor } from './runner-install.js';
import { checkRuntimeSpec } from './runner-init.js';
import { recordOf } from './install-record.js';
import { runtimeChanges } from './runner-steps.js';
import { resolveRunnerSettings } from './runner-settings.js';
import { equivalentCommand } from './equivalent-command.js';

const DEFAULTS = { contextName: 'prod@Cluster', env: {} };

function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    assert.ok(isSluiceError(err), String(err));
    assert.equal(err.code, 'SLUICE_RUNNER_SETTINGS_INVALID');
    return (err.details?.['problems'] as string[]) ?? [];
  }
  assert.fail('no error');
}

test('defaults: namespace sluice, runtime and agent named from the context, builds beside the agent', () => {
  const settings = resolveRunnerSettings(
    {},
    {},
    { ...DEFAULTS, controlPlaneUrl: 'http://ci:8080' },
  );
  assert.equal(settings.namespace, 'sluice');
  assert.equal(settings.values.runtime.name, 'prod-cluster/sluice');
  assert.equal(settings.values.runtime.namespace, 'sluice');
  assert.equal(settings.values.runtime.createNamespace, false);
  assert.equal(settings.agentName, 'prod-cluster-sluice');
  assert.equal(settings.values.controlPlane.url, 'http://ci:8080');
  assert.equal(settings.testPipeline, true);
  assert.equal(settings.setDefault, false);
});

test('flags win over --set-value, which wins over the values file, which wins over answers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'runner-settings-'));
  const file = join(dir, 'values.yaml');
  writeFileSync(
    file,
    'controlPlane:\n  url: http://from-file:1\nruntime:\n  name: file/rt\nagent:\n  replicas: 2\n  concurrency: 3\n',
  );
  const settings = resolveRunnerSettings(
    {
      values: file,
      setValue: ['agent.concurrency=7', 'runtime.name=set/rt'],
      controlPlaneUrl: 'http://from-flag:2',
    },
    { controlPlaneUrl: 'http://from-answer:3', runtime: 'answer/rt' },
    DEFAULTS,
  );
  assert.equal(settings.values.controlPlane.url, 'http://from-flag:2');
  assert.equal(settings.values.runtime.name, 'set/rt');
  assert.equal(settings.values.agent.replicas, 2);
  assert.equal(settings.values.agent.concurrency, 7, '--set-value numbers are numbers');
});

test("a rerun: the record fills what is not given; the wizard's answers win over it", () => {
  const first = resolveRunnerSettings(
    {
      runtime: 'rec/rt',
      controlPlaneUrl: 'http://recorded:1',
      warmVolumes: true,
      buildNodeSelector: 'pool=ci',
      buildToleration: ['ci=yes:NoSchedule'],
    },
    {},
    DEFAULTS,
  );
  const stored = recordOf(first);
  const kept = resolveRunnerSettings({}, {}, { ...DEFAULTS, stored });
  assert.equal(kept.values.runtime.name, 'rec/rt');
  assert.equal(kept.values.controlPlane.url, 'http://recorded:1');
  assert.equal(kept.values.volumes?.enabled, true);
  assert.deepEqual(kept.buildNodeSelector, { pool: 'ci' });
  assert.equal(kept.buildTolerations.length, 1);

  // The wizard asked with the record's settings as defaults; these were changed.
  const answered = resolveRunnerSettings(
    {},
    {
      runtime: 'new/rt',
      controlPlaneUrl: 'http://answered:2',
      warmVolumes: false,
      buildNodeSelector: '',
      buildTolerations: '',
    },
    { ...DEFAULTS, stored },
  );
  assert.equal(answered.values.runtime.name, 'new/rt');
  assert.equal(answered.values.controlPlane.url, 'http://answered:2');
  assert.equal(answered.values.volumes?.enabled, false, 'a "no" turns warm volumes off');
  assert.deepEqual(answered.buildNodeSelector, {}, 'an emptied answer clears the selector');
  assert.deepEqual(answered.buildTolerations, []);
  // And so does the patch of the registered runtime, which a merge would otherwise keep.
  const registered = runtimeSpecFor(kept);
  const changes = runtimeChanges(registered, runtimeSpecFor(answered, { asPatch: true }));
  assert.ok(
    changes.some((c) => c.includes('nodeSelector')) &&
      changes.some((c) => c.includes('tolerations')),
    changes.join('\n'),
  );
  assert.deepEqual(runtimeChanges(registered, runtimeSpecFor(kept, { asPatch: true })), []);

  // Values given now still win over an answer.
  const given = resolveRunnerSettings(
    { setValue: ['runtime.name=set/rt'] },
    { runtime: 'new/rt' },
    { ...DEFAULTS, stored },
  );
  assert.equal(given.values.runtime.name, 'set/rt');
});

test('the proxy comes from the environment unless given, and reaches the builds', () => {
  const settings = resolveRunnerSettings(
    { controlPlaneUrl: 'http://ci' },
    {},
    { ...DEFAULTS, env: { HTTPS_PROXY: 'http://proxy:3128', no_proxy: '10.0.0.0/8' } },
  );
  assert.deepEqual(settings.values.proxy, {
    httpProxy: '',
    httpsProxy: 'http://proxy:3128',
    noProxy: '10.0.0.0/8',
  });
  // The runtime's own proxy: the engine, dind and the steps use it; an empty one is left out.
  assert.deepEqual(runtimeSpecFor(settings)['proxy'], {
    httpsProxy: 'http://proxy:3128',
    noProxy: '10.0.0.0/8',
  });
  const none = resolveRunnerSettings({ controlPlaneUrl: 'http://ci' }, {}, DEFAULTS);
  assert.equal(runtimeSpecFor(none)['proxy'], undefined);
});

test('every problem is reported at once, naming the flag or field', () => {
  const dir = mkdtempSync(join(tmpdir(), 'runner-settings-'));
  const bad = join(dir, 'bad.yaml');
  writeFileSync(bad, 'agent:\n  replicas: [1\n');
  const found = problems(() =>
    resolveRunnerSettings(
      {
        namespace: 'Bad_NS',
        buildNamespace: 'kube-system',
        buildNodeSelector: 'disk',
        buildToleration: ['gpu=yes:Sometimes'],
        values: bad,
        setValue: ['novalue'],
      },
      {},
      DEFAULTS,
    ),
  );
  const text = found.join('\n');
  for (const expected of [
    '--namespace: "Bad_NS"',
    '--build-namespace (runtime.namespace): kube-system is a namespace of Kubernetes itself',
    '--build-node-selector: "disk"',
    '--build-toleration: "gpu=yes:Sometimes"',
    `--values ${bad}:3:1: Flow sequence`,
    '--set-value: "novalue"',
    '--control-plane-url (controlPlane.url) is not set',
  ])
    assert.ok(text.includes(expected), `${expected} in:\n${text}`);
});

test("--values and --set-value are checked against the chart's values schema, as Helm would", () => {
  const dir = mkdtempSync(join(tmpdir(), 'runner-settings-'));
  const file = join(dir, 'values.yaml');
  writeFileSync(file, 'volumes:\n  enabeld: true\nagent:\n  replicas: two\n');
  const found = problems(() =>
    resolveRunnerSettings(
      {
        controlPlaneUrl: 'http://ci',
        values: file,
        setValue: ['agent.image.pullPolicy=Sometimes', 'volumes.spares=3'],
      },
      {},
      DEFAULTS,
    ),
  );
  assert.deepEqual(found, [
    `--values ${file}: volumes.enabeld: is not a value of the chart; did you mean volumes.enabled?`,
    `--values ${file}: agent.replicas: must be an integer, got string "two"`,
    '--set-value: agent.image.pullPolicy: must be one of "Always", "IfNotPresent", "Never", got string "Sometimes"',
  ]);
});

test('the runtime spec places builds and merges --runtime-spec over it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'runner-settings-'));
  const patch = join(dir, 'spec.yaml');
  writeFileSync(patch, 'dockerDaemonScheduler:\n  dindImage: my/dind:2\n');
  const settings = resolveRunnerSettings(
    {
      controlPlaneUrl: 'http://ci',
      buildNamespace: 'builds',
      storageClass: 'fast',
      buildNodeSelector: 'pool=ci',
      buildToleration: ['ci=true:NoSchedule', 'spot'],
      runtimeSpec: patch,
      imageTag: '0.2.0',
    },
    {},
    DEFAULTS,
  );
  const spec = runtimeSpecFor(settings) as {
    runtimeScheduler: { image: string; cluster: Record<string, unknown>; tolerations: unknown };
    dockerDaemonScheduler: { dindImage: string; pvcs: unknown; cluster: unknown };
  };
  assert.equal(spec.runtimeScheduler.image, 'sluice/engine:0.2.0');
  assert.deepEqual(spec.runtimeScheduler.cluster, {
    namespace: 'builds',
    inCluster: true,
    serviceAccount: 'sluice-engine',
    nodeSelector: { pool: 'ci' },
  });
  assert.deepEqual(spec.runtimeScheduler.tolerations, [
    { key: 'ci', operator: 'Equal', value: 'true', effect: 'NoSchedule' },
    { key: 'spot', operator: 'Exists' },
  ]);
  assert.deepEqual(spec.dockerDaemonScheduler.pvcs, { dind: { storageClassName: 'fast' } });
  assert.equal(spec.dockerDaemonScheduler.dindImage, 'my/dind:2');
  assert.equal(settings.values.runtime.createNamespace, true);
});

test('objects come in apply order, with both namespaces', () => {
  const settings = resolveRunnerSettings(
    { controlPlaneUrl: 'http://ci', buildNamespace: 'builds' },
    {},
    DEFAULTS,
  );
  const objects = installObjects(settings, 'tok');
  assert.deepEqual(
    objects.map((o) => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`),
    [
      'Namespace /builds',
      'Namespace /sluice',
      'ServiceAccount sluice/sluice-agent',
      'ServiceAccount builds/sluice-engine',
      'Secret sluice/sluice-agent',
      'ConfigMap sluice/sluice-install',
      'Role builds/sluice-agent',
      'RoleBinding builds/sluice-agent',
      'Deployment sluice/sluice-agent',
    ],
  );
});

test('--warm-volumes installs the volume provisioner and points the runtime at its class; --storage-class wins', () => {
  const context = { ...DEFAULTS, controlPlaneUrl: 'http://ci:8080' };
  const warm = resolveRunnerSettings({ warmVolumes: true, buildNamespace: 'builds' }, {}, context);
  assert.equal(warm.values.volumes?.enabled, true);
  const kinds = installObjects(warm, 't').map((o) => `${o.kind}/${o.metadata.name}`);
  assert.ok(kinds.includes('StorageClass/sluice-volumes-builds'), kinds.join(' '));
  assert.ok(kinds.includes('Deployment/sluice-provisioner'), kinds.join(' '));
  const claimClass = (settings: typeof warm) =>
    (
      runtimeSpecFor(settings)['dockerDaemonScheduler'] as {
        pvcs?: { dind?: { storageClassName?: string } };
      }
    ).pvcs?.dind?.storageClassName;
  assert.equal(claimClass(warm), 'sluice-volumes-builds');
  const named = resolveRunnerSettings(
    { warmVolumes: true, buildNamespace: 'builds', storageClass: 'fast' },
    {},
    context,
  );
  assert.equal(claimClass(named), 'fast');
  const cold = resolveRunnerSettings({ buildNamespace: 'builds' }, {}, context);
  assert.equal(cold.values.volumes, undefined);
  assert.ok(!installObjects(cold, 't').some((o) => o.kind === 'StorageClass'));
  assert.equal(claimClass(cold), undefined);
});

test('--storage-class-delegate: warm volumes from the cluster class, no volume agent, the line to repeat it; bad flags named', () => {
  const context = { ...DEFAULTS, controlPlaneUrl: 'http://ci:8080' };
  const cloud = resolveRunnerSettings(
    { storageClassDelegate: 'ebs-gp3', buildNamespace: 'builds' },
    {},
    context,
  );
  assert.deepEqual(cloud.values.volumes, {
    enabled: true,
    volumeBackend: 'delegate',
    delegateStorageClass: 'ebs-gp3',
  });
  const objects = installObjects(cloud, 't');
  assert.ok(!objects.some((o) => o.kind === 'DaemonSet'), 'no volume agent');
  // Rights: the driver makes volumes (no create); the provisioner makes its helper claims.
  const verbs = (kind: string) =>
    (
      objects.find((o) => o.kind === kind && o.metadata.name.startsWith('sluice-provisioner')) as
        { rules: Array<{ verbs: string[] }> } | undefined
    )?.rules[0]?.verbs.join(' ');
  assert.equal(verbs('ClusterRole'), 'get list watch patch delete');
  assert.equal(verbs('Role'), 'get list watch patch create delete');
  const provisioner = objects.find(
    (o) => o.metadata.name === 'sluice-provisioner' && o.kind === 'Deployment',
  );
  assert.match(
    JSON.stringify(provisioner),
    /"SLUICE_PROVISIONER_DELEGATE_STORAGE_CLASS","value":"ebs-gp3"/,
  );
  assert.match(
    equivalentCommand(cloud, 'prod', {}),
    / --warm-volumes --volume-backend delegate --storage-class-delegate ebs-gp3/,
  );
  const local = resolveRunnerSettings({ volumeBackend: 'local' }, {}, context);
  assert.deepEqual(local.values.volumes, { enabled: true, volumeBackend: 'local' });
  assert.deepEqual(
    problems(() => resolveRunnerSettings({ volumeBackend: 'delegate' }, {}, context)),
    [
      "--volume-backend delegate needs --storage-class-delegate NAME: the cluster's StorageClass of its disks (kubectl get storageclass lists them)",
    ],
  );
  assert.deepEqual(
    problems(() =>
      resolveRunnerSettings(
        { volumeBackend: 'ebs', storageClassDelegate: 'Bad_Name' },
        {},
        context,
      ),
    ),
    [
      '--volume-backend: "ebs" is not local or delegate',
      '--storage-class-delegate: "Bad_Name" is not a StorageClass name (kubectl get storageclass lists them)',
    ],
  );
});

test("--warm-pool N: the agent keeps N pods at the install's PriorityClass, the line to repeat it; a bad N is named", () => {
  const context = { ...DEFAULTS, controlPlaneUrl: 'http://ci:8080' };
  const pooled = resolveRunnerSettings({ warmPool: '3' }, {}, context);
  assert.deepEqual(pooled.values.runtime.warmPool, { minSize: 3, maxSize: 3 });
  const objects = installObjects(pooled, 't');
  const [priority, build] = objects.filter((o) => o.kind === 'PriorityClass');
  assert.equal(priority?.['value'], -1000000);
  assert.deepEqual([build?.['value'], build?.['preemptionPolicy']], [0, 'Never']);
  const agent = JSON.stringify(objects.find((o) => o.kind === 'Deployment'));
  assert.match(agent, /"SLUICE_WARM_POOL_MAX","value":"3"/);
  assert.match(
    agent,
    new RegExp(`"SLUICE_WARM_POOL_PRIORITY_CLASS","value":"${priority?.metadata.name}"`),
  );
  assert.match(
    agent,
    new RegExp(`"SLUICE_WARM_POOL_BUILD_PRIORITY_CLASS","value":"${build?.metadata.name}"`),
  );
  assert.match(equivalentCommand(pooled, 'prod', {}), / --warm-pool 3 /);
  const none = resolveRunnerSettings({}, {}, context);
  assert.ok(!installObjects(none, 't').some((o) => o.kind === 'PriorityClass'));
  assert.deepEqual(
    problems(() => resolveRunnerSettings({ warmPool: 'lots' }, {}, context)),
    ['--warm-pool: "lots" is not a number of pods from 0 to 100'],
  );
});

test('air-gapped: the dind image follows the agent image registry and tag; mirrors reach daemon.json', () => {
  const spec = (flags: Parameters<typeof resolveRunnerSettings>[0]) =>
    runtimeSpecFor(
      resolveRunnerSettings({ controlPlaneUrl: 'http://ci', ...flags }, {}, DEFAULTS),
    ) as {
      runtimeScheduler: { image: string };
      dockerDaemonScheduler: { dindImage?: string; daemonConfig?: unknown };
    };
  // Defaults: the tags images/build-cluster-images.sh makes, no registry settings.
  const plain = spec({});
  assert.equal(plain.runtimeScheduler.image, 'sluice/engine:1');
  assert.equal(plain.dockerDaemonScheduler.dindImage, 'sluice/dind:1');
  assert.equal(plain.dockerDaemonScheduler.daemonConfig, undefined);
  // The images pushed to a registry of one's own, as the script tags them with --registry.
  const mirrored = spec({
    imageRepository: 'registry.internal:5000/sluice/engine',
    imageTag: '1.1',
    registryMirror: ['http://registry.internal:5000'],
    insecureRegistry: ['registry.internal:5000', '10.0.0.0/8'],
  });
  assert.equal(mirrored.runtimeScheduler.image, 'registry.internal:5000/sluice/engine:1.1');
  assert.equal(mirrored.dockerDaemonScheduler.dindImage, 'registry.internal:5000/sluice/dind:1.1');
  assert.deepEqual(mirrored.dockerDaemonScheduler.daemonConfig, {
    registryMirrors: ['http://registry.internal:5000'],
    insecureRegistries: ['registry.internal:5000', '10.0.0.0/8'],
  });
  // An engine image named otherwise says nothing of dind: --dind-image does.
  assert.equal(
    spec({ imageRepository: 'acme/ci-runner' }).dockerDaemonScheduler.dindImage,
    undefined,
  );
  assert.equal(spec({ dindImage: 'acme/dind:7' }).dockerDaemonScheduler.dindImage, 'acme/dind:7');
  assert.deepEqual(
    problems(() =>
      resolveRunnerSettings(
        {
          controlPlaneUrl: 'http://ci',
          dindImage: 'Not An Image',
          registryMirror: ['registry.internal:5000'],
          insecureRegistry: ['http://registry.internal'],
        },
        {},
        DEFAULTS,
      ),
    ),
    [
      '--dind-image: "Not An Image" is not an image reference',
      '--registry-mirror: "registry.internal:5000" is not a registry URL (http://HOST:PORT or https://HOST)',
      '--insecure-registry: "http://registry.internal" is not HOST[:PORT] or a CIDR range',
    ],
  );
});

test('a --runtime-spec field the schema does not know fails before the plan, naming it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'runner-settings-'));
  const file = join(dir, 'spec.yaml');
  writeFileSync(file, 'dockerDaemonScheduler:\n  dindImag: sluice/dind:2\n');
  const settings = resolveRunnerSettings(
    { controlPlaneUrl: 'http://ci', runtimeSpec: file },
    {},
    DEFAULTS,
  );
  const found = problems(() => checkRuntimeSpec(settings, file));
  assert.equal(found.length, 1, found.join('\n'));
  assert.match(
    found[0] ?? '',
    new RegExp(`^--runtime-spec ${file}: dockerDaemonScheduler\\b.*dindImag`),
  );
  const good = resolveRunnerSettings({ controlPlaneUrl: 'http://ci' }, {}, DEFAULTS);
  checkRuntimeSpec(good, undefined);
});
