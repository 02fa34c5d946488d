import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InputError } from '@sluice/errors';
import { runtimeScheduler } from '../schema/engine-scheduler.js';
import { dockerDaemonScheduler } from '../schema/dind-scheduler.js';
import { labelValue } from '@sluice/labels';
import { renderDindService } from './dind-pod.js';
import {
  renderBuildObjects,
  REUSE_ANNOTATIONS,
  RUNTIME_NAME_ANNOTATION,
} from './render-build-objects.js';
import type { KubeObject } from './pod-common.js';
import {
  objectList,
  at,
  BUILD,
  defaultSpec,
  envOf,
  fullSpec,
  validateKube,
} from './render-fixtures.test-support.js';

const { tls } = BUILD;
const tlsTexts = [tls.caPem, tls.dindCertPem, tls.dindKeyPem, tls.clientCertPem, tls.clientKeyPem];
const ID = BUILD.buildId.toLowerCase();

/** The first container of `pod` has `name` set to the plain `value`. */
function assertEnvValue(pod: KubeObject, name: string, value: string): void {
  assert.deepEqual(envOf(pod, name), { name, value });
}

test('system/default/k8s renders objects valid against the Kubernetes schemas', () => {
  const objects = renderBuildObjects(defaultSpec(), BUILD);
  for (const [, object] of objectList(objects)) validateKube(object);
  validateKube(renderDindService('builds'));
  assert.deepEqual(
    objectList(objects).map(([, o]) => `${o.kind}/${o.metadata.name}`),
    [
      `PersistentVolumeClaim/pvc-dind-${ID}`,
      `Secret/sluice-engine-${ID}`,
      `ConfigMap/dind-config-${ID}`,
      `Pod/dind-${ID}`,
      `Pod/engine-${ID}`,
    ],
  );
  for (const [, object] of objectList(objects)) {
    assert.equal(object.metadata.namespace, 'builds');
    assert.equal(object.metadata.labels['sluice.io/build-id'], BUILD.buildId);
    assert.equal(object.metadata.labels['app.kubernetes.io/managed-by'], 'sluice');
    assert.equal(object.metadata.labels['sluice.io/runtime'], labelValue(BUILD.runtimeName));
  }
});

test('the full spec renders valid objects', () => {
  for (const [, object] of objectList(renderBuildObjects(fullSpec(), BUILD))) validateKube(object);
});

/** daemon.json of the full spec, whose clientCertPath is /etc/ssl/sluice. */
const DAEMON_JSON = {
  hosts: ['unix:///var/run/docker.sock', 'tcp://0.0.0.0:1300'],
  tls: true,
  tlsverify: true,
  tlscacert: '/etc/ssl/sluice/ca.pem',
  tlscert: '/etc/ssl/sluice/server-cert.pem',
  tlskey: '/etc/ssl/sluice/server-key.pem',
  mtu: 1440,
  'registry-mirrors': ['https://mirror.gcr.io'],
  'insecure-registries': ['registry.internal:5000', '10.20.0.0/16'],
};
const DAEMON_JSON_WITH_CERT_DIR = `${JSON.stringify(DAEMON_JSON, null, 2)}\n`;

