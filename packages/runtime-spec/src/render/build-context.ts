/**
 * What the object renderers of one build share: its input, the names of everything it creates,
 * the namespace, the common labels, and the keys inside its Secret.
 * @module
 */
import type { RuntimeSpec } from '../schema/runtime-spec-schema.js';
import { BUILD_LABELS, labelValue, MANAGED_BY_SLUICE } from '@sluice/labels';

/** TLS material of one build, PEM text, issued by the control plane's dind CA. */
export interface BuildTls {
  caPem: string;
  /** The daemon's server certificate; its SANs must include `dindHost` of the build. */
  dindCertPem: string;
  dindKeyPem: string;
  /** The engine's client certificate. */
  clientCertPem: string;
  clientKeyPem: string;
}

export interface BuildRenderInput {
  buildId: string;
  accountId: string;
  projectId: string;
  pipelineId: string;
  branch?: string;
  trigger?: string;
  /** Used when the spec has no `controlPlaneUrl` of its own. */
  controlPlaneUrl: string;
  engineToken: string;
  tls: BuildTls;
  runtimeName: string;
  /** The pipeline's own Docker volume size, over `pvcs.dind.volumeSize`. */
  volumeSize?: string;
  /**
   * The clusters behind this runtime's firewall the build may use: the agent mints a token of
   * each service account (in the build's namespace) into the build's cluster Secret.
   */
  clusters?: readonly InClusterClusterInput[];
}

export interface InClusterClusterInput {
  name: string;
  serviceAccount: string;
  /** The namespace its steps use when they name none. */
  namespace: string;
}

/** The cluster Secret's one key, and the engine variable that holds it. */
export const CLUSTER_CREDENTIALS = {
  key: 'clusters.json',
  env: 'SLUICE_CLUSTER_CREDENTIALS',
} as const;

export { BUILD_LABELS };

/** Keys of the build Secret. The client trio follows the DOCKER_CERT_PATH file names. */
export const BUILD_SECRET_KEYS = {
  engineToken: 'engine-token',
  ca: 'ca.pem',
  clientCert: 'cert.pem',
  clientKey: 'key.pem',
  serverCert: 'server-cert.pem',
  serverKey: 'server-key.pem',
} as const;

/** The port dind serves the Docker API on, over mutual TLS (reference §2.4). */
export const DIND_PORT = 1300;

/**
 * The headless Service, one per namespace, that gives each dind pod the DNS name
 * `<pod>.sluice-dind.<namespace>.svc` (`hostname` + `subdomain`), so the engine's DOCKER_HOST is
 * known before the pod has an IP. `renderDindService` renders it.
 */
export const DIND_SERVICE_NAME = 'sluice-dind';

export interface BuildNames {
  dindPod: string;
  enginePod: string;
  pvc: string;
  secret: string;
  configMap: string;
  /** The Secret of the tokens the agent mints for the build's clusters behind the firewall. */
  clusterSecret: string;
}

export interface BuildContext {
  spec: RuntimeSpec;
  build: BuildRenderInput;
  names: BuildNames;
  namespace: string;
  /** Common labels, without the component. */
  labels: Record<string, string>;
  /** `tcp://` host of the build's daemon, by DNS name. */
  dindHost: string;
}

export function commonLabels(build: BuildRenderInput): Record<string, string> {
  return {
    [BUILD_LABELS.buildId]: labelValue(build.buildId),
    [BUILD_LABELS.runtime]: labelValue(build.runtimeName),
    [BUILD_LABELS.managedBy]: MANAGED_BY_SLUICE,
  };
}

/** The common labels plus the object's `sluice.io/component`. */
export function componentLabels(
  context: BuildContext,
  component: 'engine' | 'dind',
): Record<string, string> {
  return { ...context.labels, [BUILD_LABELS.component]: component };
}

export function dindHostName(podName: string, namespace: string): string {
  return `${podName}.${DIND_SERVICE_NAME}.${namespace}.svc`;
}
