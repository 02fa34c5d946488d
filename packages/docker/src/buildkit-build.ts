/**
 * `docker build` with BuildKit, for build steps that ask for it (`buildkit`, `buildx`,
 * `platform`, `cache_from`). The Engine API's BuildKit builds need a gRPC session over a hijacked
 * connection, which no Node client speaks, so the Docker CLI does it: the same endpoint as the
 * API client (its TLS material written to a private temporary directory), the context tar on
 * its stdin, `--progress=plain` lines back, the image id from `--iidfile`
 * (docs/adr/0002-buildkit-builds-through-the-docker-cli.md). Images get inline cache metadata,
 * so a later build can name them in `cache_from` without a registry.
 * @module
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '@sluice/errors';
import { LineSplitter } from './line-splitter.js';
import { BUILD_FAILED } from './image-build.js';
import { findBuildKitCli } from './buildkit-cli.js';
import type { BuildKitCli } from './buildkit-cli.js';
import type { DockerEndpoint } from './docker-endpoint.js';
import type { BuildImageOptions, BuiltImage } from './image-build.js';

export interface BuildKitBuildOptions extends BuildImageOptions {
  /** `linux/amd64`, or a comma-separated list. */
  platform?: string;
  /** Images whose inline cache the build may use. */
  cacheFrom?: string[];
  /** The daemon's own platform (`linux/amd64`), to explain a build for another one that fails. */
  daemonPlatform?: string;
}

export const PLATFORM_UNSUPPORTED = 'SLUICE_DOCKER_PLATFORM_UNSUPPORTED';

/** Lines of the build's output quoted in its error. */
const QUOTED_LINES = 3;

export async function runBuildKitBuild(
  endpoint: DockerEndpoint,
  context: NodeJS.ReadableStream,
  options: BuildKitBuildOptions,
  onLine: (line: string) => void,
): Promise<BuiltImage> {
  const first = options.tags[0];
  if (first === undefined) throw new TypeError('runBuildKitBuild needs at least one tag');
  const cli = await findBuildKitCli();
  const dir = await mkdtemp(join(tmpdir(), 'sluice-buildkit-'));
  try {
    const env = await cliEnvironment(endpoint, dir);
    const iidFile = join(dir, 'iid');
    const tail: string[] = [];
    const code = await runCli(cli, [...cli.build, ...buildFlags(options, iidFile), '-'], {
      env,
      context,
      signal: options.signal,
      onLine(line) {
        tail.push(line);
        if (tail.length > 50) tail.shift();
        onLine(line);
      },
    });
    if (code !== 0) throw buildFailure(first, options, tail);
    return { imageId: (await readFile(iidFile, 'utf8')).trim() };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function buildFlags(options: BuildKitBuildOptions, iidFile: string): string[] {
  const flags = ['--progress=plain', '--iidfile', iidFile];
  if (options.dockerfile !== undefined) flags.push('--file', options.dockerfile);
  for (const tag of options.tags) flags.push('--tag', tag);
  const args = { BUILDKIT_INLINE_CACHE: '1', ...options.buildArgs };
  for (const [key, value] of Object.entries(args)) flags.push('--build-arg', `${key}=${value}`);
  for (const [key, value] of Object.entries(options.labels ?? {}))
    flags.push('--label', `${key}=${value}`);
  if (options.target !== undefined) flags.push('--target', options.target);
  if (options.noCache === true) flags.push('--no-cache');
  if (options.platform !== undefined) flags.push('--platform', options.platform);
  for (const image of options.cacheFrom ?? []) flags.push('--cache-from', image);
  return flags;
}

/**
 * Only what the CLI needs: the daemon, BuildKit on, and a config directory of its own (no
 * context or credentials of whoever runs the engine). Nothing is inherited from our environment.
 */
async function cliEnvironment(
  endpoint: DockerEndpoint,
  dir: string,
): Promise<Record<string, string>> {
  const host = endpoint.host.startsWith('/') ? `unix://${endpoint.host}` : endpoint.host;
  const env: Record<string, string> = {
    DOCKER_HOST: host,
    DOCKER_BUILDKIT: '1',
    DOCKER_CONFIG: dir,
    HOME: dir,
  };
  if (endpoint.tls === undefined) return env;
  const { ca, cert, key } = endpoint.tls;
  await writeFile(join(dir, 'ca.pem'), ca, { mode: 0o600 });
  if (cert !== undefined) await writeFile(join(dir, 'cert.pem'), cert, { mode: 0o600 });
  if (key !== undefined) await writeFile(join(dir, 'key.pem'), key, { mode: 0o600 });
  return { ...env, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: dir };
}

interface RunCliOptions {
  env: Record<string, string>;
  context: NodeJS.ReadableStream;
  signal?: AbortSignal;
  onLine: (line: string) => void;
}

/** Runs the CLI to its exit with the context on stdin; a cancelled build kills it. */
function runCli(cli: BuildKitCli, args: string[], options: RunCliOptions): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(cli.path, args, { env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const lines = new LineSplitter(options.onLine);
    child.stdout.on('data', (chunk: Buffer) => lines.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => lines.push(chunk));
    // The CLI stops reading once it fails; what it did not read is of no use.
    child.stdin.on('error', () => undefined);
    options.context.on('error', (err: Error) => {
      child.kill('SIGTERM');
      reject(err);
    });
    options.context.pipe(child.stdin);
    // The CLI cancels the build on SIGINT (as on Ctrl-C) and ignores SIGTERM; a CLI that does not
    // stop within 10 s is killed, which drops its connection and so the build too.
    let killer: NodeJS.Timeout | undefined;
    const abort = () => {
      child.kill('SIGINT');
      killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    };
    options.signal?.addEventListener('abort', abort, { once: true });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(killer);
      options.signal?.removeEventListener('abort', abort);
      lines.flush();
      resolve(code ?? 1);
    });
  });
}

function buildFailure(image: string, options: BuildKitBuildOptions, tail: string[]): InputError {
  const quoted = errorLines(tail);
  const platform = options.platform;
  if (
    platform !== undefined &&
    options.daemonPlatform !== undefined &&
    platform.split(',').some((p) => p.trim() !== options.daemonPlatform)
  ) {
    return new InputError(
      PLATFORM_UNSUPPORTED,
      `Building image "${image}" for platform ${platform} failed on a Docker daemon that runs ${options.daemonPlatform}: ${quoted}`,
      {
        details: { image, platform, daemonPlatform: options.daemonPlatform },
        hint: `Build for ${options.daemonPlatform}, or install QEMU's binfmt handlers on the daemon's host (Debian's qemu-user-static) and base images for ${platform}`,
      },
    );
  }
  return new InputError(BUILD_FAILED, `Building image "${image}" failed: ${quoted}`, {
    details: { image },
    hint: 'Fix the Dockerfile instruction the build output shows failing',
  });
}

/** BuildKit's own error lines (`ERROR: …`, `error: failed to solve: …`), else the last lines. */
function errorLines(tail: string[]): string {
  const errors = tail.filter((line) => /^(error|ERROR)\b|failed to solve/.test(line));
  const chosen = errors.length > 0 ? errors : tail.filter((line) => line.trim() !== '');
  return chosen.slice(-QUOTED_LINES).join(' | ') || 'the docker CLI exited without a message';
}
