/**
 * The sluice-runtime chart, rendered as `helm template` renders it (Go's text/template with
 * sprig, built from Debian's archive by the test kit): the default install, every documented
 * option, values refused by the schema with the field named, RBAC equal to what the agent
 * checks for, only API versions served from Kubernetes 1.20 to 1.36, and every object valid
 * against the official schemas (kubernetes-models).
 * @module
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { StorageClass } from 'kubernetes-models/storage.k8s.io/v1/StorageClass';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Secret } from 'kubernetes-models/v1/Secret';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { PriorityClass } from 'kubernetes-models/scheduling.k8s.io/v1/PriorityClass';
import { AGENT_PERMISSIONS } from '@sluice/kube';
import { renderRuntimeInstall } from '@sluice/runtime-spec';
import type { RuntimeInstallValues } from '@sluice/runtime-spec';
import { renderChart } from '@sluice/testkit';
import type { RenderChartOptions } from '@sluice/testkit';
import { REPO_ROOT } from './cli-harness.js';

const CHART = `${REPO_ROOT}charts/sluice-runtime`;
/** API versions served by every Kubernetes from 1.20 to 1.36 (DESIGN.md, "In the cluster"). */
const SERVED_EVERYWHERE = new Set([
  'v1',
  'apps/v1',
  'rbac.authorization.k8s.io/v1',
  'coordination.k8s.io/v1',
  'storage.k8s.io/v1',
  'networking.k8s.io/v1',
  // The warm pool's PriorityClass: served from 1.14 on.
  'scheduling.k8s.io/v1',
]);
const REQUIRED = {
  controlPlane: { url: 'http://sluice.example.com:8080' },
  runtime: { name: 'prod/builds' },
  agent: { token: 'slu_a_chart-test-token' },
};
/** Every agent option the chart documents, set away from its default. */
const AGENT_OPTIONS = {
  existingSecret: { name: 'agent-token', key: 'value' },
  image: { repository: 'registry.local/sluice/engine', tag: '2', pullPolicy: 'Always' },
  replicas: 2,
  concurrency: 4,
  drainSeconds: 120,
  httpPort: 9090,
  resources: { limits: { memory: '512Mi' } },
  nodeSelector: { pool: 'ci' },
  tolerations: [{ key: 'ci', operator: 'Exists', effect: 'NoSchedule' }],
  runtimesSecret: 'remote-runtimes',
};
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  PriorityClass,
  ClusterRole,
  ClusterRoleBinding,
  StorageClass,
  DaemonSet,
  Deployment,
  Role,
  RoleBinding,
  Namespace,
  Secret,
  ServiceAccount,
};

type K8sObject = Record<string, unknown> & {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
};

async function render(options: RenderChartOptions): Promise<K8sObject[]> {
  const result = await renderChart(CHART, { release: 'rt', namespace: 'sluice', ...options });
  assert.ok(result.ok, result.ok ? '' : result.error);
  return result.objects as K8sObject[];
}

function one(objects: K8sObject[], kind: string): K8sObject {
  const found = objects.filter((o) => o.kind === kind);
  assert.equal(found.length, 1, `one ${kind}: ${objects.map((o) => o.kind).join(', ')}`);
  return found[0] as K8sObject;
}

type Rules = { rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] };

interface Container {
  command: string[];
  image: string;
  env: {
    name: string;
    value?: string;
    valueFrom?: { secretKeyRef: { name: string; key: string } };
  }[];
  resources?: unknown;
}

function agentContainer(objects: K8sObject[]): Container {
  const deployment = one(objects, 'Deployment') as unknown as {
    spec: { template: { spec: { containers: Container[] } } };
  };
  return deployment.spec.template.spec.containers[0] as Container;
}

function env(container: Container): Record<string, unknown> {
  return Object.fromEntries(container.env.map((e) => [e.name, e.value ?? e.valueFrom]));
}

