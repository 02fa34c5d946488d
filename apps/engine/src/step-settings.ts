/**
 * What a runtime gives every step of its builds, read once from the engine's environment by the
 * entry point (the engine pod gets it rendered from the runtime spec, a local engine from its
 * `RunEngine` task): `userEnvVars` (as `SLUICE_USER_ENV_<NAME>`) and the proxy variables become
 * build variables, so every step's container has them (git-clone only with `use_proxy: true`);
 * `userVolumeMounts` (`SLUICE_USER_VOLUME_MOUNTS`, JSON) are bound into every step's container.
 * `sluice run` reads its proxy variables with the same function.
 * @module
 */
import { InputError } from '@sluice/errors';

export type EnvSource = Readonly<Record<string, string | undefined>>;

/** A path bound into every step container: `source` on the daemon's host (default: the same path). */
export interface UserVolumeMount {
  mountPath: string;
  source?: string;
  readOnly?: boolean;
}

export interface StepSettings {
  /** Variables of every step: the proxy first, then `userEnvVars` (a build's own variables win). */
  variables: Record<string, string>;
  mounts: UserVolumeMount[];
}

export const USER_ENV_PREFIX = 'SLUICE_USER_ENV_';
export const USER_VOLUME_MOUNTS_ENV = 'SLUICE_USER_VOLUME_MOUNTS';
const PROXY_NAMES = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
];

/** HTTP_PROXY, HTTPS_PROXY, NO_PROXY in either case, as set in `env`. */
export function proxyVariables(env: EnvSource): Record<string, string> {
  const proxy: Record<string, string> = {};
  for (const name of PROXY_NAMES) {
    const value = env[name];
    if (value) proxy[name] = value;
  }
  return proxy;
}

/** The step settings in `env`; a `SLUICE_USER_VOLUME_MOUNTS` that is not a list of mounts is an InputError. */
export function stepSettingsFrom(env: EnvSource): StepSettings {
  const variables: Record<string, string> = { ...proxyVariables(env) };
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(USER_ENV_PREFIX) || value === undefined) continue;
    const key = name.slice(USER_ENV_PREFIX.length);
    if (key !== '') variables[key] = value;
  }
  return { variables, mounts: parseMounts(env[USER_VOLUME_MOUNTS_ENV]) };
}

function parseMounts(text: string | undefined): UserVolumeMount[] {
  if (text === undefined || text === '') return [];
  const refuse = (why: string) =>
    new InputError('SLUICE_ENGINE_CONFIG_INVALID', `${USER_VOLUME_MOUNTS_ENV} ${why}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw refuse('is not JSON');
  }
  if (!Array.isArray(value)) throw refuse('must be a JSON list of mounts');
  return value.map((item: unknown, index) => {
    const mount = item as Partial<Record<keyof UserVolumeMount, unknown>>;
    if (typeof mount?.mountPath !== 'string' || !mount.mountPath.startsWith('/'))
      throw refuse(`[${index}].mountPath must be an absolute path`);
    if (
      mount.source !== undefined &&
      (typeof mount.source !== 'string' || !mount.source.startsWith('/'))
    )
      throw refuse(`[${index}].source must be an absolute path`);
    return {
      mountPath: mount.mountPath,
      ...(typeof mount.source === 'string' ? { source: mount.source } : {}),
      ...(mount.readOnly === true ? { readOnly: true } : {}),
    };
  });
}

/** Docker binds (`source:target[:ro]`) of the mounts. */
export function userVolumeBinds(mounts: readonly UserVolumeMount[]): string[] {
  return mounts.map(
    (m) => `${m.source ?? m.mountPath}:${m.mountPath}${m.readOnly === true ? ':ro' : ''}`,
  );
}
