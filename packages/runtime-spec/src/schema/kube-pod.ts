/**
 * Structural schemas of the pod-level Kubernetes objects a dind pod takes from its spec: pod
 * and container security contexts, and init containers.
 * @module
 */
import { z } from 'zod';
import { envVar, imagePullPolicy, resources } from './kube-core.js';
import { isDnsLabel, patterned } from './kube-names.js';
import { namedVolumeMount } from './kube-volumes.js';

const id = (what: string) => z.int().min(0).describe(what);

const seLinuxOptions = z
  .strictObject({
    user: z.string().optional().describe('SELinux user'),
    role: z.string().optional().describe('SELinux role'),
    type: z.string().optional().describe('SELinux type'),
    level: z.string().optional().describe('SELinux level'),
  })
  .describe('SELinux context');

const seccompProfile = z
  .strictObject({
    type: z.enum(['RuntimeDefault', 'Unconfined', 'Localhost']).describe('Profile kind'),
    localhostProfile: z.string().optional().describe('Profile file on the node, for Localhost'),
  })
  .describe('Seccomp profile');

export const podSecurityContext = z
  .strictObject({
    runAsUser: id('UID of the containers').optional(),
    runAsGroup: id('GID of the containers').optional(),
    runAsNonRoot: z.boolean().optional().describe('Refuse to start containers running as root'),
    fsGroup: id('Group owning the volumes').optional(),
    fsGroupChangePolicy: z
      .enum(['OnRootMismatch', 'Always'])
      .optional()
      .describe('When volume ownership is changed to fsGroup'),
    supplementalGroups: z.array(z.int().min(0)).optional().describe('Extra groups'),
    seLinuxOptions: seLinuxOptions.optional(),
    seccompProfile: seccompProfile.optional(),
    sysctls: z
      .array(
        z.strictObject({
          name: z.string().min(1).describe('Sysctl name'),
          value: z.string().describe('Sysctl value'),
        }),
      )
      .optional()
      .describe('Namespaced sysctls'),
  })
  .describe('Pod security context');

export const containerSecurityContext = z
  .strictObject({
    privileged: z.boolean().optional().describe('Run privileged (dockerd needs it)'),
    allowPrivilegeEscalation: z.boolean().optional().describe('Allow setuid escalation'),
    readOnlyRootFilesystem: z.boolean().optional().describe('Mount the root filesystem read-only'),
    runAsUser: id('UID of the container').optional(),
    runAsGroup: id('GID of the container').optional(),
    runAsNonRoot: z.boolean().optional().describe('Refuse to start as root'),
    capabilities: z
      .strictObject({
        add: z.array(z.string()).optional().describe('Capabilities to add'),
        drop: z.array(z.string()).optional().describe('Capabilities to drop'),
      })
      .optional()
      .describe('Linux capabilities'),
    procMount: z.enum(['Default', 'Unmasked']).optional().describe('/proc mount type'),
    seLinuxOptions: seLinuxOptions.optional(),
    seccompProfile: seccompProfile.optional(),
  })
  .describe('Container security context');

export const initContainer = z
  .strictObject({
    name: patterned(isDnsLabel, 'a container name (lowercase letters, digits and "-")').describe(
      'Container name',
    ),
    image: z.string().min(1).describe('Image'),
    imagePullPolicy: imagePullPolicy.optional(),
    command: z.array(z.string()).optional().describe('Entrypoint'),
    args: z.array(z.string()).optional().describe('Arguments'),
    workingDir: z.string().optional().describe('Working directory'),
    env: z.array(envVar).optional().describe('Environment variables'),
    resources: resources.optional(),
    volumeMounts: z.array(namedVolumeMount).optional().describe('Volumes to mount'),
    securityContext: containerSecurityContext.optional(),
  })
  .describe('A container run to completion before dind starts');