test('the default install: agent, its account, least RBAC and token Secret, all valid', async () => {
  const objects = await render({ values: REQUIRED });
  assert.deepEqual(objects.map((o) => o.kind).sort(), [
    'Deployment',
    'Role',
    'RoleBinding',
    'Secret',
    'ServiceAccount',
    'ServiceAccount',
  ]);
  const engineAccount = objects.find((o) => o.metadata.name === 'sluice-engine');
  assert.equal(engineAccount?.kind, 'ServiceAccount', 'the engine pods get their account');
  assert.equal(engineAccount?.['automountServiceAccountToken'], false);
  for (const object of objects) {
    assert.ok(SERVED_EVERYWHERE.has(object.apiVersion), `${object.kind} ${object.apiVersion}`);
    const Model = MODELS[object.kind];
    assert.ok(Model !== undefined, object.kind);
    new Model(object as never).validate();
    assert.equal(object.metadata.namespace, 'sluice');
  }
  const agent = agentContainer(objects);
  assert.equal(agent.image, 'sluice/engine:1');
  const pod = one(objects, 'Deployment') as unknown as {
    spec: { template: { metadata: { annotations?: Record<string, string> } } };
  };
  assert.deepEqual(pod.spec.template.metadata.annotations, {
    'prometheus.io/scrape': 'true',
    'prometheus.io/port': '8080',
    'prometheus.io/path': '/metrics',
  });
  assert.deepEqual(agent.command.slice(-2), ['/usr/local/lib/sluice/sluice.mjs', 'agent']);
  assert.deepEqual(env(agent), {
    SLUICE_SERVER_URL: 'http://sluice.example.com:8080',
    SLUICE_AGENT_TOKEN: { secretKeyRef: { name: 'rt-agent', key: 'token' } },
    SLUICE_IN_CLUSTER_RUNTIME: 'prod/builds',
    SLUICE_NAMESPACE: 'sluice',
    SLUICE_AGENT_CONCURRENCY: '10',
    SLUICE_AGENT_DRAIN_SECONDS: '30',
    SLUICE_AGENT_HTTP_PORT: '8080',
  });
  const secret = one(objects, 'Secret') as { stringData?: Record<string, string> };
  assert.deepEqual(secret.stringData, { token: 'slu_a_chart-test-token' });
  const binding = one(objects, 'RoleBinding') as unknown as { subjects: { name: string }[] };
  assert.deepEqual(
    binding.subjects.map((s) => s.name),
    ['rt-agent'],
  );
});

test("the Role grants exactly what the agent checks for, in the runtime's namespace only", async () => {
  const objects = await render({
    values: { ...REQUIRED, runtime: { name: 'x', namespace: 'builds' } },
  });
  const role = one(objects, 'Role') as K8sObject & Rules;
  assert.equal(role.metadata.namespace, 'builds');
  const granted = role.rules.flatMap((rule) =>
    rule.resources.flatMap((resource) =>
      rule.verbs.map((verb) => `${rule.apiGroups.join('')}/${resource}/${verb}`),
    ),
  );
  const needed = AGENT_PERMISSIONS.map((p) => `${p.group ?? ''}/${p.resource}/${p.verb}`);
  assert.deepEqual([...granted].sort(), [...needed].sort());
  assert.ok(!objects.some((o) => o.kind.startsWith('Cluster')), 'nothing cluster-wide');
  const binding = one(objects, 'RoleBinding') as K8sObject & {
    subjects: { namespace: string }[];
  };
  assert.equal(binding.metadata.namespace, 'builds');
  assert.equal(binding.subjects[0]?.namespace, 'sluice', 'the agent runs in the release namespace');
});

