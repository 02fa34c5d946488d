export { useKubernetes } from './use-kubernetes.js';
export type { ClusterAccessor, UseKubernetesOptions } from './use-kubernetes.js';
export { startKubernetes } from './kubernetes-cluster.js';
export type { KubernetesCluster, StartKubernetesOptions } from './kubernetes-cluster.js';
export { attachSharedCluster, startSharedClusters } from './shared-clusters.js';
export type {
  ClusterMode,
  SharedClusterData,
  SharedClusterFailure,
  SharedClusters,
  SharedClustersDescription,
} from './shared-clusters.js';
export { kubernetesUses, planKubeFiles, planKubeTier } from './kube-tier-plan.js';
export type { KubernetesUse, KubeTierPlan } from './kube-tier-plan.js';
export { ensureKubernetesBinaries, KUBERNETES_VERSION, KUBE_BINARIES } from './kube-build.js';
export type {
  EnsureKubernetesBinariesOptions,
  KubeBinary,
  KubernetesBinaries,
} from './kube-build.js';
export { CLUSTER_IMAGES, ensureClusterImages } from './cluster-images.js';
export type { ClusterImage, EnsureClusterImagesOptions } from './cluster-images.js';
export {
  clientPod,
  CLIENT_TLS_DIR,
  createDindTls,
  dindPod,
  DIND_PORT,
  waitForPod,
} from './test-pods.js';
export type { ClientPodOptions, DindPodOptions, DindTls, WaitForPodOptions } from './test-pods.js';
export { createCa, issueCert } from './openssl-certs.js';
export type { CertFiles, IssueCertOptions } from './openssl-certs.js';
export {
  KUBE_BUILD_FAILED,
  KUBE_IMAGES_UNAVAILABLE,
  KUBE_NOT_STARTED,
  KUBE_SHARED_NOT_STOPPABLE,
  KUBE_SHARED_UNREADABLE,
  KUBE_TEARDOWN_FAILED,
  KUBE_UNAVAILABLE,
} from './kube-errors.js';
export { trustHttpRegistry } from './node-config.js';
