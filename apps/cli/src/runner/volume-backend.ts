/**
 * `sluice runner init --volume-backend local|delegate --storage-class-delegate NAME`: where the
 * warm volumes' new volumes come from (the chart's `volumes.volumeBackend` and
 * `volumes.delegateStorageClass`; docs/volumes/).
 * @module
 */
import type { VolumesValues } from '@sluice/runtime-spec';

/** A StorageClass's name: a DNS subdomain. */
const STORAGE_CLASS = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/**
 * `--volume-backend` and `--storage-class-delegate` as volumes values (either implies warm
 * volumes); undefined when neither is given. A delegate backend needs its class, given now or
 * recorded.
 */
export function volumeBackendFlags(
  flags: { volumeBackend?: string; storageClassDelegate?: string },
  recordedDelegate: unknown,
  problems: string[],
): Pick<VolumesValues, 'volumeBackend' | 'delegateStorageClass'> | undefined {
  const { volumeBackend, storageClassDelegate } = flags;
  if (volumeBackend === undefined && storageClassDelegate === undefined) return undefined;
  if (volumeBackend !== undefined && volumeBackend !== 'local' && volumeBackend !== 'delegate')
    problems.push(`--volume-backend: ${JSON.stringify(volumeBackend)} is not local or delegate`);
  if (storageClassDelegate !== undefined && !STORAGE_CLASS.test(storageClassDelegate))
    problems.push(
      `--storage-class-delegate: ${JSON.stringify(storageClassDelegate)} is not a StorageClass name (kubectl get storageclass lists them)`,
    );
  const backend = volumeBackend ?? 'delegate';
  const delegate =
    storageClassDelegate ?? (typeof recordedDelegate === 'string' ? recordedDelegate : '');
  if (backend === 'delegate' && delegate === '')
    problems.push(
      "--volume-backend delegate needs --storage-class-delegate NAME: the cluster's StorageClass of its disks (kubectl get storageclass lists them)",
    );
  return backend === 'delegate'
    ? { volumeBackend: 'delegate', delegateStorageClass: delegate }
    : { volumeBackend: 'local' };
}
