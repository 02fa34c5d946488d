/**
 * The install's record: a ConfigMap `<release>-install` beside the agent holding the settings
 * the install was made with (the chart's values, token aside, and what only init knows: the
 * agent's name, the builds' placement and Docker daemon, the runtime-spec patch). Init writes
 * it with the install's other objects; a rerun of `init` and `upgrade` start from it, so a flag
 * left out keeps what is there instead of falling back to a default; `delete` removes it with
 * the rest (it carries the install's labels).
 * @module
 */
import { InputError } from '@sluice/errors';
import type { InstallObject } from '@sluice/runtime-spec';
import type { RunnerCluster } from './runner-cluster.js';
import type { InstallRecord, RunnerSettings } from './runner-settings.js';

export type { InstallRecord };

const RECORD_KEY = 'settings.json';
const RECORD_VERSION = 1;

export function installRecordName(release: string): string {
  return `${release}-install`;
}

/** The same value with every map's keys sorted: a rerun with the same settings writes the same text. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]),
  );
}

export function recordOf(settings: RunnerSettings): InstallRecord {
  const { token: _token, ...agent } = settings.values.agent;
  return {
    values: { ...settings.values, agent },
    agentName: settings.agentName,
    ...(settings.storageClass === undefined ? {} : { storageClass: settings.storageClass }),
    buildNodeSelector: settings.buildNodeSelector,
    buildTolerations: settings.buildTolerations,
    dind: settings.dind,
    runtimeSpecPatch: settings.runtimeSpecPatch,
  };
}

/** The ConfigMap that holds the record, labelled as the install's other objects are. */
export function installRecordObject(
  settings: RunnerSettings,
  labels: Record<string, string>,
): InstallObject {
  const text = JSON.stringify(
    sortedKeys({ version: RECORD_VERSION, ...recordOf(settings) }),
    null,
    2,
  );
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: installRecordName(settings.release),
      namespace: settings.namespace,
      labels,
      annotations: {
        'sluice.io/description':
          'The settings sluice runner init installed with; init and upgrade start from them',
      },
    },
    data: { [RECORD_KEY]: `${text}\n` },
  };
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The record of the install `release` in `namespace`, or undefined when there is none (a first
 * install, or one made before records were kept).
 * @throws InputError `SLUICE_RUNNER_RECORD_INVALID` when the ConfigMap is not a record.
 */
export async function readInstallRecord(
  cluster: RunnerCluster,
  namespace: string,
  release: string,
): Promise<InstallRecord | undefined> {
  const name = installRecordName(release);
  const configMap = await cluster.resources.read({ kind: 'ConfigMap', namespace, name });
  return configMap === undefined ? undefined : parseInstallRecord(configMap);
}

/**
 * The record a ConfigMap holds, checked enough that a hand-edited one fails here, naming it.
 * @throws InputError `SLUICE_RUNNER_RECORD_INVALID`
 */
export function parseInstallRecord(configMap: {
  metadata: { name: string; namespace?: string };
  [field: string]: unknown;
}): InstallRecord {
  const { name, namespace = '' } = configMap.metadata;
  const text = (configMap['data'] as Record<string, string> | undefined)?.[RECORD_KEY];
  let record: unknown;
  try {
    record = JSON.parse(text ?? '');
  } catch {
    record = undefined;
  }
  if (
    !isMap(record) ||
    record['version'] !== RECORD_VERSION ||
    !isMap(record['values']) ||
    typeof record['agentName'] !== 'string' ||
    !isMap(record['buildNodeSelector']) ||
    !Array.isArray(record['buildTolerations']) ||
    !isMap(record['dind']) ||
    !isMap(record['runtimeSpecPatch'])
  )
    throw new InputError(
      'SLUICE_RUNNER_RECORD_INVALID',
      `ConfigMap ${namespace}/${name} does not hold the install's settings as sluice runner init writes them (${RECORD_KEY}, version ${RECORD_VERSION})`,
      {
        hint: `Delete it (kubectl -n ${namespace} delete configmap ${name}) and run sluice runner init again with every flag of the install`,
      },
    );
  const { version: _version, ...fields } = record;
  return fields as unknown as InstallRecord;
}
