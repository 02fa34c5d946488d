/**
 * `dockerDaemonScheduler`: how the dind pod of a build is made (reference §2.2, §2.4, §2.6),
 * its reused Docker volume (`pvcs.dind`), and the daemon.json settings Sluice renders for it.
 * With `type: LocalDocker` builds use the host's Docker engine instead.
 * @module
 */
import { z } from 'zod';
import { typeName } from '../describe-value.js';
import { envVarMap, imagePullPolicy, resources } from './kube-core.js';
import { annotationMap, labelKeyList, objectName } from './kube-names.js';
import { containerSecurityContext, initContainer, podSecurityContext } from './kube-pod.js';
import { sizeQuantity } from './kube-quantity.js';
import { volumeMap, volumeMountMap } from './kube-volumes.js';
import { checkDns, httpUrl, podFields } from './scheduler-common.js';

export const dindPvc = z
  .strictObject({
    name: objectName.optional().describe('Prefix of the PVC name (pvc-<name>-<build>)'),
    storageClassName: objectName
      .optional()
      .describe('StorageClass of the volume provisioner that keeps volumes for reuse'),
    volumeSize: sizeQuantity.optional().describe('Size of the Docker volume, e.g. 16Gi'),
    reuseVolumeSelector: labelKeyList
      .optional()
      .describe('Comma list of PVC label keys whose values must all match for a volume reuse'),
    reuseVolumeSortOrder: labelKeyList
      .optional()
      .describe('Comma list of label keys; volumes matching them too are preferred, in order'),
    annotations: annotationMap.optional().describe('Annotations added to the PVC'),
  })
  .describe("The PersistentVolumeClaim holding the build daemon's /var/lib/docker");

const registryHost = z
  .string()
  .refine((host) => host !== '' && !host.includes('://'), {
    error: (issue) =>
      `must be a registry host[:port] or CIDR without a scheme, got ${typeName(issue.input)}`,
  })
  .describe('Registry host[:port] or CIDR');

export const daemonConfig = z
  .strictObject({
    mtu: z.int().min(68).max(65535).optional().describe('MTU of container networks, e.g. 1440'),
    registryMirrors: z
      .array(httpUrl)
      .optional()
      .describe('Docker Hub mirrors (registry-mirrors), tried in order'),
    insecureRegistries: z
      .array(registryHost)
      .optional()
      .describe('Registries reached without TLS verification (insecure-registries)'),
  })
  .describe("Settings rendered into the build daemon's daemon.json");

export const dockerDaemonScheduler = z
  .strictObject({
    type: z
      .enum(['DindKubernetesPod', 'DindPodPvc', 'LocalDocker'])
      .optional()
      .describe('DindKubernetesPod or DindPodPvc: a dind pod per build; LocalDocker: host Docker'),
    dindImage: z.string().min(1).optional().describe('Image of the Docker daemon'),
    imagePullPolicy: imagePullPolicy.optional(),
    userAccess: z.boolean().optional().describe('Steps may use the daemon (docker socket)'),
    envVars: envVarMap.optional().describe('Environment of the dind container'),
    pvcs: z
      .strictObject({ dind: dindPvc.optional() })
      .optional()
      .describe('Persistent volumes of the dind pod'),
    defaultDindResources: resources.optional().describe('dind container resources'),
    userVolumeMounts: volumeMountMap
      .optional()
      .describe('Mounts in dind and in every step container'),
    userVolumes: volumeMap.optional().describe('Volumes behind userVolumeMounts'),
    clientCertPath: z
      .string()
      .startsWith('/')
      .optional()
      .describe('Directory of the daemon TLS certificates'),
    volumeMounts: volumeMountMap.optional().describe('Extra mounts in the dind container'),
    volumes: volumeMap.optional().describe('Extra volumes of the dind pod'),
    podSecurityContext: podSecurityContext.optional(),
    containerSecurityContext: containerSecurityContext.optional(),
    initContainers: z.array(initContainer).optional().describe('Run before dind starts'),
    daemonConfig: daemonConfig.optional(),
    ...podFields,
  })
  .superRefine((dind, ctx) => checkDns(dind, ctx))
  .describe("The build's Docker daemon: one dind pod per build, or the host's Docker engine");
