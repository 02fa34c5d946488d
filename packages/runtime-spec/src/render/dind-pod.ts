/**
 * The dind pod of a build (reference §2.4): a privileged dockerd under tini, `/var/lib/docker`
 * on the build's PVC, the Docker API on :1300 over mutual TLS with the server certificate from
 * the build Secret, and every setting in a daemon.json rendered from `daemonConfig`.
 * @module
 */
import type { DockerDaemonScheduler } from '../schema/runtime-spec-schema.js';
import {
  BUILD_LABELS,
  BUILD_SECRET_KEYS,
  componentLabels,
  DIND_PORT,
  DIND_SERVICE_NAME,
} from './build-context.js';
import type { BuildContext } from './build-context.js';
import {
  defined,
  envList,
  namedList,
  placement,
  podMetadata,
  proxyEnv,
  secretFilesVolume,
} from './pod-common.js';
import type { KubeObject } from './pod-common.js';

export const DIND_DATA_ROOT = '/var/lib/docker';
export const DAEMON_JSON_PATH = '/etc/docker/daemon.json';
const DEFAULT_CERT_DIR = '/etc/ssl/sluice/';

/** Volume names inside the pod; `dind` is the one init containers mount to prepare the volume. */
export const DIND_VOLUMES = { data: 'dind', tls: 'dind-tls', config: 'dind-config' } as const;

function certDir(dind: DockerDaemonScheduler): string {
  const dir = dind.clientCertPath ?? DEFAULT_CERT_DIR;
  return dir.endsWith('/') ? dir : `${dir}/`;
}

/**
 * daemon.json. Hosts and TLS live here rather than as dockerd flags: dockerd refuses to start
 * when a setting is given both ways, so one place holds them all.
 */
export function daemonJson(dind: DockerDaemonScheduler): Record<string, unknown> {
  const dir = certDir(dind);
  const config = dind.daemonConfig;
  return {
    hosts: ['unix:///var/run/docker.sock', `tcp://0.0.0.0:${DIND_PORT}`],
    tls: true,
    tlsverify: true,
    tlscacert: `${dir}${BUILD_SECRET_KEYS.ca}`,
    tlscert: `${dir}${BUILD_SECRET_KEYS.serverCert}`,
    tlskey: `${dir}${BUILD_SECRET_KEYS.serverKey}`,
    ...defined({
      mtu: config?.mtu,
      'registry-mirrors': config?.registryMirrors,
      'insecure-registries': config?.insecureRegistries,
    }),
  };
}

function dindContainer(context: BuildContext, dind: DockerDaemonScheduler): unknown {
  const probe = { tcpSocket: { port: DIND_PORT } };
  return {
    name: 'dind',
    image: dind.dindImage,
    ...defined({ imagePullPolicy: dind.imagePullPolicy, resources: dind.defaultDindResources }),
    // tini reaps the shims of every step container. The image's own entrypoint issues a server
    // certificate from a CA key; here the certificate comes ready-made from the build Secret.
    command: ['/usr/bin/tini', '--', 'dockerd'],
    args: [`--config-file=${DAEMON_JSON_PATH}`],
    env: [...envList(dind.envVars), ...proxyEnv(context.spec.proxy)],
    // dockerd cannot create its NAT chains without it; a spec may add to it, rootless included.
    securityContext: { privileged: true, ...dind.containerSecurityContext },
    ports: [{ name: 'docker', containerPort: DIND_PORT }],
    startupProbe: { ...probe, periodSeconds: 1, failureThreshold: 90 },
    readinessProbe: { ...probe, periodSeconds: 10 },
    volumeMounts: [
      // On the container's own overlay filesystem dockerd falls back to the slow vfs driver.
      { name: DIND_VOLUMES.data, mountPath: DIND_DATA_ROOT },
      { name: DIND_VOLUMES.tls, mountPath: certDir(dind), readOnly: true },
      {
        name: DIND_VOLUMES.config,
        mountPath: DAEMON_JSON_PATH,
        subPath: 'daemon.json',
        readOnly: true,
      },
      ...namedList(dind.volumeMounts),
      ...namedList(dind.userVolumeMounts),
    ],
  };
}

function dindVolumes(context: BuildContext, dind: DockerDaemonScheduler): unknown[] {
  const keys = [BUILD_SECRET_KEYS.ca, BUILD_SECRET_KEYS.serverCert, BUILD_SECRET_KEYS.serverKey];
  return [
    { name: DIND_VOLUMES.data, persistentVolumeClaim: { claimName: context.names.pvc } },
    // Only the server's files: the engine token and client key stay out of this pod.
    secretFilesVolume(DIND_VOLUMES.tls, context.names.secret, keys),
    { name: DIND_VOLUMES.config, configMap: { name: context.names.configMap } },
    ...namedList(dind.volumes),
    ...namedList(dind.userVolumes),
  ];
}

export function renderDindPod(context: BuildContext, dind: DockerDaemonScheduler): KubeObject {
  const labels = componentLabels(context, 'dind');
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: podMetadata(context.names.dindPod, dind, { namespace: context.namespace, labels }),
    spec: {
      restartPolicy: 'Never',
      // With the headless Service, the pod is `<hostname>.<subdomain>.<namespace>.svc`.
      hostname: context.names.dindPod,
      subdomain: DIND_SERVICE_NAME,
      ...placement(dind),
      ...defined({ securityContext: dind.podSecurityContext, initContainers: dind.initContainers }),
      containers: [dindContainer(context, dind)],
      volumes: dindVolumes(context, dind),
    },
  };
}

/** The headless Service behind the dind pods' DNS names; one per namespace, made at install. */
export function renderDindService(namespace: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: DIND_SERVICE_NAME,
      namespace,
      labels: { [BUILD_LABELS.managedBy]: 'sluice' },
    },
    spec: {
      clusterIP: 'None',
      // Pods get DNS records before they are ready: the engine retries until dockerd answers.
      publishNotReadyAddresses: true,
      selector: { [BUILD_LABELS.managedBy]: 'sluice', [BUILD_LABELS.component]: 'dind' },
      ports: [{ name: 'docker', port: DIND_PORT, targetPort: DIND_PORT }],
    },
  };
}
