/**
 * What a runtime's warm-pool pods look like, learnt from the objects the control plane renders
 * for its builds (the agent has no runtime spec of its own): the claim (StorageClass, size,
 * reuse annotations), the daemon's settings, the dind container and the engine container. A
 * pool pod holds both containers: the daemon listens only on a socket in a directory the two
 * share (no TLS: nothing outside the pod reaches it, and no build certificate exists yet), and
 * the engine waits, loaded, for its build's variables on the handover port (the engine's
 * apps/engine/src/pool-handover.ts). Its claim and its Secret (the daemon's settings and the handover
 * key) are owned by the pod, so they go when it goes. Pure: tested without a cluster.
 *
 * The shape is complete once one build's claim, ConfigMap and both pods have been seen; until
 * then, and after an agent restart until the next build, the pool makes no pods. Each shape has
 * a hash, on its pods as an annotation: a build takes only a pod of the shape its runtime has
 * now, and pods of an older shape are replaced.
 * @module
 */
import { createHash } from 'node:crypto';
import { BUILD_LABELS, MANAGED_BY_SLUICE, REUSE_ANNOTATIONS, labelValue } from '@sluice/labels';
import type { KubeManifest } from '@sluice/kube';

/** Pod, claim and Secret annotation: the hash of the shape the pod was made from. */
export const WARM_POOL_SHAPE_ANNOTATION = 'sluice.io/warm-pool-shape';
/** The port a pool pod's engine takes its build's variables on. */
export const HANDOVER_PORT = 1301;
/** Where both containers of a pool pod see the daemon's socket. */
export const POOL_DOCKER_HOST = 'unix:///var/run/docker.sock';
/**
 * Keys of a pool pod's Secret: its daemon's configuration, its handover key, and the TLS of its
 * handover port (the server certificate and key, and the CA that signed it, which the agent
 * trusts for that pod alone).
 */
export const POOL_SECRET_KEYS = {
  daemonJson: 'daemon.json',
  handoverKey: 'handover-key',
  tlsCert: 'handover.crt',
  tlsKey: 'handover.key',
  tlsCa: 'handover-ca.crt',
} as const;
/** What the engine of a pool pod is told, so that it waits for its build on the port. */
export const POOL_ENGINE_ENV = {
  port: 'SLUICE_ENGINE_POOL_PORT',
  keyFile: 'SLUICE_ENGINE_POOL_KEY_FILE',
  tlsCertFile: 'SLUICE_ENGINE_POOL_TLS_CERT_FILE',
  tlsKeyFile: 'SLUICE_ENGINE_POOL_TLS_KEY_FILE',
} as const;
/**
 * What a pool pod is made of beyond its shape: raised when pods made before would not work with
 * this agent (2: the handover is TLS), so that they are outdated and replaced, not taken.
 */
const POD_FORMAT = 2;

const POOL_SECRET_DIR = '/etc/sluice/warm-pool';
const VOLUMES = { data: 'dind', secret: 'warm-pool', run: 'docker-run' } as const;
/** The build's labels that say whose it is: a pool claim is nobody's yet. */
const BUILD_ONLY_LABELS = [
  BUILD_LABELS.buildId,
  'sluice.io/project-id',
  'sluice.io/pipeline-id',
  'sluice.io/branch',
  'sluice.io/trigger',
];
/** The dind pod's volumes that are the build's own: the pool pod has its own in their place. */
const BUILD_VOLUMES = new Set(['dind', 'dind-tls', 'dind-config']);

type Json = Record<string, unknown>;

interface Container extends Json {
  name: string;
  volumeMounts?: { name: string; mountPath: string; subPath?: string; readOnly?: boolean }[];
  env?: { name: string; value?: string; valueFrom?: unknown }[];
}

/** What one build showed; the pool's pods are made from it. */
export interface PoolShape {
  claim?: { labels: Record<string, string>; annotations: Record<string, string>; spec: Json };
  daemon?: Json;
  dind?: { pod: Json; container: Container; volumes: Json[] };
  engine?: { pod: Json; container: Container };
}

