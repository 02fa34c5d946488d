/**
 * The specs of containers that composition and services steps run besides the step's own:
 * service containers on the build network under their service name, and shell-command helpers
 * (readiness probes, setup). They run through `runToExit` (container-run.ts); their output goes
 * to the owner step's log, masked.
 * @module
 */
import { VOLUME_PATH } from '@sluice/pipeline';
import type { ServiceContainer } from '@sluice/pipeline';
import type { ContainerSpec } from '@sluice/docker';
import type { StepRuntime } from '../base/step-runtime.js';
import { volumeBind } from './step-containers.js';
import { helperLabels, helperName } from './container-run.js';

export const SERVICE_LABEL = 'io.sluice.service';

export interface ServiceSpecOptions {
  /** Variables every container of the step gets, before the service's own. */
  extraEnv?: [string, string][];
  /** A composition's own volumes: the name written in the file → the Docker volume's name. */
  volumes?: ReadonlyMap<string, string>;
  /** More names the service answers to on the build network (compose `links` aliases). */
  aliases?: string[];
  /** `add_flow_volume_to_composition`: the build volume at /codefresh/volume. */
  flowVolume?: boolean;
}

/**
 * A compose-style service as a container on the build network, reachable by its name. The
 * build's volume is mounted where the service asks for it (`${{CF_VOLUME_NAME}}:/path`, or a
 * sub-directory of /codefresh/volume as in freestyle steps), and everywhere at /codefresh/volume
 * with `flowVolume`. Its compose labels go on the container under the build's own, which win.
 */
export function serviceSpec(
  service: ServiceContainer,
  runtime: StepRuntime,
  owner: string,
  options: ServiceSpecOptions = {},
): ContainerSpec {
  const binds = service.volumes.map((entry) => serviceVolume(entry, runtime, options.volumes));
  if (options.flowVolume === true) binds.push(`${runtime.volumeName}:${VOLUME_PATH}`);
  return {
    name: helperName(runtime, owner, service.name),
    image: service.image,
    entrypoint: service.entrypoint,
    cmd: service.command,
    env: [...(options.extraEnv ?? []), ...service.environment].map(([k, v]) => `${k}=${v}`),
    workingDir: service.workingDirectory,
    binds,
    networkName: runtime.networkName,
    networkAliases: [service.name, ...(options.aliases ?? [])],
    labels: {
      ...Object.fromEntries(service.labels),
      ...helperLabels(runtime, owner),
      [SERVICE_LABEL]: service.name,
    },
  };
}

function serviceVolume(
  entry: string,
  runtime: StepRuntime,
  volumes: ReadonlyMap<string, string> | undefined,
): string {
  const [source = '', ...rest] = entry.split(':');
  if (source === runtime.volumeName) return entry;
  if (rest.length === 0) return entry;
  const named = volumes?.get(source);
  if (named !== undefined) return [named, ...rest].join(':');
  return volumeBind(entry, runtime.volumeMountpoint);
}

/** A shell-command helper: on the build's network sandbox when it runs, with the volume. */
export function commandSpec(
  name: string,
  image: string,
  commands: string[],
  runtime: StepRuntime,
  owner: string,
): ContainerSpec {
  return {
    name,
    image,
    entrypoint: ['sh', '-c'],
    cmd: [['set -e', ...commands].join('\n')],
    env: [...runtime.scope.environment(), ...runtime.stepEnvironment],
    workingDir: runtime.scope.defaultWorkingDirectory || VOLUME_PATH,
    binds: [`${runtime.volumeName}:${VOLUME_PATH}`],
    ...(runtime.sandboxId !== undefined
      ? { networkMode: `container:${runtime.sandboxId}` }
      : { networkName: runtime.networkName }),
    labels: helperLabels(runtime, owner),
  };
}
