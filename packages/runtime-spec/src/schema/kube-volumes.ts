/**
 * Structural schemas of Kubernetes `Volume` and `VolumeMount` for the sources a build pod
 * plausibly mounts (ConfigMap, Secret, hostPath, emptyDir, PVC, NFS, CSI, projected), each
 * volume with exactly one source.
 * @module
 */
import { z } from 'zod';
import { objectName } from './kube-names.js';
import { sizeQuantity } from './kube-quantity.js';
import { exactlyOne } from './exactly-one.js';

const mode = z.int().min(0).max(0o777).describe('File mode bits, e.g. 0644 (decimal 420)');

const keyToPath = z
  .strictObject({
    key: z.string().min(1).describe('Key in the ConfigMap or Secret'),
    path: z.string().min(1).describe('Relative file path to write it to'),
    mode: mode.optional(),
  })
  .describe('A key projected to a file');

const items = z.array(keyToPath).optional().describe('Only these keys, at these paths');

const sources = {
  configMap: z
    .strictObject({
      name: objectName.describe('ConfigMap name'),
      items,
      defaultMode: mode.optional(),
      optional: z.boolean().optional().describe('Whether the ConfigMap may be missing'),
    })
    .describe('Files from a ConfigMap'),
  secret: z
    .strictObject({
      secretName: objectName.describe('Secret name'),
      items,
      defaultMode: mode.optional(),
      optional: z.boolean().optional().describe('Whether the Secret may be missing'),
    })
    .describe('Files from a Secret'),
  hostPath: z
    .strictObject({
      path: z.string().startsWith('/').describe('Absolute path on the node'),
      type: z
        .enum([
          '',
          'DirectoryOrCreate',
          'Directory',
          'FileOrCreate',
          'File',
          'Socket',
          'CharDevice',
          'BlockDevice',
        ])
        .optional()
        .describe('What must exist at the path'),
    })
    .describe('A directory or file of the node'),
  emptyDir: z
    .strictObject({
      medium: z.enum(['', 'Memory']).optional().describe('"Memory" for tmpfs'),
      sizeLimit: sizeQuantity.optional().describe('Size limit, e.g. 1Gi'),
    })
    .describe('A scratch directory for the pod lifetime'),
  persistentVolumeClaim: z
    .strictObject({
      claimName: objectName.describe('PVC name'),
      readOnly: z.boolean().optional().describe('Mount read-only'),
    })
    .describe('An existing PersistentVolumeClaim'),
  nfs: z
    .strictObject({
      server: z.string().min(1).describe('NFS server host or IP'),
      path: z.string().min(1).describe('Exported path'),
      readOnly: z.boolean().optional().describe('Mount read-only'),
    })
    .describe('An NFS export'),
  csi: z
    .strictObject({
      driver: z.string().min(1).describe('CSI driver name'),
      readOnly: z.boolean().optional().describe('Mount read-only'),
      fsType: z.string().optional().describe('Filesystem type'),
      volumeAttributes: z.record(z.string(), z.string()).optional().describe('Driver options'),
      nodePublishSecretRef: z
        .strictObject({ name: objectName.describe('Secret name') })
        .optional()
        .describe('Secret passed to the driver'),
    })
    .describe('An inline CSI volume'),
  projected: z
    .strictObject({
      sources: z
        .array(z.record(z.string(), z.unknown()))
        .describe('Projections (secret, configMap, downwardAPI, serviceAccountToken)'),
      defaultMode: mode.optional(),
    })
    .describe('Several sources in one directory'),
};

const SOURCE_NAMES = Object.keys(sources);

export const volume = z
  .strictObject({
    name: objectName.optional().describe('Volume name; defaults to the map key'),
    configMap: sources.configMap.optional(),
    secret: sources.secret.optional(),
    hostPath: sources.hostPath.optional(),
    emptyDir: sources.emptyDir.optional(),
    persistentVolumeClaim: sources.persistentVolumeClaim.optional(),
    nfs: sources.nfs.optional(),
    csi: sources.csi.optional(),
    projected: sources.projected.optional(),
  })
  .check(exactlyOne('have', SOURCE_NAMES))
  .describe('A Kubernetes volume');

export const volumeMount = z
  .strictObject({
    name: objectName.optional().describe('Volume to mount; defaults to the map key'),
    mountPath: z.string().startsWith('/').describe('Absolute path in the container'),
    subPath: z.string().optional().describe('Path inside the volume to mount instead of its root'),
    subPathExpr: z.string().optional().describe('subPath with $(VAR) expansion'),
    readOnly: z.boolean().optional().describe('Mount read-only'),
    mountPropagation: z
      .enum(['None', 'HostToContainer', 'Bidirectional'])
      .optional()
      .describe('Mount propagation mode'),
  })
  .describe('Where a volume is mounted in a container');

/** A mount inside a container spec (init containers), where the volume name is required. */
export const namedVolumeMount = volumeMount.extend({
  name: objectName.describe('Volume to mount'),
});

export const volumeMap = z.record(z.string().min(1), volume).describe('Volumes by name');
export const volumeMountMap = z
  .record(z.string().min(1), volumeMount)
  .describe('Volume mounts by volume name');
