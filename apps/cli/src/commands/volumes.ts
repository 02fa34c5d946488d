/**
 * `sluice get volumes [NAME] [--runtime R]`: the warm volumes the runtime's volume provisioner
 * keeps in the cluster — which runtime and labels they serve, in use or free, their node and
 * size, how many builds have had them and when last. Read from the cluster with the kubeconfig
 * (the control plane never sees the cluster), as `sluice runner init` reaches it.
 * @module
 */
import { NotFoundError } from '@sluice/errors';
import { labelValue } from '@sluice/runtime-spec';
import { PROVISIONER_LABEL, volumeSummary } from '@sluice/provisioner';
import type { VolumeSummary } from '@sluice/provisioner';
import { connectCluster } from '../runner/runner-cluster.js';
import { defaultKubeconfig } from '../runner/runner-settings.js';
import type { Terminal } from '../ui/terminal.js';
import { formatAge } from '../ui/terminal.js';
import { printDocument, printResources } from './server-resources.js';
import type { OutputFormat } from './server-resources.js';
import { processEnvironment } from '../config.js';

export interface GetVolumesOptions {
  runtime?: string;
  kubeconfig?: string;
  kubeContext?: string;
  output: OutputFormat;
  columns: number;
}

export async function getVolumes(
  term: Terminal,
  name: string | undefined,
  options: GetVolumesOptions,
): Promise<number> {
  const cluster = connectCluster(
    options.kubeconfig ?? defaultKubeconfig(processEnvironment()),
    options.kubeContext,
  );
  try {
    const runtime = options.runtime === undefined ? undefined : labelValue(options.runtime);
    const volumes = (await cluster.resources.list({ kind: 'PersistentVolume' }))
      .filter((pv) => pv.metadata.labels?.[PROVISIONER_LABEL] !== undefined)
      .map(volumeSummary)
      .filter(
        (v) => runtime === undefined || v.runtime === options.runtime || v.runtimeLabel === runtime,
      )
      .filter((v) => name === undefined || v.name === name)
      .sort((a, b) => (b.lastUsedAt ?? '').localeCompare(a.lastUsedAt ?? ''));
    if (name !== undefined && volumes.length === 0)
      throw new NotFoundError('SLUICE_VOLUME_NOT_FOUND', `Volume "${name}" does not exist`, {
        hint: `List the volumes with: sluice get volumes (cluster of context ${cluster.contextName})`,
      });
    if (name !== undefined && (options.output === 'json' || options.output === 'yaml')) {
      printDocument(term, volumes[0], options.output);
      return 0;
    }
    printResources<VolumeSummary>(
      term,
      volumes,
      options.output,
      {
        header: ['NAME', 'RUNTIME', 'STATUS', 'NODE', 'SIZE', 'BUILDS', 'LAST USED', 'AGE'],
        keep: [0, 1],
        row: (v) => [
          v.name,
          v.runtime || '-',
          v.status,
          v.node ?? '-',
          v.capacity ?? '-',
          String(v.mountCount),
          formatAge(v.lastUsedAt),
          formatAge(v.createdAt),
        ],
        wide: {
          header: ['CLAIM', 'LABELS'],
          row: (v) => [
            v.claim ?? '-',
            Object.entries(v.labels)
              .map(([key, value]) => `${key}=${value}`)
              .join(','),
          ],
        },
      },
      options,
    );
    return 0;
  } finally {
    cluster.client.close();
  }
}
