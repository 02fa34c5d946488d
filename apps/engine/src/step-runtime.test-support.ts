/**
 * Test-only support for calling step runners (build, push, composition, services) directly: a
 * real StepRuntime on the real Docker engine, made the way run-build makes one (volume,
 * network, network sandbox), with every event recorded, and removed again by `close()`
 * (containers by the build's label, the network, the volume, and images the test names).
 * @module
 */
import { randomBytes } from 'node:crypto';
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
import { BuildScope } from './build-scope.js';
import { SecretMasker } from './secret-masker.js';
import { startSandbox } from './build-sandbox.js';
import { containerNameFor, LABELS, networkNameFor, volumeNameFor } from './resource-names.js';
import type { BuildEvent } from './build-events.js';
import type { StepRuntime } from './execute-step.js';
import type { RegistrySetting } from './registry-settings.js';

export const SHELL_IMAGE = TEST_IMAGES.shell;

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
    attempt: 1,
    stepEnvironment: [],
  };
  return {
    runtime,
    docker: client,
    events,
    controller,
    lines: (step, stream) =>
      events.flatMap((e) =>
        e.type === 'step-log' && e.step === step && (stream === undefined || e.stream === stream)
          ? [e.line]
          : [],
      ),
    writeFiles: (dir, files) => writeFiles(runtime, dir, files),
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
    const container = await runtime.docker.start(
      {
        name: `${runtime.buildId}-write-${randomBytes(3).toString('hex')}`,
        image: SHELL_IMAGE,
        entrypoint: ['sh', '-c'],
        cmd: ['mkdir -p "$(dirname "$F")" && printf %s "$C" > "$F"'],
        env: [`F=${VOLUME_PATH}/${dir}/${path}`, `C=${content}`],
        binds: [`${runtime.volumeName}:${VOLUME_PATH}`],
        labels: runtime.labels,
      },
      () => {},
    );
    const code = await container.wait();
    await runtime.docker.removeContainer(container.id);
    if (code !== 0) throw new Error(`writing ${path} into the volume failed with ${code}`);
  }
}

export function uniqueId(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
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
    ...fields,
  };
}

export function service(
  fields: Partial<ServiceContainer> & { name: string; image: string },
): ServiceContainer {
  return { environment: [], volumes: [], ports: [], ...fields };
}