// Spec field → where it lands: [object, JSON path, expected value].
const FIELDS: Record<string, [keyof ReturnType<typeof renderBuildObjects>, string, unknown][]> = {
  'runtimeScheduler.image': [
    ['enginePod', 'spec.containers[0].image', 'registry.example.com/sluice/engine:0.1.0'],
  ],
  'runtimeScheduler.imagePullPolicy': [
    ['enginePod', 'spec.containers[0].imagePullPolicy', 'Always'],
  ],
  'runtimeScheduler.command': [['enginePod', 'spec.containers[0].command', ['sluice', 'engine']]],
  'runtimeScheduler.resources': [
    ['enginePod', 'spec.containers[0].resources.limits.memory', '2Gi'],
  ],
  'runtimeScheduler.cluster.namespace': [['enginePod', 'metadata.namespace', 'sluice-builds']],
  'runtimeScheduler.cluster.serviceAccount': [
    ['enginePod', 'spec.serviceAccountName', 'sluice-engine'],
  ],
  'runtimeScheduler.cluster.nodeSelector': [
    ['enginePod', 'spec.nodeSelector["node.kubernetes.io/instance-type"]', 'm5.xlarge'],
  ],
  'runtimeScheduler.affinity': [
    [
      'enginePod',
      'spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight',
      10,
    ],
  ],
  'runtimeScheduler.tolerations': [['enginePod', 'spec.tolerations[1].tolerationSeconds', 300]],
  'runtimeScheduler.annotations': [
    ['enginePod', 'metadata.annotations', { 'iam.amazonaws.com/role': 'sluice-engine' }],
  ],
  'runtimeScheduler.labels': [['enginePod', 'metadata.labels.team', 'platform']],
  'runtimeScheduler.schedulerName': [['enginePod', 'spec.schedulerName', 'default-scheduler']],
  'runtimeScheduler.terminationGracePeriodSeconds': [
    ['enginePod', 'spec.terminationGracePeriodSeconds', 180],
  ],
  'runtimeScheduler.dnsPolicy': [['enginePod', 'spec.dnsPolicy', 'ClusterFirst']],
  'runtimeScheduler.dnsConfig': [['enginePod', 'spec.dnsConfig.options[0].value', '2']],
  'dockerDaemonScheduler.dindImage': [
    ['dindPod', 'spec.containers[0].image', 'registry.example.com/sluice/dind:0.1.0'],
  ],
  'dockerDaemonScheduler.imagePullPolicy': [
    ['dindPod', 'spec.containers[0].imagePullPolicy', 'IfNotPresent'],
  ],
  'dockerDaemonScheduler.cluster.serviceAccount': [
    ['dindPod', 'spec.serviceAccountName', 'sluice-dind'],
  ],
  'dockerDaemonScheduler.cluster.nodeSelector': [
    ['dindPod', 'spec.nodeSelector', { 'topology.kubernetes.io/zone': 'eu-west-1a' }],
  ],
  'dockerDaemonScheduler.affinity': [
    [
      'dindPod',
      'spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution',
      [],
    ],
  ],
  'dockerDaemonScheduler.tolerations': [['dindPod', 'spec.tolerations[0].key', 'sluice.io/dind']],
  'dockerDaemonScheduler.annotations': [
    [
      'dindPod',
      'metadata.annotations',
      { 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'false' },
    ],
  ],
  'dockerDaemonScheduler.labels': [['dindPod', 'metadata.labels.team', 'platform']],
  'dockerDaemonScheduler.schedulerName': [['dindPod', 'spec.schedulerName', 'dind-scheduler']],
  'dockerDaemonScheduler.terminationGracePeriodSeconds': [
    ['dindPod', 'spec.terminationGracePeriodSeconds', 300],
  ],
  'dockerDaemonScheduler.dnsPolicy': [['dindPod', 'spec.dnsPolicy', 'None']],
  'dockerDaemonScheduler.dnsConfig': [['dindPod', 'spec.dnsConfig.nameservers', ['10.0.0.10']]],
  'dockerDaemonScheduler.defaultDindResources': [
    ['dindPod', 'spec.containers[0].resources.requests.ephemeral-storage', '1Gi'],
  ],
  'dockerDaemonScheduler.podSecurityContext': [
    ['dindPod', 'spec.securityContext', { fsGroup: 1000, fsGroupChangePolicy: 'OnRootMismatch' }],
  ],
  'dockerDaemonScheduler.containerSecurityContext': [
    ['dindPod', 'spec.containers[0].securityContext', { privileged: true }],
  ],
  'dockerDaemonScheduler.initContainers': [
    ['dindPod', 'spec.initContainers[0].volumeMounts[0].name', 'dind'],
  ],
  'dockerDaemonScheduler.clientCertPath': [
    ['dindPod', 'spec.containers[0].volumeMounts[1].mountPath', '/etc/ssl/sluice/'],
    ['configMap', 'data["daemon.json"]', DAEMON_JSON_WITH_CERT_DIR],
  ],
  'dockerDaemonScheduler.volumeMounts': [
    [
      'dindPod',
      'spec.containers[0].volumeMounts[3]',
      { name: 'docker-config', mountPath: '/etc/docker/certs.d' },
    ],
  ],
  'dockerDaemonScheduler.volumes': [
    ['dindPod', 'spec.volumes[3].configMap.name', 'registry-certs'],
  ],
  'dockerDaemonScheduler.userVolumeMounts': [
    ['dindPod', 'spec.containers[0].volumeMounts[4].mountPath', '/etc/ssl/corporate'],
  ],
  'dockerDaemonScheduler.userVolumes': [
    ['dindPod', 'spec.volumes[4].secret.secretName', 'corporate-ca'],
  ],
  'dockerDaemonScheduler.pvcs.dind.name': [['pvc', 'metadata.name', `pvc-dind-${ID}`]],
  'dockerDaemonScheduler.pvcs.dind.storageClassName': [
    ['pvc', 'spec.storageClassName', 'dind-ebs-eu-west-1a'],
  ],
  'dockerDaemonScheduler.pvcs.dind.volumeSize': [
    ['pvc', 'spec.resources.requests.storage', '30Gi'],
  ],
  'dockerDaemonScheduler.pvcs.dind.annotations': [
    ['pvc', 'metadata.annotations["sluice.io/volume-retention"]', '7d'],
  ],
};

