/**
 * `@sluice/kube/testing`: namespaces, service accounts with chosen permissions, and sources
 * that connect as them, on the test cluster of `useKubernetes()`. Import it from tests only.
 * @module
 */
export {
  adminSource,
  createNamespace,
  createServiceAccount,
  tokenSource,
} from './kube-fixtures.test-support.js';
export type { TestCluster, TestServiceAccountOptions } from './kube-fixtures.test-support.js';
