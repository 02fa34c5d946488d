/**
 * Pieces both build pods share: the placement and DNS fields every scheduler section carries,
 * env lists from `KEY: value` maps, the proxy variables, and volumes from spec maps keyed by name.
 * @module
 */
import type { RuntimeSpec } from '../schema/runtime-spec-schema.js';
import type { DockerDaemonScheduler, RuntimeScheduler } from '../schema/runtime-spec-schema.js';

/** A Kubernetes object as plain JSON. */
export type KubeObject = {
  apiVersion: string;
  kind: string;
  metadata: KubeMetadata;
} & Record<string, unknown>;

export interface KubeMetadata {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: unknown;
}

type Scheduler = RuntimeScheduler | DockerDaemonScheduler;

/** Drops undefined fields, so rendered objects hold only what was set. */
export function defined<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined),
  ) as Partial<T>;
}

/** Where the pod runs and how it resolves names: the fields both schedulers share. */
export function placement(scheduler: Scheduler): Record<string, unknown> {
  return defined({
    serviceAccountName: scheduler.cluster?.serviceAccount,
    nodeSelector: scheduler.cluster?.nodeSelector,
    affinity: scheduler.affinity,
    tolerations: scheduler.tolerations,
    schedulerName: scheduler.schedulerName,
    terminationGracePeriodSeconds: scheduler.terminationGracePeriodSeconds,
    dnsPolicy: scheduler.dnsPolicy,
    dnsConfig: scheduler.dnsConfig,
  });
}

/** Pod labels: the spec's own, under the common labels, which an agent lists by and must win. */
export function podMetadata(
  name: string,
  scheduler: Scheduler,
  common: { namespace: string; labels: Record<string, string> },
): KubeMetadata {
  return {
    name,
    namespace: common.namespace,
    labels: { ...scheduler.labels, ...common.labels },
    ...defined({ annotations: scheduler.annotations }),
  };
}

export function envList(vars: Readonly<Record<string, string>> | undefined): EnvVar[] {
  return Object.entries(vars ?? {}).map(([name, value]) => ({ name, value }));
}

/**
 * HTTP_PROXY, HTTPS_PROXY and NO_PROXY in both cases (curl reads only the lower-case
 * http_proxy; Go and Node tools read either). `direct` hosts are added to NO_PROXY.
 */
export function proxyEnv(proxy: RuntimeSpec['proxy'], direct: readonly string[] = []): EnvVar[] {
  if (proxy === undefined) return [];
  const noProxy = [...(proxy.noProxy ?? []), ...direct];
  const pairs: [string, string | undefined][] = [
    ['HTTP_PROXY', proxy.httpProxy],
    ['HTTPS_PROXY', proxy.httpsProxy],
    ['NO_PROXY', noProxy.length > 0 ? noProxy.join(',') : undefined],
  ];
  return pairs.flatMap(([name, value]) =>
    value === undefined
      ? []
      : [
          { name, value },
          { name: name.toLowerCase(), value },
        ],
  );
}

/** A volume of only `keys` of the build Secret, each a file of the same name, owner-readable. */
export function secretFilesVolume(
  name: string,
  secretName: string,
  keys: readonly string[],
): Record<string, unknown> {
  return {
    name,
    secret: { secretName, items: keys.map((key) => ({ key, path: key })), defaultMode: 0o400 },
  };
}

/** Spec maps of volumes or mounts keyed by name, as Kubernetes lists; the key is the default name. */
export function namedList<T extends { name?: string | undefined }>(
  map: Readonly<Record<string, T>> | undefined,
): (T & { name: string })[] {
  return Object.entries(map ?? {}).map(([key, item]) => ({ ...item, name: item.name ?? key }));
}