test('every field of the full spec lands where the table says', () => {
  const objects = renderBuildObjects(fullSpec(), BUILD);
  for (const [field, places] of Object.entries(FIELDS)) {
    for (const [object, path, expected] of places) {
      assert.deepEqual(at(objects[object], path), expected, `${field} → ${object}.${path}`);
    }
  }
  const pvc = objects.pvc.metadata;
  assert.equal(pvc.annotations?.['sluice.io/volume-retention'], '7d');
  assert.equal(
    pvc.annotations?.[REUSE_ANNOTATIONS.selector],
    'sluice.io/app,sluice.io/pipeline-id,sluice.io/branch',
  );
  assert.equal(pvc.annotations?.[REUSE_ANNOTATIONS.sortOrder], 'sluice.io/trigger');
  assert.equal(pvc.annotations?.[RUNTIME_NAME_ANNOTATION], 'prod-eks/sluice-builds');
  const engineSpec = objects.enginePod.spec as { nodeSelector: Record<string, string> };
  assert.equal(engineSpec.nodeSelector['node.kubernetes.io/instance-type'], 'm5.xlarge');
  const daemon = JSON.parse(
    (at(objects.configMap, 'data') as Record<string, string>)['daemon.json']!,
  ) as Record<string, unknown>;
  assert.equal(daemon.tlscert, '/etc/ssl/sluice/server-cert.pem');
});

test('every scheduler field is in the table, an env variable, or named as not rendered', () => {
  const elsewhere = new Set([
    'runtimeScheduler.type', // chooses this renderer
    'runtimeScheduler.dockerHost', // LocalDocker only
    'runtimeScheduler.cluster', // its parts are in the table
    'runtimeScheduler.envVars', // env test
    'runtimeScheduler.userEnvVars', // env test
    'runtimeScheduler.workflowLimits', // env test
    'runtimeScheduler.infrastructureRetries', // the control plane's, on a pod failure
    'runtimeScheduler.buildLogLimit', // the control plane gives it to the engine with the build
    'dockerDaemonScheduler.type',
    'dockerDaemonScheduler.cluster',
    'dockerDaemonScheduler.envVars', // proxy test
    'dockerDaemonScheduler.userAccess', // env test
    'dockerDaemonScheduler.pvcs', // its parts are in the table
    'dockerDaemonScheduler.daemonConfig', // daemonConfig test
  ]);
  const fields = [
    ...Object.keys(runtimeScheduler.shape).map((k) => `runtimeScheduler.${k}`),
    ...Object.keys(dockerDaemonScheduler.shape).map((k) => `dockerDaemonScheduler.${k}`),
  ];
  const missing = fields.filter((f) => !(f in FIELDS) && !elsewhere.has(f));
  assert.deepEqual(missing, []);
});