export interface PoolMember {
  name: string;
  namespace: string;
  runtime: string;
  /** The handover key (random, per pod): only the agent that made the pod can hand it a build. */
  key: string;
  /** Its handover port's certificate and key, and the CA the agent trusts for it. */
  tls: { caPem: string; certPem: string; keyPem: string };
  priorityClassName?: string;
  /** Labels and annotations of the pool, set on the pod (its state) and kept on the claim. */
  labels: Record<string, string>;
  /** More annotations of the pod, and of its claim. */
  annotations?: Record<string, string>;
  claimAnnotations?: Record<string, string>;
}

/** The shape with what `manifest` (one of a build's objects) tells; unchanged for others. */
export function learnShape(shape: PoolShape, manifest: Json): PoolShape {
  const metadata = (manifest['metadata'] ?? {}) as {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  const labels = metadata.labels ?? {};
  switch (manifest['kind']) {
    case 'PersistentVolumeClaim': {
      // The labels the reuse rules compare stay: a pool volume is then one the build could
      // have had, and only a build with the same values takes it (its hash says so).
      const annotations = metadata.annotations ?? {};
      const compared = (annotations[REUSE_ANNOTATIONS.selector] ?? '')
        .split(',')
        .map((k) => k.trim());
      const own = Object.fromEntries(
        Object.entries(labels).filter(
          ([key]) =>
            key !== BUILD_LABELS.buildId &&
            (!BUILD_ONLY_LABELS.includes(key) || compared.includes(key)),
        ),
      );
      const spec = (manifest['spec'] ?? {}) as Json;
      return { ...shape, claim: { labels: own, annotations, spec } };
    }
    case 'ConfigMap': {
      const text = ((manifest['data'] ?? {}) as Record<string, string>)['daemon.json'];
      if (text === undefined) return shape;
      try {
        return { ...shape, daemon: poolDaemonJson(JSON.parse(text) as Json) };
      } catch {
        return shape;
      }
    }
    case 'Pod':
      return learnPod(shape, labels[BUILD_LABELS.component], (manifest['spec'] ?? {}) as Json);
    default:
      return shape;
  }
}

function learnPod(shape: PoolShape, component: string | undefined, spec: Json): PoolShape {
  const containers = (spec['containers'] ?? []) as Container[];
  const [container] = containers;
  if (container === undefined) return shape;
  const pod = Object.fromEntries(
    Object.entries(spec).filter(
      ([key]) => !['containers', 'volumes', 'hostname', 'subdomain'].includes(key),
    ),
  );
  if (component === 'dind') {
    const volumes = ((spec['volumes'] ?? []) as Json[]).filter(
      (v) => !BUILD_VOLUMES.has(String(v['name'])),
    );
    return { ...shape, dind: { pod, container, volumes } };
  }
  // Only what the pool pod's engine takes: the rest (its variables, its affinity to its
  // build's dind pod) is the build's, and comes at the handover.
  if (component === 'engine')
    return {
      ...shape,
      engine: {
        pod: pick(spec, ['serviceAccountName', 'automountServiceAccountToken']),
        container: {
          ...pick(container, ['image', 'imagePullPolicy', 'resources', 'command', 'volumeMounts']),
          name: container.name,
        },
      },
    };
  return shape;
}

/** The daemon's settings on the pod's socket only: no TCP port, so no TLS. */
function poolDaemonJson(daemon: Json): Json {
  const own = Object.fromEntries(
    Object.entries(daemon).filter(([key]) => !key.startsWith('tls') && key !== 'hosts'),
  );
  return { ...own, hosts: [POOL_DOCKER_HOST] };
}

/** Whether every part has been seen. */
export function shapeComplete(shape: PoolShape): boolean {
  return (
    shape.claim !== undefined &&
    shape.daemon !== undefined &&
    shape.dind !== undefined &&
    shape.engine !== undefined
  );
}

/** A short hash of the shape: pods of another hash are from an older spec. */
export function shapeHash(shape: PoolShape): string {
  const text = JSON.stringify([POD_FORMAT, shape.claim, shape.daemon, shape.dind, shape.engine]);
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/**
 * A pod a build makes of its own (its engine or dind pod, when it missed the pool or its pool
 * pod failed it), with the never-preempting PriorityClass `name` when one is set and the pod
 * names none: it waits for room instead of preempting pool pods that builds run on.
 */
export function withPriorityClass<T extends Json>(manifest: T, name: string | undefined): T {
  if (name === undefined || manifest['kind'] !== 'Pod') return manifest;
  const labels = (manifest['metadata'] as { labels?: Record<string, string> } | undefined)?.labels;
  const component = labels?.[BUILD_LABELS.component];
  const spec = (manifest['spec'] ?? {}) as Json;
  if (component !== 'engine' && component !== 'dind') return manifest;
  if (spec['priorityClassName'] !== undefined || spec['priority'] !== undefined) return manifest;
  return { ...manifest, spec: { ...spec, priorityClassName: name } };
}

/** The pod of a pool member, made once its claim and Secret are (`memberClaim`, `memberSecret`). */
export function memberPod(shape: PoolShape, member: PoolMember): Json {
  const { dind, engine } = required(shape);
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: member.name,
      namespace: member.namespace,
      labels: { ...member.labels, ...runtimeLabels(member.runtime) },
      annotations: { ...member.annotations, [WARM_POOL_SHAPE_ANNOTATION]: shapeHash(shape) },
    },
    spec: {
      // The daemon's placement and security; the engine's service account (token-less).
      ...dind.pod,
      ...defined({
        serviceAccountName: engine.pod['serviceAccountName'],
        automountServiceAccountToken: engine.pod['automountServiceAccountToken'],
        priorityClassName: member.priorityClassName,
      }),
      restartPolicy: 'Never',
      containers: [dindContainer(dind.container), engineContainer(engine.container)],
      volumes: [
        { name: VOLUMES.data, persistentVolumeClaim: { claimName: member.name } },
        { name: VOLUMES.secret, secret: { secretName: member.name, defaultMode: 0o400 } },
        { name: VOLUMES.run, emptyDir: {} },
        ...dind.volumes,
      ],
    },
  };
  return pod;
}

