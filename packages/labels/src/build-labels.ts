/**
 * The labels on every Kubernetes object of a build. The control plane renders them
 * (@sluice/runtime-spec) and the agent selects by them (its reaper, its pod monitor), so both
 * take them from here: a value rendered one way and selected another would leave objects
 * behind, or delete another runtime's.
 * @module
 */
import { labelValue } from './label-value.js';

/** Labels on every object of a build; `sluice.io/build-id=<id>` lists them all. */
export const BUILD_LABELS = {
  buildId: 'sluice.io/build-id',
  runtime: 'sluice.io/runtime',
  component: 'sluice.io/component',
  managedBy: 'app.kubernetes.io/managed-by',
  account: 'sluice.io/account-id',
} as const;

/** The `app.kubernetes.io/managed-by` value of everything Sluice creates. */
export const MANAGED_BY_SLUICE = 'sluice';

/**
 * `app.kubernetes.io/managed-by=sluice,sluice.io/runtime=<value>`: one runtime's objects. The
 * runtime part is needed: the reaper deletes the objects of builds its account does not know,
 * and the running builds of another runtime that shares the namespace (another account's,
 * another control plane's) are unknown to it.
 */
export function runtimeSelector(runtimeName: string): string {
  return `${BUILD_LABELS.managedBy}=${MANAGED_BY_SLUICE},${BUILD_LABELS.runtime}=${labelValue(runtimeName)}`;
}