test('the engine gets its settings as env, and userEnvVars under SLUICE_USER_ENV_ (SLUICE_USER_SECRET_ENV_ from a Secret)', () => {
  const { enginePod } = renderBuildObjects(fullSpec(), BUILD);
  const host = `dind-${ID}.sluice-dind.sluice-builds.svc`;
  assertEnvValue(enginePod, 'DOCKER_HOST', `tcp://${host}:1300`);
  assertEnvValue(enginePod, 'DOCKER_TLS_VERIFY', '1');
  assertEnvValue(enginePod, 'SLUICE_SERVER_URL', 'https://sluice.example.com');
  assertEnvValue(enginePod, 'LOG_LEVEL', 'debug');
  assert.deepEqual(envOf(enginePod, 'SLUICE_USER_SECRET_ENV_NPM_TOKEN'), {
    name: 'SLUICE_USER_SECRET_ENV_NPM_TOKEN',
    valueFrom: { secretKeyRef: { name: 'npm-credentials', key: 'token' } },
  });
  assertEnvValue(enginePod, 'SLUICE_USER_ENV_TEAM', 'platform');
  const limits = envOf(enginePod, 'SLUICE_WORKFLOW_LIMITS') as { value: string };
  assert.equal(
    (JSON.parse(limits.value) as Record<string, number>).TIME_INACTIVE_UNTIL_TERMINATION,
    1800,
  );
  const mounts = envOf(enginePod, 'SLUICE_USER_VOLUME_MOUNTS') as { value: string };
  assert.deepEqual(JSON.parse(mounts.value), [
    { name: 'corporate-ca', mountPath: '/etc/ssl/corporate', readOnly: true },
  ]);
  assertEnvValue(enginePod, 'SLUICE_DIND_USER_ACCESS', 'true');
  // Without a URL of its own the spec falls back on the build's.
  const plain = renderBuildObjects(defaultSpec(), BUILD).enginePod;
  assertEnvValue(plain, 'SLUICE_SERVER_URL', BUILD.controlPlaneUrl);
});

test('a user envVar cannot replace what the engine needs', () => {
  const spec = fullSpec();
  spec.runtimeScheduler!.envVars = { DOCKER_HOST: 'tcp://elsewhere:2375' };
  const env = at(renderBuildObjects(spec, BUILD).enginePod, 'spec.containers[0].env') as {
    name: string;
  }[];
  assert.equal(env.filter((e) => e.name === 'DOCKER_HOST').length, 1);
  assert.match(
    JSON.stringify(envOf(renderBuildObjects(spec, BUILD).enginePod, 'DOCKER_HOST')),
    /sluice-dind/,
  );
});

test('secrets are only in the Secret; the pods reference them', () => {
  const objects = renderBuildObjects(fullSpec(), BUILD);
  // As they appear inside JSON text, newlines escaped.
  const secrets = [BUILD.engineToken, ...tlsTexts].map((s) => JSON.stringify(s).slice(1, -1));
  for (const [name, object] of objectList(objects)) {
    const text = JSON.stringify(object);
    for (const secret of secrets) {
      assert.equal(text.includes(secret), name === 'secret', `${name} and ${secret.slice(0, 20)}`);
    }
  }
  assert.deepEqual(envOf(objects.enginePod, 'SLUICE_ENGINE_TOKEN'), {
    name: 'SLUICE_ENGINE_TOKEN',
    valueFrom: { secretKeyRef: { name: `sluice-engine-${ID}`, key: 'engine-token' } },
  });
  const items = (pod: unknown, index: number) =>
    (at(pod, `spec.volumes[${index}].secret.items`) as { key: string }[]).map((i) => i.key);
  assert.deepEqual(items(objects.enginePod, 0), ['ca.pem', 'cert.pem', 'key.pem']);
  assert.deepEqual(items(objects.dindPod, 1), ['ca.pem', 'server-cert.pem', 'server-key.pem']);
});