test('every documented option shows in the objects', async () => {
  const objects = await render({
    values: {
      ...REQUIRED,
      runtime: {
        name: 'r',
        namespace: 'builds',
        createNamespace: true,
        engineServiceAccount: { create: true, name: 'builder' },
      },
      agent: {
        ...AGENT_OPTIONS,
        extraEnv: { SLUICE_KUBE_QPS: '20' },
        serviceAccount: { create: false, name: 'existing-sa' },
      },
      proxy: {
        httpProxy: 'http://proxy:3128',
        httpsProxy: 'http://proxy:3128',
        noProxy: '10.96.0.0/12',
      },
    },
  });
  assert.deepEqual(objects.map((o) => o.kind).sort(), [
    'Deployment',
    'Namespace',
    'Role',
    'RoleBinding',
    'ServiceAccount',
  ]);
  const engineAccount = one(objects, 'ServiceAccount');
  assert.deepEqual(
    [engineAccount.metadata.namespace, engineAccount.metadata.name],
    ['builds', 'builder'],
  );
  const deployment = one(objects, 'Deployment') as unknown as {
    spec: {
      replicas: number;
      template: {
        spec: {
          serviceAccountName: string;
          terminationGracePeriodSeconds: number;
          nodeSelector: unknown;
          tolerations: unknown;
          containers: (Container & {
            imagePullPolicy: string;
            ports: { containerPort: number }[];
          })[];
        };
      };
    };
  };
  const pod = deployment.spec.template.spec;
  assert.equal(deployment.spec.replicas, 2);
  assert.equal(pod.serviceAccountName, 'existing-sa');
  assert.equal(pod.terminationGracePeriodSeconds, 130);
  assert.deepEqual(pod.nodeSelector, { pool: 'ci' });
  assert.deepEqual(pod.tolerations, [{ key: 'ci', operator: 'Exists', effect: 'NoSchedule' }]);
  const agent = pod.containers[0];
  assert.equal(agent?.image, 'registry.local/sluice/engine:2');
  assert.equal(agent?.imagePullPolicy, 'Always');
  assert.equal(agent?.ports[0]?.containerPort, 9090);
  // Maps merge with the chart's defaults, as Helm merges them.
  assert.deepEqual(agent?.resources, {
    limits: { memory: '512Mi' },
    requests: { cpu: '50m', memory: '96Mi' },
  });
  const vars = agent === undefined ? {} : env(agent);
  assert.deepEqual(vars.SLUICE_AGENT_TOKEN, {
    secretKeyRef: { name: 'agent-token', key: 'value' },
  });
  assert.equal(vars.SLUICE_AGENT_CONCURRENCY, '4');
  assert.equal(vars.SLUICE_NAMESPACE, 'builds');
  assert.equal(vars.HTTPS_PROXY, 'http://proxy:3128');
  assert.equal(vars.NO_PROXY, '10.96.0.0/12');
  assert.equal(vars.SLUICE_KUBE_QPS, '20');
  assert.equal(vars.SLUICE_AGENT_CONFIG_DIR, '/etc/sluice/runtimes');
  assert.deepEqual((pod as { volumes?: unknown }).volumes, [
    { name: 'runtimes', secret: { secretName: 'remote-runtimes' } },
  ]);
  const without = await render({ values: REQUIRED, set: { 'rbac.create': 'false' } });
  assert.ok(!without.some((o) => o.kind === 'Role' || o.kind === 'RoleBinding'));
});

test('bad values are refused before anything renders, naming the field', async () => {
  const cases: [Record<string, unknown> | undefined, Record<string, string>, RegExp][] = [
    [REQUIRED, { 'agent.replicas': '-1' }, /agent\.replicas: Must be greater than or equal to 0/],
    [REQUIRED, { 'agent.concurency': '3' }, /agent: Additional property concurency is not allowed/],
    [REQUIRED, { 'controlPlane.url': 'cp:8080' }, /controlPlane\.url/],
    [REQUIRED, { 'runtime.namespace': 'Not_A_Namespace' }, /runtime\.namespace/],
    [undefined, { 'runtime.name': 'r', 'agent.token': 't' }, /controlPlane\.url is required/],
    [{ ...REQUIRED, agent: {} }, {}, /agent\.token \(or agent\.existingSecret\.name\) is required/],
  ];
  for (const [values, set, expected] of cases) {
    const result = await renderChart(CHART, { values, set });
    assert.equal(result.ok, false, `${JSON.stringify(set)} was accepted`);
    if (!result.ok) assert.match(result.error, expected);
  }
});

