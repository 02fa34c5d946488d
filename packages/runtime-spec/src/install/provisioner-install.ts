/**
 * The volume provisioner's objects in a runtime install (`volumes.enabled`): the StorageClass
 * the builds' dind volumes are claimed from, the provisioner's Deployment (one replica leads
 * through a Lease, the others stand by), the volume agent's DaemonSet (it keeps spare `local`
 * volumes on its node), their ServiceAccount and rights — cluster-wide for what is cluster-wide
 * (PersistentVolumes; Nodes and the StorageClass read), in the runtime namespace for the rest
 * (claims read and watched, its Lease). Kept equal to `charts/sluice-runtime`'s
 * `templates/provisioner.yaml` by the same test as the agent's objects.
 * @module
 */
import { InputError } from '@sluice/errors';
import type { InstallObject } from './install-object.js';

export interface VolumesValues {
  /** Run the provisioner and make its StorageClass (off until the node agent retires volumes). */
  enabled?: boolean;
  /** The StorageClass's name; `sluice-volumes-<runtime namespace>` when empty. */
  storageClass?: string;
  /**
   * Where new volumes come from: `local`, the volume agents' spares on each node's disk;
   * `delegate`, the cluster's own `delegateStorageClass` (a cloud's CSI driver: EBS, PD, Azure
   * disk), whose zonal volumes the provisioner then keeps for reuse within their zone.
   */
  volumeBackend?: 'local' | 'delegate';
  /** With `volumeBackend: delegate`, the cluster's StorageClass that makes new volumes. */
  delegateStorageClass?: string;
  /** The directory on every node under which the volumes are. */
  parentDir?: string;
  /** Empty `local` volumes the volume agent keeps ready on each node. */
  spares?: number;
  replicas?: number;
  leaseSeconds?: number;
  /** Days a released volume is kept unused; 0 for ever. */
  retentionDays?: number;
  /** The node agent retires a free volume above these fractions of space and inodes in use. */
  diskThreshold?: number;
  inodeThreshold?: number;
  resources?: Record<string, unknown>;
}

export const VOLUMES_DEFAULTS = {
  parentDir: '/var/lib/sluice/volumes',
  spares: 2,
  replicas: 2,
  leaseSeconds: 15,
  retentionDays: 4,
  diskThreshold: 0.8,
  inodeThreshold: 0.8,
  resources: { requests: { cpu: '20m', memory: '64Mi' }, limits: { memory: '192Mi' } },
} as const;

/** The volume agent's `/metrics` port (its `SLUICE_VOLUME_AGENT_METRICS_PORT` default). */
const VOLUME_AGENT_METRICS_PORT = 9102;

/** The StorageClass a runtime's dind volumes are claimed from when the provisioner runs. */
export function volumesStorageClass(volumes: VolumesValues | undefined, runtimeNamespace: string) {
  return volumes?.storageClass || `sluice-volumes-${runtimeNamespace}`.slice(0, 253);
}

/** The provisioner name the StorageClass names and the provisioner answers to. */
export function volumesProvisionerName(runtimeNamespace: string): string {
  return `sluice.io/volumes-${runtimeNamespace}`;
}

const RBAC = 'rbac.authorization.k8s.io/v1';

export interface ProvisionerInstallInput {
  release: string;
  /** The release's namespace: the provisioner's Deployment and ServiceAccount. */
  namespace: string;
  /** Where the builds' claims are, and the provisioner's Lease. */
  runtimeNamespace: string;
  volumes: VolumesValues | undefined;
  labels: Record<string, string>;
  image: { repository: string; tag: string; pullPolicy: string };
  /** VOLUMES_DEFAULTS.resources with the values' merged over them, as Helm merges. */
  resources: Record<string, unknown>;
}

