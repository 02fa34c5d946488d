/**
 * What a new Docker daemon does only once, done before a build needs it: loading the images the
 * engine carries, and its first network and first container (the bridge and its firewall rules,
 * containerd's shim, runc, the first overlay mount). A warm-pool pod's engine runs this while it
 * waits, before its pod turns Ready, so the build that takes the pod starts its first step on a
 * daemon that has done all of it before (bench/kube-build, `pool`).
 *
 * The network and container it makes are the build's **spare sandbox**: the network and the
 * sandbox on it (build-sandbox.ts) that a build otherwise makes before its first step (about
 * 0.8 s of a start), left running for the build the pod takes (`RunBuildOptions.spareSandbox`),
 * which removes them at its end. Their names are fixed, so a daemon holds one spare at most:
 * one left on the pod's volume by an earlier pod (deleted before a build took it) is removed
 * first. A failure is logged, never thrown: the build then makes its own.
 * @module
 */
import type { DockerClient } from '@sluice/docker';
import { describeError } from '@sluice/errors';
import type { Logger } from '@sluice/log';
import { LABELS } from '../base/resource-names.js';
import { DEFAULT_SANDBOX_IMAGE, startSandbox } from './build-sandbox.js';
import { loadCarriedImages } from './carried-images.js';

/** The build id label of what the warm-up makes: no build's, and found by a cleaner as such. */
export const WARM_UP_BUILD = '(warm-up)';

/** The spare's network and container name, the same on every daemon. */
export const SPARE_NAME = 'sluice-warm-up';

/** A network with a running sandbox on it, made before the build that uses them. */
export interface SpareSandbox {
  networkName: string;
  sandboxId: string;
}

/** Warms the daemon up; the spare sandbox it leaves, or undefined when it could make none. */
export async function warmUpDaemon(
  docker: DockerClient,
  options: { carriedImagesDir?: string; log: Logger },
): Promise<SpareSandbox | undefined> {
  const { log } = options;
  await loadCarriedImages(docker, options.carriedImagesDir, log);
  if (!(await docker.imageExists(DEFAULT_SANDBOX_IMAGE).catch(() => false))) return undefined;
  try {
    await removeSpare(docker, { networkName: SPARE_NAME, sandboxId: SPARE_NAME });
    await docker.createNetwork(SPARE_NAME, { [LABELS.build]: WARM_UP_BUILD });
    const sandboxId = await startSandbox(docker, {
      containerName: SPARE_NAME,
      networkName: SPARE_NAME,
      image: DEFAULT_SANDBOX_IMAGE,
      labels: { [LABELS.build]: WARM_UP_BUILD },
      log,
    });
    if (sandboxId !== undefined) return { networkName: SPARE_NAME, sandboxId };
  } catch (err) {
    log.warn('the daemon warm-up did not run a container', { error: describeError(err) });
  }
  await removeSpare(docker, { networkName: SPARE_NAME, sandboxId: SPARE_NAME }).catch(
    () => undefined,
  );
  return undefined;
}

/** Removes a spare's container, then its network; either may be gone already. */
export async function removeSpare(docker: DockerClient, spare: SpareSandbox): Promise<void> {
  await docker.removeContainer(spare.sandboxId);
  await docker.removeNetwork(spare.networkName);
}

/** Whether the spare's sandbox still runs (the daemon may have restarted since it was made). */
export async function spareRuns(docker: DockerClient, spare: SpareSandbox): Promise<boolean> {
  const containers = await docker.listContainers({ [LABELS.build]: WARM_UP_BUILD });
  return containers.some((c) => c.id === spare.sandboxId && c.state === 'running');
}
