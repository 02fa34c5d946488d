/**
 * What a new Docker daemon does only once, done before a build needs it: loading the images the
 * engine carries, and its first network and first container (the bridge and its firewall rules,
 * containerd's shim, runc, the first overlay mount). A warm-pool pod's engine runs this while it
 * waits, before its pod turns Ready, so the build that takes the pod starts its first step on a
 * daemon that has done all of it before (bench/kube-build, `pool`). What it makes is removed; a
 * failure is logged, never thrown: the build then does the same for itself.
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { DockerClient } from '@sluice/docker';
import { describeError } from '@sluice/errors';
import type { Logger } from '@sluice/log';
import { LABELS } from '../base/resource-names.js';
import { DEFAULT_SANDBOX_IMAGE } from './build-sandbox.js';
import { loadCarriedImages } from './carried-images.js';

/** The build id label of what the warm-up makes: no build's, and found by a cleaner as such. */
export const WARM_UP_BUILD = '(warm-up)';

export async function warmUpDaemon(
  docker: DockerClient,
  options: { carriedImagesDir?: string; log: Logger },
): Promise<void> {
  const { log } = options;
  await loadCarriedImages(docker, options.carriedImagesDir, log);
  if (!(await docker.imageExists(DEFAULT_SANDBOX_IMAGE).catch(() => false))) return;
  const name = `sluice-warm-up-${randomBytes(4).toString('hex')}`;
  const labels = { [LABELS.build]: WARM_UP_BUILD };
  let id: string | undefined;
  try {
    await docker.createNetwork(name, labels);
    const started = await docker.start(
      {
        name,
        image: DEFAULT_SANDBOX_IMAGE,
        entrypoint: ['true'],
        env: [],
        binds: [],
        networkName: name,
        labels,
      },
      () => {},
    );
    id = started.id;
    await started.wait();
  } catch (err) {
    log.warn('the daemon warm-up did not run a container', { error: describeError(err) });
  } finally {
    await docker.removeContainer(id ?? name).catch(() => undefined);
    await docker.removeNetwork(name).catch(() => undefined);
  }
}
