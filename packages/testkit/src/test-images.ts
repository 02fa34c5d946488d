/**
 * Sluice's local test images, built on this host by `images/build-local.sh` with `docker import`
 * because no registry can be reached. The script is idempotent and fast when nothing changed,
 * so every test file may call `ensureTestImages()` in its setup.
 * @module
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UnavailableError } from '@sluice/errors';
import { findRepoRoot, REPO_ROOT_MARKER } from './repo-root.js';
import { runCommand, tailLines } from './run-command.js';

export const TEST_IMAGES = {
  shell: 'sluice/busybox:1',
  git: 'sluice/git:1',
  /** curl and jq, for the HTTP step types in step-types/. */
  http: 'sluice/http:1',
} as const;
export type TestImage = (typeof TEST_IMAGES)[keyof typeof TEST_IMAGES];

/** Debian's kubectl 1.20 on busybox: built by `ensureTestImages({ only: 'kubectl' })` alone. */
export const KUBECTL_IMAGE = 'sluice/kubectl:1';

export const TEST_IMAGES_UNAVAILABLE = 'SLUICE_TEST_IMAGES_UNAVAILABLE';

export interface EnsureTestImagesOptions {
  log?: (line: string) => void;
  /** Build just one image: `busybox`, `git`, `http`, or `kubectl` (built only when asked for). */
  only?: 'busybox' | 'git' | 'http' | 'kubectl';
  /** Also tag the images as `REGISTRY/sluice/NAME:TAG` (nothing is pushed). */
  registry?: string;
  /** Defaults to the repo this module lives in. */
  repoRoot?: string;
}

export interface TestImagesResult {
  images: TestImage[];
  /** The script's progress lines, e.g. "sluice/git:1 up to date". */
  lines: string[];
}

export async function ensureTestImages(
  options: EnsureTestImagesOptions = {},
): Promise<TestImagesResult> {
  const script = join(options.repoRoot ?? locateRepoRoot(), REPO_ROOT_MARKER);
  const args = [script];
  if (options.only !== undefined) args.push('--only', options.only);
  if (options.registry !== undefined) args.push('--registry', options.registry);
  const lines: string[] = [];
  const result = await runCommand('bash', args, {
    onLine: (line) => {
      lines.push(line);
      options.log?.(line);
    },
  });
  if (result.code !== 0)
    throw buildFailed(script, result.stderr || result.spawnError?.message || '');
  const images = Object.values(TEST_IMAGES).filter(
    (image) => options.only === undefined || image.startsWith(`sluice/${options.only}:`),
  );
  return { images, lines };
}

/** Whether the local engine has an image with this reference. */
export async function imageExists(name: string): Promise<boolean> {
  const result = await runCommand('docker', ['image', 'inspect', '--format', '{{.Id}}', name]);
  return result.code === 0;
}

function locateRepoRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const root = findRepoRoot(here);
  if (root === undefined) {
    throw new UnavailableError(
      TEST_IMAGES_UNAVAILABLE,
      `No ${REPO_ROOT_MARKER} found above ${here}`,
      { hint: 'run the tests from a checkout of the Sluice repository, or pass repoRoot' },
    );
  }
  return root;
}

/** The script reports "build-local: error: ..." and "build-local: hint: ..." on stderr. */
function buildFailed(script: string, stderr: string): UnavailableError {
  const error = /^build-local: error: (.*)$/m.exec(stderr)?.[1];
  const hint = /^build-local: hint: (.*)$/m.exec(stderr)?.[1];
  return new UnavailableError(
    TEST_IMAGES_UNAVAILABLE,
    `Building the test images failed: ${error ?? `${script} exited non-zero`}`,
    {
      details: { script, stderr: tailLines(stderr, 20) },
      hint: hint ?? `run ${script} and read its output`,
    },
  );
}
