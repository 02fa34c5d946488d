/**
 * Test-only support for calling step runners (build, push, composition, services) directly: a
 * real StepRuntime on the real Docker engine, made the way run-build makes one (volume,
 * network, network sandbox), with every event recorded, and removed again by `close()`
 * (containers by the build's label, the network, the volume, and images the test names).
 * @module
 */
import { DockerClient } from '@sluice/docker';
import { VOLUME_PATH } from '@sluice/pipeline';
import { silentLogger } from '@sluice/log';
import { ensureDockerEngine, ensureTestImages, TEST_IMAGES } from '@sluice/testkit';
import type {
  BuildStep,
  CompositionStep,
  PushStep,
  ServiceContainer,
  Step,
} from '@sluice/pipeline';
import { BuildScope } from '../base/build-scope.js';
import { SecretMasker } from '../base/secret-masker.js';
import { startSandbox } from '../containers/build-sandbox.js';
import { containerNameFor, LABELS, networkNameFor, volumeNameFor } from '../base/resource-names.js';
import type { BuildEvent } from '../base/build-events.js';
import type { StepRuntime } from '../base/step-runtime.js';
import type { RegistrySetting } from '../base/registry-settings.js';
import { SHELL_IMAGE, stepLines, uniqueId } from '../flow/build-harness.test-support.js';

export { SHELL_IMAGE, uniqueId };

export interface ShOptions {
  /** Default: the test shell image. */
  image?: string;
  env?: string[];
  /** Mount the build volume at /codefresh/volume. */
  volume?: boolean;
  /** Join the build's network sandbox, as a step does. */
  sandbox?: boolean;
}

export interface ShResult {
  code: number;
  stdout: string[];
  /** stdout and stderr lines in arrival order. */
  output: string[];
}

export interface StepRuntimeFixture {
  runtime: StepRuntime;
  docker: DockerClient;
  events: BuildEvent[];
  /** Aborting it cancels the "build". */
  controller: AbortController;
  /** Log lines of one step (or owner), optionally of one stream. */
  lines(step: string, stream?: 'stdout' | 'stderr' | 'system'): string[];
  /** Writes files under /codefresh/volume/<dir> (paths relative to it). */
  writeFiles(dir: string, files: Record<string, string>): Promise<void>;
  /** Runs `command` with `sh -c` in a container of the build, waits for it and removes it. */
  sh(command: string, options?: ShOptions): Promise<ShResult>;
  /** Names of the build's containers that also carry `labels`. */
  containers(labels: Record<string, string>): Promise<string[]>;
  /** Images (any reference) to remove on close. */
  removeOnClose(...references: string[]): void;
  close(): Promise<void>;
}

export interface CreateStepRuntimeOptions {
  /** The steps the scope knows (so `setStep` records their members). */
  steps?: Step[];
  registries?: RegistrySetting[];
  secrets?: Record<string, string>;
  /** Start the network sandbox as run-build does (default true). */
  sandbox?: boolean;
}

let dockerClient: DockerClient | undefined;

async function docker(): Promise<DockerClient> {
  if (dockerClient !== undefined) return dockerClient;
  const engine = await ensureDockerEngine();
  await ensureTestImages();
  dockerClient = DockerClient.create({ host: engine.socketPath });
  return dockerClient;
}

