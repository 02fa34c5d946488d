/**
 * Container specs for each step type, from a step whose strings are already interpolated.
 * @module
 */
import { existsSync } from 'node:fs';
import { posix } from 'node:path';
import { KUBECONFIG_PATH } from '../base/kube-contexts.js';
import { repoFromUrl, VOLUME_PATH } from '@sluice/pipeline';
import type { FreestyleStep, GitCloneStep } from '@sluice/pipeline';
import type { ContainerSpec } from '@sluice/docker';
import { CLONE_SCRIPT, freestyleScript } from './step-scripts.js';
import { cloneUrlFor } from './git-integrations.js';
import type { CloneCredentials } from './git-integrations.js';
import type { GitIntegrationSetting } from '../base/registry-settings.js';

export interface StepContainerContext {
  containerName: string;
  volumeName: string;
  /** Where the volume lives on the Docker daemon's host. */
  volumeMountpoint: string;
  networkName: string;
  /** The build's network sandbox, when it runs: steps share its network namespace. */
  sandboxId: string | undefined;
  labels: Record<string, string>;
  environment: string[];
  defaultWorkingDirectory: string;
  /** The runtime's user volume mounts, bound into every step container. */
  userBinds: string[];
  /** The build's clusters (kube-contexts.ts), copied into the container at KUBECONFIG_PATH. */
  kubeconfig?: string | undefined;
}

/** `working_directory` as Codefresh reads it: absolute, relative to the clone, or the image's own. */
export function resolveWorkingDirectory(
  value: string | undefined,
  defaultDirectory: string,
): string | undefined {
  if (value === undefined || value === '') return defaultDirectory;
  if (value === 'IMAGE_WORK_DIR') return undefined;
  return posix.isAbsolute(value) ? posix.normalize(value) : posix.join(defaultDirectory, value);
}

export function freestyleContainer(step: FreestyleStep, ctx: StepContainerContext): ContainerSpec {
  const base = {
    name: ctx.containerName,
    image: step.image,
    env: [...ctx.environment, ...step.environment.map(([k, v]) => `${k}=${v}`)],
    workingDir: resolveWorkingDirectory(step.workingDirectory, ctx.defaultWorkingDirectory),
    binds: [
      `${ctx.volumeName}:${VOLUME_PATH}`,
      ...ctx.userBinds,
      ...step.volumes.map((v) => volumeBind(v, ctx.volumeMountpoint)),
    ],
    ...networkOf(ctx, [step.name]),
    labels: ctx.labels,
    ...(ctx.kubeconfig === undefined
      ? {}
      : {
          files: [
            {
              dir: posix.dirname(KUBECONFIG_PATH),
              name: posix.basename(KUBECONFIG_PATH),
              content: Buffer.from(ctx.kubeconfig),
            },
          ],
        }),
  };
  if (step.commands !== undefined) {
    return {
      ...base,
      entrypoint: [step.shell === 'bash' ? 'bash' : 'sh', '-c'],
      cmd: [freestyleScript(step.commands)],
    };
  }
  return { ...base, entrypoint: step.entryPoint, cmd: step.cmd };
}

/**
 * `volumes: ['/codefresh/volume/cache:/root/.cache']`: Docker cannot bind part of a named
 * volume, so the sub-directory is bound through the volume's path on the daemon's host, which is
 * valid for a local daemon and for a dind alike.
 */
export function volumeBind(entry: string, volumeMountpoint: string): string {
  const [source = '', ...rest] = entry.split(':');
  const relative = posix.relative(VOLUME_PATH, posix.normalize(source));
  return [posix.join(volumeMountpoint, relative), ...rest].join(':');
}

function networkOf(
  ctx: StepContainerContext,
  aliases: string[],
): Pick<ContainerSpec, 'networkName' | 'networkAliases' | 'networkMode'> {
  if (ctx.sandboxId !== undefined) return { networkMode: `container:${ctx.sandboxId}` };
  return { networkName: ctx.networkName, networkAliases: aliases };
}

export interface CloneTarget {
  url: string;
  /** The URL without credentials, for output and reasons. */
  displayUrl: string;
  directory: string;
  repoName: string;
}

/** Where `step` clones from: `owner/name` on its integration's host, else on GitHub. */
export function cloneTarget(step: GitCloneStep, integration?: GitIntegrationSetting): CloneTarget {
  const url = cloneUrlFor(step.repo, integration);
  const repoName = repoFromUrl(url).name ?? 'repo';
  const parent = step.workingDirectory
    ? (resolveWorkingDirectory(step.workingDirectory, VOLUME_PATH) ?? VOLUME_PATH)
    : VOLUME_PATH;
  const displayUrl = url.replace(/\/\/[^@/]*@/, '//');
  return { url, displayUrl, directory: posix.join(parent, repoName), repoName };
}

export function gitCloneContainer(
  step: GitCloneStep,
  target: CloneTarget,
  gitImage: string,
  ctx: StepContainerContext,
  credentials: CloneCredentials,
): ContainerSpec {
  const binds = [`${ctx.volumeName}:${VOLUME_PATH}`, ...ctx.userBinds];
  // A file:// repository on this machine is mounted read-only at the same path.
  if (target.url.startsWith('file://')) {
    const hostPath = decodeURIComponent(new URL(target.url).pathname);
    if (existsSync(hostPath)) binds.push(`${hostPath}:${hostPath}:ro`);
  }
  const env = [
    ...ctx.environment,
    `SLUICE_CLONE_URL=${target.url}`,
    `SLUICE_CLONE_DISPLAY_URL=${target.displayUrl}`,
    `SLUICE_CLONE_DIR=${target.directory}`,
    `SLUICE_CLONE_REVISION=${step.revision ?? ''}`,
    `SLUICE_CLONE_DEPTH=${step.depth ?? ''}`,
    `SLUICE_GIT_USERNAME=${credentials.kind === 'token' ? credentials.username : ''}`,
    `SLUICE_GIT_PASSWORD=${credentials.kind === 'token' ? credentials.token : ''}`,
    `SLUICE_GIT_SSH_KEY=${credentials.kind === 'ssh-key' ? credentials.key : ''}`,
  ];
  const proxied = step.useProxy ? env : env.filter((e) => !/^(https?_proxy|HTTPS?_PROXY)=/.test(e));
  return {
    name: ctx.containerName,
    image: gitImage,
    entrypoint: ['sh', '-c'],
    cmd: [CLONE_SCRIPT],
    env: proxied,
    workingDir: VOLUME_PATH,
    binds,
    ...networkOf(ctx, []),
    labels: ctx.labels,
  };
}