test("runtime.warmPool: the agent keeps a pool, its pods at a PriorityClass of the install below every workload, the builds' own pods at one that never preempts", async () => {
  const objects = await render({
    values: { ...REQUIRED, runtime: { name: 'prod/builds', warmPool: { maxSize: 3 } } },
  });
  const classes = objects.filter((o) => o.kind === 'PriorityClass');
  for (const priority of classes) new PriorityClass(priority as never).validate();
  assert.deepEqual(
    classes.map((c) => [c.metadata.name, c['value'], c['preemptionPolicy'], c['globalDefault']]),
    [
      ['sluice-warm-pool-sluice-rt', -1000000, undefined, false],
      ['sluice-build-sluice-rt', 0, 'Never', false],
    ],
  );
  const vars = env(agentContainer(objects));
  assert.deepEqual(
    [
      vars['SLUICE_WARM_POOL_MIN'],
      vars['SLUICE_WARM_POOL_MAX'],
      vars['SLUICE_WARM_POOL_MODE'],
      vars['SLUICE_WARM_POOL_PRIORITY_CLASS'],
      vars['SLUICE_WARM_POOL_BUILD_PRIORITY_CLASS'],
    ],
    ['0', '3', 'fixed', 'sluice-warm-pool-sluice-rt', 'sluice-build-sluice-rt'],
  );
  const none = await render({ values: REQUIRED });
  assert.ok(!none.some((o) => o.kind === 'PriorityClass'), 'no pool, no PriorityClass');
  assert.equal(env(agentContainer(none))['SLUICE_WARM_POOL_MAX'], undefined);
});

test('`sluice runner init` makes the same objects as the chart for the same values', async () => {
  const valueSets: RuntimeInstallValues[] = [
    REQUIRED,
    {
      controlPlane: { url: 'https://ci.example.com' },
      runtime: { name: 'r', namespace: 'builds', createNamespace: true, dindHostAlias: true },
      agent: {
        ...AGENT_OPTIONS,
        extraEnv: { SLUICE_KUBE_QPS: '20', A_FIRST: 'x' },
        serviceAccount: { create: true, name: 'runner', annotations: { 'iam/role': 'ci' } },
      },
      rbac: { create: true },
      proxy: {
        httpProxy: 'http://proxy:3128',
        httpsProxy: 'http://proxy:3128',
        noProxy: '10.96.0.0/12',
      },
    },
    {
      ...REQUIRED,
      rbac: { create: false },
      agent: { token: 't', serviceAccount: { create: false } },
    },
    { ...REQUIRED, volumes: { enabled: true } },
    {
      ...REQUIRED,
      runtime: { name: 'r', namespace: 'builds' },
      agent: { ...AGENT_OPTIONS },
      volumes: {
        enabled: true,
        storageClass: 'warm',
        parentDir: '/mnt/ci-volumes',
        spares: 4,
        replicas: 3,
        leaseSeconds: 30,
        retentionDays: 0,
        diskThreshold: 0.9,
        inodeThreshold: 0.75,
        resources: { limits: { memory: '256Mi' } },
      },
    },
    {
      ...REQUIRED,
      runtime: { name: 'r', namespace: 'builds' },
      volumes: { enabled: true, volumeBackend: 'delegate', delegateStorageClass: 'gp3' },
    },
    { ...REQUIRED, runtime: { name: 'r', warmPool: { maxSize: 3 } } },
    {
      ...REQUIRED,
      runtime: {
        name: 'r',
        namespace: 'builds',
        warmPool: { minSize: 1, maxSize: 4, mode: 'adaptive' },
      },
    },
  ];
  const key = (o: { kind: string; metadata: { name: string } }) => `${o.kind}/${o.metadata.name}`;
  for (const values of valueSets) {
    const chart = await render({ values: values as unknown as Record<string, unknown> });
    const wizard = renderRuntimeInstall({
      release: 'rt',
      namespace: 'sluice',
      values,
      managedBy: 'Helm',
    });
    assert.deepEqual(
      [...wizard].sort((a, b) => key(a).localeCompare(key(b))),
      [...chart].sort((a, b) => key(a).localeCompare(key(b))),
      JSON.stringify(values),
    );
  }
});

