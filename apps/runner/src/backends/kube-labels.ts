/**
 * The labels by which the agent finds the build objects it made: `managed-by=sluice` and the
 * runtime's own `sluice.io/runtime` value. The runtime part is needed: the reaper deletes the
 * objects of builds its account does not know, and the running builds of another runtime that
 * shares the namespace (another account's, another control plane's) are unknown to it. The
 * control plane renders the value with @sluice/runtime-spec, which the agent may not import;
 * it is therefore computed here by the same rule as runtime-spec's `labelValue` (kept when
 * valid, else cleaned and suffixed with an FNV-1a hash of the name), and `kube-labels.test.ts`
 * checks the two agree on every kind of name.
 * @module
 */

/** The label keys of runtime-spec's `BUILD_LABELS` that the agent reads. */
export const BUILD_LABEL_KEYS = {
  buildId: 'sluice.io/build-id',
  runtime: 'sluice.io/runtime',
  component: 'sluice.io/component',
  managedBy: 'app.kubernetes.io/managed-by',
} as const;

const MANAGED_BY_SLUICE = 'sluice';

const MAX = 63;
const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** The `sluice.io/runtime` value the objects of runtime `name` carry. */
export function runtimeLabelValue(name: string): string {
  if (name === '' || (name.length <= MAX && LABEL_VALUE.test(name))) return name;
  const suffix = `-${fnv1a(name)}`;
  const cleaned = name
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, MAX - suffix.length)
    .replace(/[^A-Za-z0-9]+$/, '');
  return cleaned === '' ? fnv1a(name) : `${cleaned}${suffix}`;
}

/** `app.kubernetes.io/managed-by=sluice,sluice.io/runtime=<value>`: one runtime's objects. */
export function runtimeSelector(name: string): string {
  return `${BUILD_LABEL_KEYS.managedBy}=${MANAGED_BY_SLUICE},${BUILD_LABEL_KEYS.runtime}=${runtimeLabelValue(name)}`;
}