test('proxy reaches engine and dind, with dind itself reached directly', () => {
  const { enginePod, dindPod } = renderBuildObjects(fullSpec(), BUILD);
  for (const pod of [enginePod, dindPod]) {
    assertEnvValue(pod, 'HTTPS_PROXY', 'http://proxy.internal:3128');
    assertEnvValue(pod, 'http_proxy', 'http://proxy.internal:3128');
  }
  assertEnvValue(dindPod, 'NO_PROXY', 'localhost,127.0.0.1,.svc,.cluster.local');
  const engineNoProxy = envOf(enginePod, 'no_proxy') as { value: string };
  assert.ok(engineNoProxy.value.endsWith(`,dind-${ID}.sluice-dind.sluice-builds.svc`));
  assertEnvValue(dindPod, 'DOCKER_BUILDKIT', '1');
  assert.equal(envOf(renderBuildObjects(defaultSpec(), BUILD).enginePod, 'HTTP_PROXY'), undefined);
});

test('daemonConfig is rendered into daemon.json, mounted by subPath', () => {
  const { configMap, dindPod } = renderBuildObjects(fullSpec(), BUILD);
  const daemon = JSON.parse(
    (at(configMap, 'data') as Record<string, string>)['daemon.json']!,
  ) as unknown;
  assert.deepEqual(daemon, DAEMON_JSON);
  assert.deepEqual(at(dindPod, 'spec.containers[0].volumeMounts[2]'), {
    name: 'dind-config',
    mountPath: '/etc/docker/daemon.json',
    subPath: 'daemon.json',
    readOnly: true,
  });
  assert.deepEqual(at(dindPod, 'spec.containers[0].command'), ['/usr/bin/tini', '--', 'dockerd']);
  assert.deepEqual(at(dindPod, 'spec.volumes[0].persistentVolumeClaim'), {
    claimName: `pvc-dind-${ID}`,
  });
});

test("the engine's log spool is a directory of the build's volume, and the engine runs on its dind pod's node", () => {
  for (const spec of [defaultSpec(), fullSpec()]) {
    const { enginePod, dindPod, pvc } = renderBuildObjects(spec, BUILD);
    const volumes = at(enginePod, 'spec.volumes') as {
      name: string;
      persistentVolumeClaim?: unknown;
    }[];
    const claim = volumes.find((v) => v.persistentVolumeClaim !== undefined);
    assert.deepEqual(claim, {
      name: 'build-volume',
      persistentVolumeClaim: { claimName: pvc.metadata.name },
    });
    const mounts = at(enginePod, 'spec.containers[0].volumeMounts') as { name: string }[];
    assert.deepEqual(
      mounts.find((m) => m.name === 'build-volume'),
      { name: 'build-volume', mountPath: '/var/lib/sluice/log-spool', subPath: 'sluice-log-spool' },
    );
    assertEnvValue(enginePod, 'SLUICE_LOG_SPOOL_DIR', '/var/lib/sluice/log-spool');
    assertEnvValue(enginePod, 'SLUICE_LOG_SPOOL_ONE_BUILD', '1');
    const required = at(
      enginePod,
      'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution',
    ) as { labelSelector: { matchLabels: Record<string, string> }; topologyKey: string }[];
    const term = required.at(-1);
    assert.equal(term?.topologyKey, 'kubernetes.io/hostname');
    // The term selects the build's dind pod, and no other pod.
    for (const [key, value] of Object.entries(term?.labelSelector.matchLabels ?? {}))
      assert.equal(dindPod.metadata.labels[key], value, key);
    assert.equal(term?.labelSelector.matchLabels['sluice.io/component'], 'dind');
    assert.equal(term?.labelSelector.matchLabels['sluice.io/build-id'], BUILD.buildId);
    validateKube(enginePod);
  }
  // The spec's own affinity stays beside it.
  const { enginePod } = renderBuildObjects(fullSpec(), BUILD);
  assert.equal(
    at(
      enginePod,
      'spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight',
    ),
    10,
  );
});

