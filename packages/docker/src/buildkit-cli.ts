/**
 * Which Docker CLI can run a BuildKit build: one with the buildx plugin (`docker buildx build
 * --load`), else one older than 23.0, whose `docker build` still speaks BuildKit itself when
 * `DOCKER_BUILDKIT=1` (Debian's docker.io; 23.0 and later hand BuildKit builds to buildx and
 * fail without it). Found once per process, among the usual install paths.
 * @module
 */
import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { UnavailableError } from '@sluice/errors';

export interface BuildKitCli {
  path: string;
  /** The words before the build's flags: `build`, or `buildx build --load`. */
  build: string[];
}

export const BUILDKIT_UNAVAILABLE = 'SLUICE_DOCKER_BUILDKIT_UNAVAILABLE';

/** Where Docker's packages put the CLI; the first that can build with BuildKit wins. */
export const DOCKER_CLI_PATHS = ['/usr/local/bin/docker', '/usr/bin/docker', '/bin/docker'];

let found: Promise<BuildKitCli> | undefined;

export function findBuildKitCli(): Promise<BuildKitCli> {
  found ??= search(DOCKER_CLI_PATHS).catch((err: unknown) => {
    found = undefined;
    throw err;
  });
  return found;
}

async function search(paths: string[]): Promise<BuildKitCli> {
  const seen: string[] = [];
  for (const path of paths) {
    if (!(await executable(path))) continue;
    if ((await output(path, ['buildx', 'version'])) !== undefined)
      return { path, build: ['buildx', 'build', '--load'] };
    const version = await output(path, ['--version']);
    seen.push(`${path} (${version?.trim() ?? 'no version'})`);
    const major = Number(/version (\d+)\./.exec(version ?? '')?.[1] ?? NaN);
    if (major < 23) return { path, build: ['build'] };
  }
  throw new UnavailableError(
    BUILDKIT_UNAVAILABLE,
    `No Docker CLI here can build with BuildKit: ${seen.length === 0 ? `none at ${paths.join(', ')}` : `${seen.join(', ')} lacks the buildx plugin`}`,
    {
      hint: "Install the docker-buildx plugin, or Debian's docker.io (apt-get install docker.io), on the engine's host",
    },
  );
}

async function executable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

function output(path: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(path, args, { env: {}, timeout: 10_000 }, (err, stdout) =>
      resolve(err === null ? stdout : undefined),
    );
  });
}
