import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatRuntimeSpecPath } from './runtime-spec-issue.js';
import { validateRuntimeSpec } from './validate-runtime-spec.js';

interface Case {
  name: string;
  /** Merged into `{ metadata: { name: 't' } }`. */
  spec: Record<string, unknown>;
  /** `[path, code suffix, message]` for every issue, in order. */
  issues: [string, string, string][];
}

const engine = (fields: Record<string, unknown>) => ({ runtimeScheduler: fields });
const dind = (fields: Record<string, unknown>) => ({ dockerDaemonScheduler: fields });

const CASES: Case[] = [
  {
    name: 'wrong types',
    spec: engine({ image: 5, command: 'sluice engine', envVars: { A: { b: 1 } } }),
    issues: [
      ['runtimeScheduler.image', 'INVALID_VALUE', '"image" must be a string, got the number 5'],
      [
        'runtimeScheduler.command',
        'INVALID_VALUE',
        '"command" must be a list, got the string "sluice engine"',
      ],
      [
        'runtimeScheduler.envVars.A',
        'INVALID_VALUE',
        '"A" must be a string, a number or a boolean, got a map',
      ],
    ],
  },
  {
    name: 'unknown fields with suggestions',
    spec: {
      runtimeSchedular: {},
      ...dind({ dindImg: 'x', pvcs: { dind: { volumeSise: '1Gi' } } }),
    },
    issues: [
      [
        'dockerDaemonScheduler.pvcs.dind.volumeSise',
        'UNKNOWN_FIELD',
        'Unknown field "volumeSise" in dockerDaemonScheduler.pvcs.dind; did you mean "volumeSize"?',
      ],
      [
        'dockerDaemonScheduler.dindImg',
        'UNKNOWN_FIELD',
        'Unknown field "dindImg" in dockerDaemonScheduler; did you mean "dindImage"?',
      ],
      [
        'runtimeSchedular',
        'UNKNOWN_FIELD',
        'Unknown field "runtimeSchedular" in the runtime environment; did you mean "runtimeScheduler"?',
      ],
    ],
  },
  {
    name: 'unknown fields inside lists and maps',
    spec: dind({
      tolerations: [{ kee: 'x', operator: 'Exists' }],
      userVolumes: { certs: { secrt: { secretName: 'certs' } } },
    }),
    issues: [
      [
        'dockerDaemonScheduler.userVolumes.certs.secrt',
        'UNKNOWN_FIELD',
        'Unknown field "secrt" in dockerDaemonScheduler.userVolumes.certs; did you mean "secret"?',
      ],
      [
        'dockerDaemonScheduler.tolerations[0].kee',
        'UNKNOWN_FIELD',
        'Unknown field "kee" in dockerDaemonScheduler.tolerations[0]; did you mean "key"?',
      ],
    ],
  },
  {
    name: 'an unknown field with nothing close',
    spec: engine({ frobnicate: true }),
    issues: [
      [
        'runtimeScheduler.frobnicate',
        'UNKNOWN_FIELD',
        'Unknown field "frobnicate" in runtimeScheduler',
      ],
    ],
  },
  {
    name: 'a missing required field',
    spec: { metadata: { agent: true } },
    issues: [['metadata.name', 'MISSING_FIELD', 'Missing required field "name" in metadata']],
  },
  {
    name: 'bad quantities',
    spec: dind({
      pvcs: { dind: { volumeSize: '16GB' } },
      defaultDindResources: { requests: { memory: '512mb', cpu: '1 core' } },
    }),
    issues: [
      [
        'dockerDaemonScheduler.pvcs.dind.volumeSize',
        'INVALID_VALUE',
        '"volumeSize" must be a Kubernetes quantity such as 16Gi, got the string "16GB"; did you mean "16Gi"?',
      ],
      [
        'dockerDaemonScheduler.defaultDindResources.requests.memory',
        'INVALID_VALUE',
        '"memory" must be a Kubernetes quantity such as 500m or 2Gi, got the string "512mb"; did you mean "512Mi"?',
      ],
      [
        'dockerDaemonScheduler.defaultDindResources.requests.cpu',
        'INVALID_VALUE',
        '"cpu" must be a Kubernetes quantity such as 500m or 2Gi, got the string "1 core"',
      ],
    ],
  },
  {
    name: 'a request above its limit',
    spec: dind({ defaultDindResources: { requests: { cpu: '3' }, limits: { cpu: '2500m' } } }),
    issues: [
      [
        'dockerDaemonScheduler.defaultDindResources.requests.cpu',
        'INVALID_VALUE',
        'Request 3 of "cpu" is more than its limit 2500m',
      ],
    ],
  },
  {
    name: 'bad toleration operator and rules',
    spec: dind({
      tolerations: [
        { key: 'sluice.io/dind', operator: 'exists', effect: 'NoSchedule' },
        { key: 'a', operator: 'Exists', value: 'b' },
        { key: 'c', value: 'd', effect: 'NoSchedule', tolerationSeconds: 60 },
      ],
    }),
    issues: [
      [
        'dockerDaemonScheduler.tolerations[0].operator',
        'INVALID_VALUE',
        '"operator" must be one of "Exists", "Equal", got the string "exists"; did you mean "Exists"?',
      ],
      [
        'dockerDaemonScheduler.tolerations[1].value',
        'INVALID_VALUE',
        'Toleration with operator "Exists" must not have a value, got "b"',
      ],
      [
        'dockerDaemonScheduler.tolerations[2].tolerationSeconds',
        'INVALID_VALUE',
        '"tolerationSeconds" needs effect "NoExecute", got "NoSchedule"',
      ],
    ],
  },
  {
    name: 'negative and fractional numbers',
    spec: {
      ...engine({ terminationGracePeriodSeconds: -1 }),
      ...dind({ terminationGracePeriodSeconds: 1.5, daemonConfig: { mtu: 70000 } }),
    },
    issues: [
      [
        'runtimeScheduler.terminationGracePeriodSeconds',
        'INVALID_VALUE',
        '"terminationGracePeriodSeconds" must be at least 0, got the number -1',
      ],
      [
        'dockerDaemonScheduler.daemonConfig.mtu',
        'INVALID_VALUE',
        '"mtu" must be at most 65535, got the number 70000',
      ],
      [
        'dockerDaemonScheduler.terminationGracePeriodSeconds',
        'INVALID_VALUE',
        '"terminationGracePeriodSeconds" must be a whole number, got the number 1.5',
      ],
    ],
  },
  {
    name: 'Kubernetes names and labels',
    spec: engine({
      cluster: { namespace: 'CI_builds', nodeSelector: { 'bad key': 'x', zone: 'a b' } },
    }),
    issues: [
      [
        'runtimeScheduler.cluster.namespace',
        'INVALID_VALUE',
        '"namespace" must be a namespace name (at most 63 lowercase letters, digits and "-"), got the string "CI_builds"',
      ],
      [
        'runtimeScheduler.cluster.nodeSelector.bad key',
        'INVALID_VALUE',
        'Key "bad key" of "nodeSelector" is not a label key (an optional DNS prefix and "/", then at most 63 letters, digits, "-", "_" or ".")',
      ],
      [
        'runtimeScheduler.cluster.nodeSelector.zone',
        'INVALID_VALUE',
        '"zone" must be a label value (at most 63 letters, digits, "-", "_" or "."), got the string "a b"',
      ],
    ],
  },
  {
    name: 'a reuse selector that is not a list of label keys',
    spec: dind({ pvcs: { dind: { reuseVolumeSelector: 'sluice.io/app,,pipeline id' } } }),
    issues: [
      [
        'dockerDaemonScheduler.pvcs.dind.reuseVolumeSelector',
        'INVALID_VALUE',
        '"reuseVolumeSelector" must be a comma-separated list of label keys, got an empty key, "pipeline id" in "sluice.io/app,,pipeline id"',
      ],
    ],
  },
  {
    name: 'env vars with two sources or none',
    spec: engine({
      userEnvVars: [
        { name: 'A', value: 'x', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
        {
          name: 'B',
          valueFrom: { secretKeyRef: { name: 's', key: 'k' }, fieldRef: { fieldPath: 'x' } },
        },
        { name: '1 bad' },
      ],
    }),
    issues: [
      [
        'runtimeScheduler.userEnvVars[0].valueFrom',
        'INVALID_VALUE',
        'Environment variable "A" has both "value" and "valueFrom"; keep one',
      ],
      [
        'runtimeScheduler.userEnvVars[1].valueFrom',
        'INVALID_VALUE',
        '"valueFrom" must name one source, got "secretKeyRef" and "fieldRef"',
      ],
      [
        'runtimeScheduler.userEnvVars[2].name',
        'INVALID_VALUE',
        '"name" must be an environment variable name, got the string "1 bad"',
      ],
    ],
  },
  {
    name: 'a volume with no source, a mount at a relative path',
    spec: dind({ userVolumes: { cache: {} }, userVolumeMounts: { cache: { mountPath: 'cache' } } }),
    issues: [
      [
        'dockerDaemonScheduler.userVolumeMounts.cache.mountPath',
        'INVALID_VALUE',
        '"mountPath" must start with "/", got the string "cache"',
      ],
      [
        'dockerDaemonScheduler.userVolumes.cache',
        'INVALID_VALUE',
        '"cache" must have one source: configMap, secret, hostPath, emptyDir, persistentVolumeClaim, nfs, csi, projected',
      ],
    ],
  },
  {
    name: 'cross-field rules of one scheduler',
    spec: engine({
      type: 'KubernetesPod',
      dockerHost: 'unix:///var/run/docker.sock',
      dnsPolicy: 'None',
      cluster: { inCluster: true, kubeContext: 'prod' },
    }),
    issues: [
      [
        'runtimeScheduler.cluster.kubeContext',
        'INVALID_VALUE',
        '"kubeContext" "prod" cannot be used with "inCluster: true"; keep one',
      ],
      [
        'runtimeScheduler.dnsPolicy',
        'INVALID_VALUE',
        '"dnsPolicy" "None" needs at least one nameserver in "dnsConfig.nameservers"',
      ],
      [
        'runtimeScheduler.dockerHost',
        'INVALID_VALUE',
        '"dockerHost" "unix:///var/run/docker.sock" applies only to type "LocalDocker", not "KubernetesPod"',
      ],
    ],
  },
  {
    name: 'a local engine with a dind daemon',
    spec: { ...engine({ type: 'LocalDocker' }), ...dind({ type: 'DindKubernetesPod' }) },
    issues: [
      [
        'dockerDaemonScheduler.type',
        'INVALID_VALUE',
        'Docker daemon type "DindKubernetesPod" cannot serve engine type "LocalDocker"; LocalDocker goes with LocalDocker',
      ],
    ],
  },
  {
    name: 'URLs, names and the version',
    spec: {
      version: 2,
      extends: ['system default'],
      controlPlaneUrl: 'ftp://sluice',
      ...dind({ daemonConfig: { insecureRegistries: ['http://registry:5000'] } }),
    },
    issues: [
      ['version', 'INVALID_VALUE', '"version" must be 1, got the number 2'],
      [
        'extends[0]',
        'INVALID_VALUE',
        'Item 0 of "extends" must be a runtime name (letters, digits, ".", "_", "@", ":", "/" and "-"), got the string "system default"',
      ],
      [
        'dockerDaemonScheduler.daemonConfig.insecureRegistries[0]',
        'INVALID_VALUE',
        'Item 0 of "insecureRegistries" must be a registry host[:port] or CIDR without a scheme, got the string "http://registry:5000"',
      ],
      [
        'controlPlaneUrl',
        'INVALID_VALUE',
        '"controlPlaneUrl" must be an http:// or https:// URL, got the string "ftp://sluice"',
      ],
    ],
  },
];

for (const c of CASES) {
  test(`invalid spec: ${c.name}`, () => {
    const result = validateRuntimeSpec({ metadata: { name: 't' }, ...c.spec });
    assert.equal(result.ok, false);
    if (result.ok) return;
    const got = result.issues.map((i) => [
      formatRuntimeSpecPath(i.path),
      i.code.replace('SLUICE_RUNTIME_SPEC_', ''),
      i.message,
    ]);
    assert.deepEqual(got, c.issues);
  });
}

test('every message is in sentence case without a trailing period', () => {
  for (const c of CASES) {
    const result = validateRuntimeSpec({ metadata: { name: 't' }, ...c.spec });
    for (const issue of result.ok ? [] : result.issues) {
      assert.match(issue.message, /^["A-Z]/, issue.message);
      assert.doesNotMatch(issue.message, /\.$/, issue.message);
    }
  }
});
