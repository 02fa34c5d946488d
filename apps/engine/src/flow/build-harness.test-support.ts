/**
 * Test-only support for the engine's integration tests: the real Docker engine and test images,
 * pipelines from YAML text, builds run with every event recorded, and removal of the volumes a
 * test created. It holds no tests itself: the `.test-support.ts` name marks it test-only for
 * the boundary check (the testkit is a devDependency).
 * @module
 */
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { DockerClient } from '@sluice/docker';
import { formatIssue, parsePipeline } from '@sluice/pipeline';
import { ensureDockerEngine, ensureTestImages, runCommand, TEST_IMAGES } from '@sluice/testkit';
import type { ParsePipelineOptions, Pipeline } from '@sluice/pipeline';
import { runBuild } from './run-build.js';
import { volumeNameFor } from '../base/resource-names.js';
import type { RunBuildOptions } from './run-build.js';
import type { RepositoryDefinition } from './repository-definition.js';
import type { BuildEvent, BuildSummary } from '../base/build-events.js';

export const SHELL_IMAGE = TEST_IMAGES.shell;
export const GIT_IMAGE = TEST_IMAGES.git;

export interface RecordedBuild {
  summary: BuildSummary;
  events: BuildEvent[];
  buildId: string;
  volumeKey: string;
}

export type HarnessRunOptions = Partial<Omit<RunBuildOptions, 'docker' | 'onEvent'>> & {
  onEvent?: (event: BuildEvent) => void;
};

/** One per test file: create it in `before`, call `close()` in `after`. */
export class BuildHarness {
  readonly docker: DockerClient;
  readonly #volumeKeys = new Set<string>();

  private constructor(docker: DockerClient) {
    this.docker = docker;
  }

  /** Starts or finds the engine and builds the test images; fails loudly when it cannot. */
  static async create(): Promise<BuildHarness> {
    const engine = await ensureDockerEngine();
    await ensureTestImages();
    return new BuildHarness(DockerClient.create({ host: engine.socketPath }));
  }

  /** A fresh volume key, removed again by `close()`. */
  volumeKey(label = 'vol'): string {
    const key = uniqueId(`it-${label}`);
    this.#volumeKeys.add(key);
    return key;
  }

  /** Runs a pipeline of the given `steps:` entries: see `stepsPipeline`. */
  async runSteps(stepsYaml: string, options: HarnessRunOptions = {}): Promise<RecordedBuild> {
    return this.run(stepsPipeline(stepsYaml), options);
  }

  /** Runs a pipeline, or one read from its repository (`RepositoryDefinition`). */
  async run(
    pipeline: Pipeline | RepositoryDefinition,
    options: HarnessRunOptions = {},
  ): Promise<RecordedBuild> {
    const events: BuildEvent[] = [];
    const buildId = options.buildId ?? uniqueId('it-build');
    const volumeKey = options.volumeKey ?? this.volumeKey();
    this.#volumeKeys.add(volumeKey);
    const summary = await runBuild(pipeline, {
      gitImage: GIT_IMAGE,
      stopGraceSeconds: 1,
      ...options,
      facts: options.facts ?? { pipelineName: 'engine-int-test' },
      docker: this.docker,
      buildId,
      volumeKey,
      onEvent: (event) => {
        events.push(event);
        options.onEvent?.(event);
      },
    });
    return { summary, events, buildId, volumeKey };
  }

  async close(): Promise<void> {
    for (const key of this.#volumeKeys) await this.docker.removeVolume(volumeNameFor(key));
  }
}

export function uniqueId(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/** Parses a whole pipeline document that the test expects to be valid. */
export function pipelineFrom(yaml: string, options: ParsePipelineOptions = {}): Pipeline {
  const parsed = parsePipeline(yaml, { file: 'codefresh.yml', ...options });
  assert.ok(parsed.ok, parsed.issues.map(formatIssue).join('\n'));
  return parsed.pipeline;
}

/** The version 1.0 pipeline whose `steps:` are `stepsYaml` (entries indented by two spaces). */
export function stepsPipeline(stepsYaml: string): Pipeline {
  return pipelineFrom(`version: '1.0'\nsteps:${stepsYaml}`);
}

/** Output lines of one step, optionally of one stream, in arrival order. */
export function stepLines(
  events: readonly BuildEvent[],
  step: string,
  stream?: 'stdout' | 'stderr' | 'system',
): string[] {
  return events.flatMap((e) =>
    e.type === 'step-log' && e.step === step && (stream === undefined || e.stream === stream)
      ? [e.line]
      : [],
  );
}

/** Event types with each step's consecutive log lines collapsed into one `log` entry. */
export function outline(events: readonly BuildEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    const entry =
      e.type === 'step-log' ? `log:${e.step}` : 'step' in e ? `${e.type}:${e.step}` : e.type;
    if (out[out.length - 1] !== entry) out.push(entry);
  }
  return out;
}

export function stepFinished(
  events: readonly BuildEvent[],
  step: string,
): Extract<BuildEvent, { type: 'step-finished' }> | undefined {
  return events.find(
    (e): e is Extract<BuildEvent, { type: 'step-finished' }> =>
      e.type === 'step-finished' && e.step === step,
  );
}

/** The step's summary; fails the test when the step is missing. */
export function stepSummary(build: RecordedBuild, step: string): BuildSummary['steps'][number] {
  const found = build.summary.steps.find((s) => s.name === step);
  assert.ok(found, `no summary for step ${step}`);
  return found;
}

export async function volumeExists(name: string): Promise<boolean> {
  const result = await runCommand('docker', ['volume', 'inspect', name]);
  return result.code === 0;
}

/** One harness per test file: created before its tests, closed after; call it inside a test. */
export function useBuildHarness(): () => BuildHarness {
  let harness: BuildHarness | undefined;
  before(async () => {
    harness = await BuildHarness.create();
  });
  after(async () => {
    await harness?.close();
  });
  return () => {
    if (harness === undefined) throw new Error('The build harness is used outside a test');
    return harness;
  };
}