export function renderProvisionerInstall(input: ProvisionerInstallInput): InstallObject[] {
  const { release, namespace, runtimeNamespace, image, resources } = input;
  const volumes = input.volumes ?? {};
  if (!volumes.enabled) return [];
  const name = `${release}-provisioner`.slice(0, 63).replace(/-+$/, '');
  // Cluster-wide names carry the release's namespace: two runtimes in one cluster do not clash.
  const clusterName = `${name}-${namespace}`.slice(0, 253);
  const storageClass = volumesStorageClass(volumes, runtimeNamespace);
  const labels = { ...input.labels, 'app.kubernetes.io/name': 'sluice-provisioner' };
  const selector = (component: string) => ({
    'app.kubernetes.io/name': 'sluice-provisioner',
    'app.kubernetes.io/instance': release,
    'app.kubernetes.io/component': component,
  });
  const d = VOLUMES_DEFAULTS;
  const parentDir = volumes.parentDir || d.parentDir;
  const subjects = [{ kind: 'ServiceAccount', name, namespace }];
  const delegate = volumes.volumeBackend === 'delegate' ? volumes.delegateStorageClass : undefined;
  if (volumes.volumeBackend === 'delegate' && !delegate)
    throw new InputError(
      'SLUICE_RUNNER_SETTINGS_INVALID',
      'volumes.volumeBackend is delegate but volumes.delegateStorageClass is empty: nothing would make new volumes',
      {
        hint: "Set volumes.delegateStorageClass to the cluster's StorageClass of its disks (kubectl get storageclass; `runner init --storage-class-delegate NAME`), or volumes.volumeBackend to local",
      },
    );
  const objects: InstallObject[] = [
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: storageClass, labels },
      provisioner: volumesProvisionerName(runtimeNamespace),
      // The build's pod lands first; a new volume is made on its node, a reused one brings it
      // to the node where the cache is.
      volumeBindingMode: 'WaitForFirstConsumer',
      reclaimPolicy: 'Retain',
    },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace, labels } },
    {
      apiVersion: RBAC,
      kind: 'ClusterRole',
      metadata: { name: clusterName, labels },
      rules: [
        {
          apiGroups: [''],
          resources: ['persistentvolumes'],
          // Delegated volumes are made by their driver: the provisioner only adopts them.
          verbs: delegate
            ? ['get', 'list', 'watch', 'patch', 'delete']
            : ['get', 'list', 'watch', 'create', 'patch', 'delete'],
        },
        { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] },
        { apiGroups: ['storage.k8s.io'], resources: ['storageclasses'], verbs: ['get'] },
      ],
    },
    {
      apiVersion: RBAC,
      kind: 'ClusterRoleBinding',
      metadata: { name: clusterName, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterName },
      subjects,
    },
    {
      apiVersion: RBAC,
      kind: 'Role',
      metadata: { name, namespace: runtimeNamespace, labels },
      rules: [
        {
          apiGroups: [''],
          resources: ['persistentvolumeclaims'],
          // With a delegate, its helper claims (one per new volume) are made and deleted too.
          verbs: delegate
            ? ['get', 'list', 'watch', 'patch', 'create', 'delete']
            : ['get', 'list', 'watch', 'patch'],
        },
        {
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          verbs: ['get', 'create', 'patch'],
        },
      ],
    },
    {
      apiVersion: RBAC,
      kind: 'RoleBinding',
      metadata: { name, namespace: runtimeNamespace, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects,
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace, labels },
      spec: {
        replicas: volumes.replicas ?? d.replicas,
        selector: { matchLabels: selector('provisioner') },
        template: {
          metadata: { labels: { ...labels, ...selector('provisioner') } },
          spec: {
            serviceAccountName: name,
            containers: [
              {
                name: 'provisioner',
                image: `${image.repository}:${image.tag}`,
                imagePullPolicy: image.pullPolicy,
                command: ['node', '/usr/local/lib/sluice/sluice.mjs', 'provisioner'],
                env: [
                  {
                    name: 'SLUICE_PROVISIONER_NAME',
                    value: volumesProvisionerName(runtimeNamespace),
                  },
                  { name: 'SLUICE_PROVISIONER_STORAGE_CLASS', value: storageClass },
                  { name: 'SLUICE_PROVISIONER_NAMESPACE', value: runtimeNamespace },
                  {
                    name: 'SLUICE_PROVISIONER_IDENTITY',
                    valueFrom: { fieldRef: { fieldPath: 'metadata.name' } },
                  },
                  {
                    name: 'SLUICE_PROVISIONER_LEASE_SECONDS',
                    value: String(volumes.leaseSeconds ?? d.leaseSeconds),
                  },
                  {
                    name: 'SLUICE_VOLUME_RETENTION_DAYS',
                    value: String(volumes.retentionDays ?? d.retentionDays),
                  },
                  ...(delegate
                    ? [{ name: 'SLUICE_PROVISIONER_DELEGATE_STORAGE_CLASS', value: delegate }]
                    : []),
                ],
                resources,
                securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true },
              },
            ],
          },
        },
      },
    },
  ];
  // Delegated volumes have no directory on a node: no volume agent.
  if (delegate) return objects;
  return [
    ...objects,
    {
      // On every node (build nodes are often tainted: it tolerates everything), the volumes'
      // directory mounted at the same path, so a `local` volume's path names it here too.
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: {
        name: `${release}-volume-agent`.slice(0, 63).replace(/-+$/, ''),
        namespace,
        labels,
      },
      spec: {
        selector: { matchLabels: selector('volume-agent') },
        template: {
          metadata: {
            labels: { ...labels, ...selector('volume-agent') },
            annotations: {
              'prometheus.io/scrape': 'true',
              'prometheus.io/port': String(VOLUME_AGENT_METRICS_PORT),
              'prometheus.io/path': '/metrics',
            },
          },
          spec: {
            serviceAccountName: name,
            tolerations: [{ operator: 'Exists' }],
            containers: [
              {
                name: 'volume-agent',
                image: `${image.repository}:${image.tag}`,
                imagePullPolicy: image.pullPolicy,
                command: ['node', '/usr/local/lib/sluice/sluice.mjs', 'volume-agent'],
                ports: [{ name: 'metrics', containerPort: VOLUME_AGENT_METRICS_PORT }],
                env: [
                  {
                    name: 'SLUICE_PROVISIONER_NAME',
                    value: volumesProvisionerName(runtimeNamespace),
                  },
                  {
                    name: 'SLUICE_NODE_NAME',
                    valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } },
                  },
                  { name: 'SLUICE_PROVISIONER_STORAGE_CLASS', value: storageClass },
                  { name: 'SLUICE_VOLUME_PARENT_DIR', value: parentDir },
                  { name: 'SLUICE_VOLUME_SPARES', value: String(volumes.spares ?? d.spares) },
                  {
                    name: 'SLUICE_VOLUME_DISK_THRESHOLD',
                    value: String(volumes.diskThreshold ?? d.diskThreshold),
                  },
                  {
                    name: 'SLUICE_VOLUME_INODE_THRESHOLD',
                    value: String(volumes.inodeThreshold ?? d.inodeThreshold),
                  },
                ],
                resources,
                securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true },
                volumeMounts: [{ name: 'volumes', mountPath: parentDir }],
              },
            ],
            volumes: [
              { name: 'volumes', hostPath: { path: parentDir, type: 'DirectoryOrCreate' } },
            ],
          },
        },
      },
    },
  ];
}