/** What an owner reference names: the object's kind, name and uid. */
export interface MemberOwner {
  kind: 'Pod' | 'PersistentVolumeClaim';
  name: string;
  uid: string;
}

/** The metadata that makes `owner` own an object: deleted with it by the garbage collector. */
export function ownedBy(owner: MemberOwner): { ownerReferences: Json[] } {
  return { ownerReferences: [{ apiVersion: 'v1', ...owner }] };
}

/**
 * A member's claim, made first and owned by nothing until its pod is made (`ownedBy` then names
 * the pod in a patch): the pod finds it bound and is scheduled on its first try.
 */
export function memberClaim(shape: PoolShape, member: PoolMember): KubeManifest {
  const { claim } = required(shape);
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: memberMetadata(shape, member, claim.labels, {
      ...claim.annotations,
      ...member.claimAnnotations,
    }),
    spec: claim.spec,
  };
}

/** A member's Secret (its daemon's configuration, its hand-over key), owned by its claim. */
export function memberSecret(shape: PoolShape, member: PoolMember, claimUid: string): Json {
  const { daemon } = required(shape);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      ...memberMetadata(shape, member, {}, {}),
      ...ownedBy({ kind: 'PersistentVolumeClaim', name: member.name, uid: claimUid }),
    },
    type: 'Opaque',
    stringData: {
      [POOL_SECRET_KEYS.daemonJson]: `${JSON.stringify(daemon, null, 2)}\n`,
      [POOL_SECRET_KEYS.handoverKey]: member.key,
      [POOL_SECRET_KEYS.tlsCert]: member.tls.certPem,
      [POOL_SECRET_KEYS.tlsKey]: member.tls.keyPem,
      [POOL_SECRET_KEYS.tlsCa]: member.tls.caPem,
    },
  };
}

function memberMetadata(
  shape: PoolShape,
  member: PoolMember,
  labels: Record<string, string>,
  annotations: Record<string, string>,
): KubeManifest['metadata'] {
  return {
    name: member.name,
    namespace: member.namespace,
    labels: { ...labels, ...runtimeLabels(member.runtime) },
    annotations: { ...annotations, [WARM_POOL_SHAPE_ANNOTATION]: shapeHash(shape) },
  };
}

/**
 * The variables a pool pod's engine is handed for its build: the build's engine pod's, resolved
 * (`secretKeyRef` through `secret`), with the daemon reached on the pod's socket.
 */
