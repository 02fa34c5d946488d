/**
 * Images for test pods, with no registry anywhere: `images/build-cluster-images.sh` builds them
 * into the host's Docker engine (idempotent: a second run only inspects), and each node imports
 * the ones it needs into its own containerd (`docker save`, cached per image ID, then
 * `ctr images import`). Pods use them with `imagePullPolicy: Never` or `IfNotPresent`.
 * @module
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findRepoRoot } from '../repo-root.js';
import { runCommand, tailLines } from '../run-command.js';
import type { UnavailableError } from '@sluice/errors';
import { KUBE_IMAGES_UNAVAILABLE, stepFailed } from './kube-errors.js';
import type { StepFailureOptions } from './kube-errors.js';
import { runLogged } from './logged-command.js';

export const CLUSTER_IMAGES = {
  pause: 'sluice/pause:1',
  busybox: 'sluice/busybox:1',
  engine: 'sluice/engine:1',
  dind: 'sluice/dind:1',
} as const;
export type ClusterImage = (typeof CLUSTER_IMAGES)[keyof typeof CLUSTER_IMAGES];

export const BUILD_SCRIPT = 'images/build-cluster-images.sh';

export interface EnsureClusterImagesOptions {
  log?: (line: string) => void;
  /** Where the script's output goes; it is named in errors. */
  logPath: string;
  repoRoot?: string;
}

/** Runs the build script; every image it makes is in the host's Docker engine afterwards. */
export async function ensureClusterImages(options: EnsureClusterImagesOptions): Promise<void> {
  const root = options.repoRoot ?? findRepoRoot(dirname(fileURLToPath(import.meta.url)));
  const script = root === undefined ? undefined : join(root, BUILD_SCRIPT);
  if (script === undefined) {
    throw stepFailed(
      KUBE_IMAGES_UNAVAILABLE,
      'Building the cluster images',
      `find ${BUILD_SCRIPT}`,
      {
        hint: 'run the tests from a checkout of the Sluice repository',
      },
    );
  }
  const result = await runLogged('bash', [script], options.logPath, {
    onLine: (line) => options.log?.(line),
  });
  if (result.code !== 0) {
    throw stepFailed(KUBE_IMAGES_UNAVAILABLE, 'Building the cluster images', `bash ${script}`, {
      logPath: options.logPath,
      hint: `run bash ${script} and read its output`,
    });
  }
}

export interface ImportImagesOptions {
  /** The node's containerd socket. */
  socket: string;
  /** Where `docker save` archives are kept between clusters. */
  cacheDir: string;
}

/** Imports local Docker images into the node's containerd (namespace k8s.io). */
export async function importImages(
  images: readonly string[],
  options: ImportImagesOptions,
): Promise<void> {
  await mkdir(options.cacheDir, { recursive: true });
  await Promise.all([...new Set(images)].map((image) => importOne(image, options)));
}

async function importOne(image: string, options: ImportImagesOptions): Promise<void> {
  const archive = await savedArchive(image, options.cacheDir);
  const args = ['--address', options.socket, '--namespace', 'k8s.io', 'images', 'import', archive];
  const result = await runCommand('ctr', args, { timeoutMs: 300_000 });
  if (result.code !== 0) {
    throw importFailed(`ctr ${args.join(' ')}`, {
      output: result.spawnError?.message ?? tailLines(result.stderr, 10),
    });
  }
}

/** `docker save` of the image, reused while the image ID is unchanged. */
async function savedArchive(image: string, cacheDir: string): Promise<string> {
  const prefix = `${image.replace(/[/:]/g, '_')}-`;
  const archive = join(cacheDir, `${prefix}${await imageId(image)}.tar`);
  if (existsSync(archive)) return archive;
  const partial = `${archive}.partial-${process.pid}`;
  const saved = await runCommand('docker', ['save', '-o', partial, image], { timeoutMs: 300_000 });
  if (saved.code !== 0) {
    await rm(partial, { force: true });
    throw importFailed(`docker save ${image}`, { output: tailLines(saved.stderr, 5) });
  }
  await rename(partial, archive);
  // Archives of earlier builds of the same image are dead weight now.
  for (const name of await readdir(cacheDir)) {
    if (name.startsWith(prefix) && name.endsWith('.tar') && join(cacheDir, name) !== archive) {
      await rm(join(cacheDir, name), { force: true });
    }
  }
  return archive;
}

/** The first 12 hex digits of the image's ID in the host's Docker engine. */
async function imageId(image: string): Promise<string> {
  const inspect = await runCommand('docker', ['image', 'inspect', '--format', '{{.Id}}', image]);
  const id = /^sha256:([0-9a-f]{12})/.exec(inspect.stdout.trim())?.[1];
  if (inspect.code === 0 && id !== undefined) return id;
  throw importFailed(`docker image inspect ${image}`, {
    output: tailLines(inspect.stderr, 5),
    hint: `build it with: bash ${BUILD_SCRIPT}`,
  });
}

function importFailed(step: string, options: StepFailureOptions): UnavailableError {
  return stepFailed(KUBE_IMAGES_UNAVAILABLE, 'Importing images into the test node', step, options);
}
