/**
 * What a local runtime's engine process gets from its runtime spec, as the engine pod gets it
 * on Kubernetes (`engine-pod.ts`): `userEnvVars` as `SLUICE_USER_ENV_<NAME>` (literal values
 * only: a `valueFrom` names a Kubernetes object, which a local engine cannot read), the
 * `userVolumeMounts` whose volume is a `hostPath` as `SLUICE_USER_VOLUME_MOUNTS` (the host
 * directory, plus its `subPath`, bound at `mountPath` in every step; other volume kinds live
 * only in a cluster), and the spec's `proxy`. The agent sets them on the engine process.
 * @module
 */
import type { RuntimeSpec } from '../schema/runtime-spec-schema.js';
import { USER_ENV_PREFIX } from './engine-pod.js';
import { namedList, proxyEnv } from './pod-common.js';

export function renderLocalEngineEnv(spec: RuntimeSpec): Record<string, string> {
  const env: Record<string, string> = {};
  for (const variable of spec.runtimeScheduler?.userEnvVars ?? [])
    if (variable.value !== undefined) env[`${USER_ENV_PREFIX}${variable.name}`] = variable.value;
  const mounts = localUserMounts(spec);
  if (mounts.length > 0) env.SLUICE_USER_VOLUME_MOUNTS = JSON.stringify(mounts);
  for (const variable of proxyEnv(spec.proxy)) env[variable.name] = variable.value ?? '';
  return env;
}

function localUserMounts(spec: RuntimeSpec) {
  const dind = spec.dockerDaemonScheduler;
  const volumes = new Map(namedList(dind?.userVolumes).map((v) => [v.name, v]));
  return namedList(dind?.userVolumeMounts).flatMap((mount) => {
    const hostPath = volumes.get(mount.name)?.hostPath?.path;
    if (hostPath === undefined) return [];
    const sub = mount.subPath?.replace(/^\/+/, '') ?? '';
    const source = sub === '' ? hostPath : `${hostPath.replace(/\/+$/, '')}/${sub}`;
    return [{ mountPath: mount.mountPath, source, ...(mount.readOnly ? { readOnly: true } : {}) }];
  });
}
