/**
 * What a runtime gives every step of its builds, read once from the engine's environment by the
 * entry point (the engine pod gets it rendered from the runtime spec, a local engine from its
 * `RunEngine` task): `userEnvVars` (as `SLUICE_USER_ENV_<NAME>`, or `SLUICE_USER_SECRET_ENV_<NAME>`
 * when read from a Secret: those are masked in output like pipeline secrets) and the proxy
 * variables become build variables, so every step's container has them (git-clone gets the
 * proxy only with `use_proxy: true`);
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
  /** `userEnvVars` read from a Kubernetes Secret: variables of every step, masked in output. */
  secrets: Record<string, string>;
  mounts: UserVolumeMount[];
}

export const USER_ENV_PREFIX = 'SLUICE_USER_ENV_';
export const USER_SECRET_ENV_PREFIX = 'SLUICE_USER_SECRET_ENV_';
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
  return {
    variables: { ...proxyVariables(env), ...prefixed(env, USER_ENV_PREFIX) },
    secrets: prefixed(env, USER_SECRET_ENV_PREFIX),
    mounts: parseMounts(env[USER_VOLUME_MOUNTS_ENV]),
  };
}

/** The variables of `env` named `<prefix><NAME>`, as NAME. */
function prefixed(env: EnvSource, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const key = name.slice(prefix.length);
    if (name.startsWith(prefix) && key !== '' && value !== undefined) out[key] = value;
  }
  return out;
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
