/**
 * Images the engine carries for a Docker daemon that cannot pull them: the build's dind on a new
 * volume in an air-gapped cluster has no image at all, while the engine's network sandbox, its
 * volume helpers, the in-dind cleaner and a pipeline's first steps need `sluice/busybox:1`. The
 * engine image holds them as `docker save` archives in a directory beside the bundle
 * (`images/build-cluster-images.sh` writes them), listed in its `index.json`:
 *
 *   { "images": { "sluice/busybox:1": "sluice-busybox-1.tar" },
 *     "onDemand": { "sluice/git:1": "sluice-git-1.tar" } }
 *
 * Before a build, each image of `images` the daemon lacks is loaded from its archive: once per
 * new volume (~0.1 s for busybox); a warm volume has them already. An `onDemand` image (larger,
 * needed by some builds only: git for clones) is loaded when a step needs it and the daemon
 * lacks it, instead of a pull (`ensureImagePresent`).
 * @module
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DockerClient } from '@sluice/docker';
import { describeError } from '@sluice/errors';
import type { Logger } from '@sluice/log';

export const CARRIED_IMAGES_INDEX = 'index.json';

/**
 * The images `dir` carries, by reference, with their archive's path: those loaded before a build
 * (`images`) or when a step needs one (`onDemand`); empty without an index.
 */
export async function carriedImages(
  dir: string,
  which: 'images' | 'onDemand' = 'images',
): Promise<Map<string, string>> {
  let text: string;
  try {
    text = await readFile(join(dir, CARRIED_IMAGES_INDEX), 'utf8');
  } catch {
    return new Map();
  }
  const index = JSON.parse(text) as Record<string, Record<string, unknown> | undefined>;
  const images = new Map<string, string>();
  for (const [image, file] of Object.entries(index[which] ?? {}))
    // Only a file name: the index cannot point outside its directory.
    if (typeof file === 'string' && /^[\w.-]+\.tar$/.test(file)) images.set(image, join(dir, file));
  return images;
}

/** Loads one archive onto the daemon. */
export async function loadArchive(docker: DockerClient, archive: string): Promise<void> {
  await docker.loadImages(createReadStream(archive));
}

/**
 * Loads every image of `dir` that the daemon lacks; resolves with those it loaded. A failure is
 * logged, not thrown: the steps that need the image then fail with the daemon's pull error and
 * what to do about it.
 */
export async function loadCarriedImages(
  docker: DockerClient,
  dir: string | undefined,
  log: Logger,
): Promise<string[]> {
  if (dir === undefined) return [];
  const loaded: string[] = [];
  try {
    for (const [image, archive] of await carriedImages(dir)) {
      if (await docker.imageExists(image)) continue;
      await loadArchive(docker, archive);
      log.info('loaded a carried image onto the Docker daemon', { image });
      loaded.push(image);
    }
  } catch (err) {
    log.warn('could not load the images the engine carries', { dir, error: describeError(err) });
  }
  return loaded;
}