test('the PVC carries the reuse labels, cleaned into valid values, and the pipeline size', () => {
  const { pvc } = renderBuildObjects(defaultSpec(), {
    ...BUILD,
    volumeSize: '50Gi',
    pipelineId: 'Pipe 42!',
  });
  const labels = pvc.metadata.labels;
  assert.equal(labels['sluice.io/app'], 'dind');
  assert.equal(labels['sluice.io/account-id'], 'acct-1');
  assert.equal(labels['sluice.io/project-id'], 'proj-7');
  assert.match(labels['sluice.io/pipeline-id'] ?? '', /^Pipe-42-[0-9a-f]{8}$/);
  assert.match(labels['sluice.io/branch'] ?? '', /^feature-Login_Page-[0-9a-f]{8}$/);
  assert.equal(labels['sluice.io/trigger'], 'push');
  assert.equal(at(pvc, 'spec.resources.requests.storage'), '50Gi');
  validateKube(pvc);
});

test('specs the renderer cannot serve are refused with every reason', () => {
  const spec = fullSpec();
  spec.dockerDaemonScheduler!.cluster = { namespace: 'other' };
  spec.dockerDaemonScheduler!.pvcs!.dind!.reuseVolumeSelector = 'codefresh-app,sluice.io/app';
  assert.throws(
    () => renderBuildObjects(spec, { ...BUILD, volumeSize: 'lots' }),
    (error: unknown) => {
      assert.ok(error instanceof InputError);
      assert.match(error.message, /3 problems/);
      assert.match(error.message, /dind namespace "other"/);
      assert.match(error.message, /"codefresh-app"/);
      assert.match(error.message, /"lots"/);
      return true;
    },
  );
});

test('the schema check itself rejects a broken object', () => {
  const { dindPod } = renderBuildObjects(defaultSpec(), BUILD);
  const broken = { ...dindPod, spec: { ...(dindPod.spec as object), containers: [{ image: 1 }] } };
  assert.throws(() => validateKube(broken));
});

test('clusters behind the firewall: a task for the agent to mint their tokens, read by the engine from the cluster Secret', () => {
  assert.equal(renderBuildObjects(defaultSpec(), BUILD).clusterCredentials, undefined);
  assert.equal(
    envOf(renderBuildObjects(defaultSpec(), BUILD).enginePod, 'SLUICE_CLUSTER_CREDENTIALS'),
    undefined,
  );
  const clusters = [{ name: 'shop', serviceAccount: 'sluice-cluster-shop', namespace: 'apps' }];
  const objects = renderBuildObjects(defaultSpec(), { ...BUILD, clusters });
  assert.deepEqual(objects.clusterCredentials, {
    metadata: {
      name: `sluice-clusters-${ID}`,
      namespace: 'builds',
      labels: objects.secret.metadata.labels,
    },
    boundSecret: `sluice-engine-${ID}`,
    key: 'clusters.json',
    expirationSeconds: 86_400,
    clusters,
  });
  assert.deepEqual(envOf(objects.enginePod, 'SLUICE_CLUSTER_CREDENTIALS'), {
    name: 'SLUICE_CLUSTER_CREDENTIALS',
    valueFrom: { secretKeyRef: { name: `sluice-clusters-${ID}`, key: 'clusters.json' } },
  });
  validateKube(objects.enginePod);
});
