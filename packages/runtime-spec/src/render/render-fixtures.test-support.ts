/**
 * Build input and resolved specs the render tests share, and a check of rendered objects against
 * the official Kubernetes schemas (kubernetes-models).
 * @module
 */
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Pod } from 'kubernetes-models/v1/Pod';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { KUBERNETES_SPEC_YAML } from '../fixtures.test-support.js';
import { parseRuntimeSpecYaml } from '../parse-runtime-spec-yaml.js';
import { resolveRuntimeSpec } from '../resolve-runtime-spec.js';
import type { RuntimeSpec } from '../schema/runtime-spec-schema.js';
import { SYSTEM_RUNTIME_NAMES, systemRuntimeSpec } from '../system-runtimes.js';
import type { BuildRenderInput } from './build-context.js';
import type { BuildObjects } from './render-build-objects.js';
import type { KubeObject } from './pod-common.js';

export const BUILD: BuildRenderInput = {
  buildId: '01J9ZK3M8Q4V7XW2B5N6C1D0EF',
  accountId: 'acct-1',
  projectId: 'proj-7',
  pipelineId: 'pipe-42',
  branch: 'feature/Login_Page',
  trigger: 'push',
  controlPlaneUrl: 'http://sluice-server.sluice.svc:8080',
  engineToken: 'ENGINE-TOKEN-very-secret-value',
  tls: {
    caPem: '-----BEGIN CERTIFICATE-----\nCA-PEM-TEXT\n-----END CERTIFICATE-----\n',
    dindCertPem: '-----BEGIN CERTIFICATE-----\nSERVER-CERT-TEXT\n-----END CERTIFICATE-----\n',
    dindKeyPem: '-----BEGIN PRIVATE KEY-----\nSERVER-KEY-TEXT\n-----END PRIVATE KEY-----\n',
    clientCertPem: '-----BEGIN CERTIFICATE-----\nCLIENT-CERT-TEXT\n-----END CERTIFICATE-----\n',
    clientKeyPem: '-----BEGIN PRIVATE KEY-----\nCLIENT-KEY-TEXT\n-----END PRIVATE KEY-----\n',
  },
  runtimeName: 'prod-eks/sluice-builds',
};

function resolve(spec: RuntimeSpec): RuntimeSpec {
  const lookup = (name: string) => (name === spec.metadata.name ? spec : systemRuntimeSpec(name));
  const result = resolveRuntimeSpec(spec.metadata.name, lookup);
  if (!result.ok) throw new Error(result.issues.map((i) => i.message).join('\n'));
  return result.spec;
}

/** system/default/k8s with only the namespace it lacks. */
export function defaultSpec(): RuntimeSpec {
  return resolve({
    metadata: { name: 'ci/builds' },
    extends: [SYSTEM_RUNTIME_NAMES.k8s],
    runtimeScheduler: { cluster: { namespace: 'builds' } },
  });
}

/** The fixture that uses every section, plus the dind fields it leaves to its parents. */
export function fullSpec(): RuntimeSpec {
  const parsed = parseRuntimeSpecYaml(KUBERNETES_SPEC_YAML, 're.yaml');
  if (!parsed.ok) throw new Error(parsed.issues.map((i) => i.message).join('\n'));
  const spec = parsed.spec;
  spec.dockerDaemonScheduler = {
    ...spec.dockerDaemonScheduler,
    schedulerName: 'dind-scheduler',
    affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] } },
    cluster: { ...spec.dockerDaemonScheduler?.cluster, serviceAccount: 'sluice-dind' },
  };
  return resolve(spec);
}

/** The objects of a build in creation order, named. */
export function objectList(objects: BuildObjects): [keyof BuildObjects, KubeObject][] {
  const names = ['pvc', 'secret', 'configMap', 'dindPod', 'enginePod'] as const;
  return names.map((name) => [name, objects[name]]);
}

/** Throws when `object` breaks the official schema of its kind. */
export function validateKube(object: KubeObject): void {
  const models = { Pod, Secret, ConfigMap, PersistentVolumeClaim, Service } as const;
  const Model = models[object.kind as keyof typeof models];
  new Model(object).validate();
}

/** The value at `path`, e.g. `spec.containers[0].env` or `metadata.labels["sluice.io/app"]`. */
export function at(object: unknown, path: string): unknown {
  const parts = (path.match(/\["[^"]+"\]|[^.[\]]+/g) ?? []).map((p) => p.replace(/^\["|"\]$/g, ''));
  return parts.reduce<unknown>((value, part) => {
    if (value === null || typeof value !== 'object') return undefined;
    return (value as Record<string, unknown>)[part];
  }, object);
}

/** The env var `name` of the first container of `pod`. */
export function envOf(pod: KubeObject, name: string): unknown {
  const env = at(pod, 'spec.containers[0].env') as { name: string }[];
  return env.find((e) => e.name === name);
}