export function handoverEnv(
  enginePod: Json,
  poolPod: string,
  secret: (name: string, key: string) => string | undefined,
): { env: Record<string, string>; unresolved: string[] } {
  const spec = (enginePod['spec'] ?? {}) as Json;
  const [container] = (spec['containers'] ?? []) as Container[];
  const env: Record<string, string> = {};
  const unresolved: string[] = [];
  for (const entry of container?.env ?? []) {
    if (entry.value !== undefined) env[entry.name] = entry.value;
    else {
      const ref = (entry.valueFrom as { secretKeyRef?: { name?: string; key?: string } })
        ?.secretKeyRef;
      const value = ref === undefined ? undefined : secret(ref.name ?? '', ref.key ?? '');
      if (value === undefined) unresolved.push(entry.name);
      else env[entry.name] = value;
    }
  }
  delete env['DOCKER_TLS_VERIFY'];
  delete env['DOCKER_CERT_PATH'];
  return { env: { ...env, DOCKER_HOST: POOL_DOCKER_HOST, SLUICE_DIND_POD: poolPod }, unresolved };
}

function dindContainer(container: Container): Json {
  const own = Object.fromEntries(
    Object.entries(container).filter(
      ([key]) => !['ports', 'startupProbe', 'readinessProbe', 'livenessProbe'].includes(key),
    ),
  );
  const mounts = (container.volumeMounts ?? []).filter(
    (m) => m.name !== 'dind-tls' && m.name !== 'dind-config',
  );
  return {
    ...own,
    volumeMounts: [
      ...mounts,
      {
        name: VOLUMES.secret,
        mountPath: '/etc/docker/daemon.json',
        subPath: POOL_SECRET_KEYS.daemonJson,
        readOnly: true,
      },
      { name: VOLUMES.run, mountPath: '/var/run' },
    ],
  };
}

function engineContainer(container: Container): Json {
  // The log spool on the pool's volume, as the build's engine pod has it on the build's.
  const spool = (container.volumeMounts ?? [])
    .filter((m) => m.subPath !== undefined && m.name !== 'docker-client')
    .map((m) => ({ ...m, name: VOLUMES.data }));
  return {
    ...defined({
      image: container['image'],
      imagePullPolicy: container['imagePullPolicy'],
      resources: container['resources'],
      command: container['command'],
    }),
    name: 'engine',
    env: [
      { name: POOL_ENGINE_ENV.port, value: String(HANDOVER_PORT) },
      {
        name: POOL_ENGINE_ENV.keyFile,
        value: `${POOL_SECRET_DIR}/${POOL_SECRET_KEYS.handoverKey}`,
      },
      {
        name: POOL_ENGINE_ENV.tlsCertFile,
        value: `${POOL_SECRET_DIR}/${POOL_SECRET_KEYS.tlsCert}`,
      },
      {
        name: POOL_ENGINE_ENV.tlsKeyFile,
        value: `${POOL_SECRET_DIR}/${POOL_SECRET_KEYS.tlsKey}`,
      },
      { name: 'DOCKER_HOST', value: POOL_DOCKER_HOST },
    ],
    ports: [{ name: 'handover', containerPort: HANDOVER_PORT }],
    // Listening means loaded and its daemon answering: the pod is then Ready, and can be taken.
    readinessProbe: { tcpSocket: { port: HANDOVER_PORT }, periodSeconds: 1 },
    volumeMounts: [
      { name: VOLUMES.run, mountPath: '/var/run' },
      { name: VOLUMES.secret, mountPath: POOL_SECRET_DIR, readOnly: true },
      ...spool,
    ],
  };
}

function runtimeLabels(runtime: string): Record<string, string> {
  return {
    [BUILD_LABELS.managedBy]: MANAGED_BY_SLUICE,
    [BUILD_LABELS.runtime]: labelValue(runtime),
  };
}

function required(shape: PoolShape): Required<PoolShape> {
  if (!shapeComplete(shape)) throw new Error('The warm pool has not seen a whole build yet');
  return shape as Required<PoolShape>;
}

function defined(fields: Json): Json {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

function pick(fields: Json, keys: readonly string[]): Json {
  return Object.fromEntries(Object.entries(fields).filter(([key]) => keys.includes(key)));
}