export async function createStepRuntime(
  options: CreateStepRuntimeOptions = {},
): Promise<StepRuntimeFixture> {
  const client = await docker();
  const buildId = uniqueId('it-step');
  const volumeName = volumeNameFor(buildId);
  const networkName = networkNameFor(buildId);
  const labels = { [LABELS.build]: buildId };
  const events: BuildEvent[] = [];
  const controller = new AbortController();
  const images = new Set<string>();
  const masker = new SecretMasker();
  for (const value of Object.values(options.secrets ?? {})) masker.add(value);
  const volume = await client.ensureVolume(volumeName, { [LABELS.volumeKey]: buildId, ...labels });
  await client.createNetwork(networkName, labels);
  const sandboxId =
    options.sandbox === false
      ? undefined
      : await startSandbox(client, {
          containerName: containerNameFor(buildId, 'sandbox', 0),
          networkName,
          image: SHELL_IMAGE,
          labels,
          log: silentLogger,
        });
  const runtime: StepRuntime = {
    docker: client,
    buildId,
    volumeName,
    volumeMountpoint: volume.mountpoint,
    networkName,
    sandboxId,
    labels,
    gitImage: TEST_IMAGES.git,
    sandboxImage: TEST_IMAGES.shell,
    scope: new BuildScope({
      system: { CF_BUILD_ID: buildId, CF_VOLUME_NAME: volumeName },
      variables: {},
      secrets: options.secrets ?? {},
      steps: options.steps ?? [],
    }),
    masker,
    emit: (event) => events.push(event),
    clock: Date.now,
    signal: controller.signal,
    stopGraceSeconds: 1,
    log: silentLogger,
    registries: options.registries ?? [],
    gitIntegrations: [],
    unknownGitIntegration: 'fail',
    attempt: 1,
    stepEnvironment: [],
  };
  return {
    runtime,
    docker: client,
    events,
    controller,
    lines: (step, stream) => stepLines(events, step, stream),
    writeFiles: (dir, files) => writeFiles(runtime, dir, files),
    sh: (command, shOptions) => sh(runtime, command, shOptions),
    containers: async (extra) =>
      (await client.listContainers({ ...labels, ...extra })).map((c) => c.name),
    removeOnClose: (...references) => references.forEach((r) => images.add(r)),
    async close() {
      for (const container of await client.listContainers(labels))
        await client.removeContainer(container.id);
      await client.removeNetwork(networkName);
      await client.removeVolume(volumeName);
      for (const image of images) await client.removeImage(image, { force: true });
    },
  };
}

/** One short container per file; content and path travel in the environment, unquoted. */
async function writeFiles(
  runtime: StepRuntime,
  dir: string,
  files: Record<string, string>,
): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const { code } = await sh(runtime, 'mkdir -p "$(dirname "$F")" && printf %s "$C" > "$F"', {
      env: [`F=${VOLUME_PATH}/${dir}/${path}`, `C=${content}`],
      volume: true,
    });
    if (code !== 0) throw new Error(`writing ${path} into the volume failed with ${code}`);
  }
}

async function sh(
  runtime: StepRuntime,
  command: string,
  options: ShOptions = {},
): Promise<ShResult> {
  const stdout: string[] = [];
  const output: string[] = [];
  const container = await runtime.docker.start(
    {
      name: uniqueId(`${runtime.buildId}-sh`),
      image: options.image ?? SHELL_IMAGE,
      entrypoint: ['sh', '-c'],
      cmd: [command],
      env: options.env ?? [],
      binds: options.volume ? [`${runtime.volumeName}:${VOLUME_PATH}`] : [],
      ...(options.sandbox ? { networkMode: `container:${runtime.sandboxId ?? ''}` } : {}),
      labels: runtime.labels,
    },
    (stream, line) => {
      output.push(line);
      if (stream === 'stdout') stdout.push(line);
    },
  );
  const code = await container.wait();
  await runtime.docker.removeContainer(container.id);
  return { code, stdout, output };
}

const BASE = {
  failFast: true,
  strictFailFast: false,
  hooks: {},
  position: { line: 1, column: 1 },
} as const;

export function buildStep(
  fields: Partial<BuildStep> & { name: string; imageName: string },
): BuildStep {
  return {
    ...BASE,
    type: 'build',
    dockerfile: { path: 'Dockerfile' },
    tags: ['latest'],
    tagPolicy: 'lowercase',
    buildArguments: [],
    noCache: false,
    disablePush: true,
    cacheFrom: [],
    ...fields,
  };
}

export function pushStep(
  fields: Partial<PushStep> & { name: string; candidate: string },
): PushStep {
  return { ...BASE, type: 'push', tags: [], ...fields };
}

export function compositionStep(
  fields: Partial<CompositionStep> & { name: string },
): CompositionStep {
  return {
    ...BASE,
    type: 'composition',
    services: [],
    candidates: [],
    variables: [],
    environment: [],
    volumes: [],
    addFlowVolume: false,
    ...fields,
  };
}

/** A service running `script` with `sh -c` in the shell image. */
export const shService = (script: string) => ({
  image: SHELL_IMAGE,
  entrypoint: ['sh', '-c'],
  command: [script],
});

export function service(
  fields: Partial<ServiceContainer> & { name: string; image: string },
): ServiceContainer {
  return {
    environment: [],
    volumes: [],
    ports: [],
    dependsOn: [],
    links: [],
    labels: [],
    ...fields,
  };
}
