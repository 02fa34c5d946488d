/**
 * The build's network sandbox: one small long-lived container on the build network whose
 * network namespace every sequential step joins, as the containers of a pod share their pause
 * container's. A step then starts without a network endpoint of its own (no veth, no DNS set-up),
 * which halves the start time of a short step, while still reaching the build network by name.
 * Without the sandbox image, steps fall back to joining the network one by one.
 * @module
 */
import { describeError } from '@sluice/errors';
import type { DockerClient } from '@sluice/docker';
import type { Logger } from '@sluice/log';
import { LABELS } from '../base/resource-names.js';

/** Tiny image with `sh` and `sleep`: built by images/build-local.sh, like Kubernetes' pause image. */
export const DEFAULT_SANDBOX_IMAGE = 'sluice/busybox:1';

/** PID 1 that sleeps until told to stop, and stops at once on SIGTERM. */
const SANDBOX_COMMAND = 'trap "exit 0" TERM INT; while :; do sleep 3600 & wait $!; done';

export interface StartSandboxOptions {
  containerName: string;
  networkName: string;
  image: string;
  labels: Record<string, string>;
  log: Logger;
}

/** The sandbox container's id, or undefined when it cannot run here (steps then join the network). */
export async function startSandbox(
  docker: DockerClient,
  options: StartSandboxOptions,
): Promise<string | undefined> {
  if (!(await docker.imageExists(options.image))) {
    options.log.info('network sandbox image missing; steps join the build network one by one', {
      image: options.image,
    });
    return undefined;
  }
  try {
    const sandbox = await docker.start(
      {
        name: options.containerName,
        image: options.image,
        entrypoint: ['sh', '-c'],
        cmd: [SANDBOX_COMMAND],
        env: [],
        binds: [],
        networkName: options.networkName,
        labels: { ...options.labels, [LABELS.step]: '(sandbox)' },
      },
      () => {},
    );
    return sandbox.id;
  } catch (err) {
    options.log.warn(
      'could not start the network sandbox; steps join the build network one by one',
      { error: describeError(err) },
    );
    return undefined;
  }
}