test('volumes.enabled: the provisioner, its StorageClass and its rights, cluster-wide only for volumes, nodes and the class', async () => {
  const objects = await render({
    values: {
      ...REQUIRED,
      runtime: { name: 'r', namespace: 'builds' },
      volumes: { enabled: true },
    },
  });
  const mine = objects.filter(
    (o) =>
      (o.metadata as { labels?: Record<string, string> }).labels?.['app.kubernetes.io/name'] ===
      'sluice-provisioner',
  );
  assert.deepEqual(
    mine.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`).sort(),
    [
      'ClusterRole//rt-provisioner-sluice',
      'ClusterRoleBinding//rt-provisioner-sluice',
      'DaemonSet/sluice/rt-volume-agent',
      'Deployment/sluice/rt-provisioner',
      'Role/builds/rt-provisioner',
      'RoleBinding/builds/rt-provisioner',
      'ServiceAccount/sluice/rt-provisioner',
      'StorageClass//sluice-volumes-builds',
    ],
  );
  for (const object of mine) {
    assert.ok(SERVED_EVERYWHERE.has(object.apiVersion), `${object.kind} ${object.apiVersion}`);
    new MODELS[object.kind]!(object as never).validate();
  }
  const storageClass = one(mine, 'StorageClass');
  assert.equal(storageClass['provisioner'], 'sluice.io/volumes-builds');
  assert.equal(storageClass['volumeBindingMode'], 'WaitForFirstConsumer');
  assert.equal(storageClass['reclaimPolicy'], 'Retain');
  const clusterRole = one(mine, 'ClusterRole') as unknown as Rules;
  const kinds = clusterRole.rules.flatMap((r) => r.resources).sort();
  assert.equal(kinds.join(' '), 'nodes persistentvolumes storageclasses');
  const [claims] = (one(mine, 'Role') as unknown as Rules).rules;
  assert.equal(clusterRole.rules[0]?.verbs.join(' '), 'get list watch create patch delete');
  assert.equal(claims?.verbs.join(' '), 'get list watch patch');
  const deployment = one(mine, 'Deployment') as unknown as {
    spec: { replicas: number; template: { spec: { containers: Container[] } } };
  };
  assert.equal(deployment.spec.replicas, 2, 'a leader and a standby');
  const container = deployment.spec.template.spec.containers[0]!;
  assert.deepEqual(container.command.slice(-1), ['provisioner']);
  assert.deepEqual(env(container), {
    SLUICE_PROVISIONER_NAME: 'sluice.io/volumes-builds',
    SLUICE_PROVISIONER_STORAGE_CLASS: 'sluice-volumes-builds',
    SLUICE_PROVISIONER_NAMESPACE: 'builds',
    SLUICE_PROVISIONER_IDENTITY: { fieldRef: { fieldPath: 'metadata.name' } },
    SLUICE_PROVISIONER_LEASE_SECONDS: '15',
    SLUICE_VOLUME_RETENTION_DAYS: '4',
  });
  const daemonSet = one(mine, 'DaemonSet') as unknown as {
    spec: {
      template: {
        spec: {
          tolerations: unknown[];
          containers: (Container & { volumeMounts: { mountPath: string }[] })[];
          volumes: { hostPath: { path: string; type: string } }[];
        };
      };
    };
  };
  const node = daemonSet.spec.template.spec;
  assert.deepEqual(node.tolerations, [{ operator: 'Exists' }], 'on tainted build nodes too');
  assert.deepEqual(node.volumes[0]?.hostPath, {
    path: '/var/lib/sluice/volumes',
    type: 'DirectoryOrCreate',
  });
  const agentOnNode = node.containers[0]!;
  assert.equal(agentOnNode.volumeMounts[0]?.mountPath, '/var/lib/sluice/volumes', 'the same path');
  assert.deepEqual(agentOnNode.command.slice(-1), ['volume-agent']);
  assert.deepEqual(env(agentOnNode), {
    SLUICE_PROVISIONER_NAME: 'sluice.io/volumes-builds',
    SLUICE_NODE_NAME: { fieldRef: { fieldPath: 'spec.nodeName' } },
    SLUICE_PROVISIONER_STORAGE_CLASS: 'sluice-volumes-builds',
    SLUICE_VOLUME_PARENT_DIR: '/var/lib/sluice/volumes',
    SLUICE_VOLUME_SPARES: '2',
    SLUICE_VOLUME_DISK_THRESHOLD: '0.8',
    SLUICE_VOLUME_INODE_THRESHOLD: '0.8',
  });
  // Off by default: nothing of it without the value.
  const plain = await render({ values: REQUIRED });
  assert.ok(!plain.some((o) => o.kind === 'StorageClass' || o.kind === 'ClusterRole'));
  // A delegate backend without its class: refused, saying which value to set.
  const delegate = { enabled: true, volumeBackend: 'delegate' };
  const refused = await renderChart(CHART, { values: { ...REQUIRED, volumes: delegate } });
  assert.ok(!refused.ok && /volumes\.delegateStorageClass is empty/.test(refused.error));
});
