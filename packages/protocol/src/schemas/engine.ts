/**
 * The engine protocol: one engine, one build, one token.
 * @module
 */
import { z } from 'zod';
import { BuildStatus, FinishedBuildStatus, LogLine, StepStatus } from './builds.js';
import { Id, ReportedTime, Timestamp, Variables } from './common.js';
import { StepName } from './limits.js';
import { EngineGitIntegration } from './git-integrations.js';
import { DeniedCluster, EngineCluster } from './clusters.js';
import { AnnotationChange } from './annotations.js';

/** Certificate, key and CA for mutual TLS between an engine and its dind. */
export const TlsBundle = z.object({
  caPem: z.string(),
  certPem: z.string(),
  keyPem: z.string(),
  serverName: z
    .string()
    .describe('The name the dind certificate carries; check it instead of the IP'),
});

/** A registry setting as the engine uses it (`RegistrySetting` of the engine). */
export const EngineRegistry = z.object({
  name: z.string(),
  domain: z.string(),
  username: z.string().optional(),
  password: z.string().optional(),
  default: z.boolean().optional(),
});
export type EngineRegistry = z.infer<typeof EngineRegistry>;

/** A step-type document as registered in the control plane. */
export const EngineStepType = z.object({
  source: z
    .string()
    .describe('Where it came from, shown in errors, e.g. "control plane: acme/deploy:1.0.0"'),
  text: z.string().describe('The step-type YAML document'),
});
export type EngineStepType = z.infer<typeof EngineStepType>;

export const EngineBuild = z.object({
  buildId: Id,
  number: z.number().int(),
  pipelineName: z.string(),
  projectName: z.string(),
  yaml: z
    .string()
    .describe('The definition to run; empty when `specTemplate` says where to read it'),
  specTemplate: z
    .object({
      repo: z.string(),
      path: z.string(),
      revision: z.string().describe("Empty: the repository's default branch"),
      context: z.string().nullable().describe('The git integration to read it with'),
      readsBuildCommit: z
        .boolean()
        .default(false)
        .describe(
          "The commit read is the build's own (it names a branch, no commit): it becomes CF_REVISION",
        ),
    })
    .nullable()
    .default(null)
    .describe(
      'The definition lives in the repository: clone it at `revision`, read `path`, and report it (engineDefinition) before any step',
    ),
  status: BuildStatus,
  facts: z
    .record(z.string(), z.string())
    .describe('Branch, revision, repository, commit: CF_* inputs'),
  variables: Variables,
  secrets: Variables.describe('Decrypted for the engine only; mask them'),
  volumeKey: z.string(),
  runtimeEnvironment: z.string().nullable(),
  tls: TlsBundle.describe("The engine's client certificate for its dind"),
  registries: z
    .array(EngineRegistry)
    .describe(
      "The account's Docker registries the pipeline names (build and push steps' `registry:`, the default one for such a step that names none, the hosts of its images), passwords decrypted for the engine only; mask them",
    ),
  clusters: z
    .array(EngineCluster)
    .default([])
    .describe(
      "The account's Kubernetes clusters the pipeline names (or all, with the variable SLUICE_CLUSTERS=*) that the build's project may use, credentials decrypted for the engine only: every step gets them in KUBECONFIG; mask them",
    ),
  deniedClusters: z
    .array(DeniedCluster)
    .default([])
    .describe(
      "The clusters the pipeline names that the build's project may not use: a deploy step naming one fails the build before its first step",
    ),
  gitIntegrations: z
    .array(EngineGitIntegration)
    .default([])
    .describe(
      "The account's git integrations the pipeline names (`git:` of clones and step types, the build's default for a clone that names none; for a definition in the repository, the one that reads it), tokens and keys decrypted for the engine only; mask them",
    ),
  stepTypes: z
    .array(EngineStepType)
    .describe(
      "The account's step types and the built-in ones it has not replaced, as registered, that the pipeline may name (its typed steps, and theirs): typed steps expand from them",
    ),
  logNextSeq: z
    .number()
    .int()
    .min(0)
    .default(0)
    .describe(
      'The log chunk the server stores next: an engine that starts again for this build numbers its chunks from here',
    ),
  logLimitBytes: z
    .number()
    .int()
    .min(0)
    .default(0)
    .describe(
      "The build log's limit in bytes of line text (the runtime's `runtimeScheduler.buildLogLimit`, else the server's `SLUICE_BUILD_LOG_LIMIT_BYTES`); past it the engine sends no more lines, says so once (a `log-limited` event) and the steps go on. 0: no limit",
    ),
  logBytesStored: z
    .number()
    .int()
    .min(0)
    .default(0)
    .describe(
      'Bytes of line text the server holds already: where an engine that starts again counts from',
    ),
});
export type EngineBuild = z.infer<typeof EngineBuild>;

/** Body of engineDefinition: the definition the engine read from the repository. */
export const PostEngineDefinition = z.object({
  yaml: z.string().describe('The file, as read (UTF-8)'),
  sha: z
    .string()
    .regex(/^[0-9a-f]{40}$/, 'a full commit id')
    .describe('The commit it was read at'),
});
export const EngineDefinitionAccepted = z.object({
  stepTypes: z
    .array(EngineStepType)
    .describe('The step types the definition may name, as in EngineBuild'),
  registries: z
    .array(EngineRegistry)
    .default([])
    .describe('The registries the definition names, as in EngineBuild: the engine adds them'),
  gitIntegrations: z
    .array(EngineGitIntegration)
    .default([])
    .describe('The git integrations the definition names, as in EngineBuild: the engine adds them'),
  clusters: z
    .array(EngineCluster)
    .default([])
    .describe('The clusters the definition names, as in EngineBuild: the engine adds them'),
  deniedClusters: z
    .array(DeniedCluster)
    .default([])
    .describe('The clusters the definition names that its build may not use, as in EngineBuild'),
});
export type EngineDefinitionAccepted = z.infer<typeof EngineDefinitionAccepted>;

export const EngineEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('build-started'), at: ReportedTime }),
  z.object({
    type: z.literal('step-started'),
    step: StepName,
    title: z
      .string()
      .max(1024)
      .optional()
      .describe("The step's `title:` with its variables filled in, secrets masked"),
    parent: StepName.optional().describe('The parallel block or step group it runs in'),
    attempt: z.number().int().min(1).optional().describe('1-based retry attempt'),
    at: ReportedTime,
  }),
  z.object({
    type: z.literal('approval-requested'),
    step: StepName,
    timeoutMs: z.number().int().min(0),
    finalState: z.enum(['approved', 'denied']).describe('What happens when nobody answers in time'),
    at: ReportedTime,
  }),
  z.object({
    type: z.literal('step-finished'),
    step: StepName,
    status: StepStatus,
    exitCode: z.number().int().nullable().optional(),
    reason: z.string().nullable().optional(),
    at: ReportedTime,
  }),
  z.object({
    type: z.literal('annotations'),
    step: StepName.describe('The step whose on_success, on_fail or on_finish made them'),
    changes: z.array(AnnotationChange).min(1).max(100),
    at: ReportedTime,
  }),
  z.object({
    type: z.literal('volume-ready'),
    volume: z.string().min(1).max(253).describe("The build's Docker volume (its workspace)"),
    reused: z.boolean().describe('An earlier build of its volume key left it: a warm cache'),
    createdAt: ReportedTime.nullable().describe('When Docker made the volume'),
    at: ReportedTime,
  }),
  z.object({
    type: z.literal('log-limited'),
    step: StepName.nullable().describe('The step whose line went past the limit'),
    limitBytes: z.number().int().min(0),
    at: ReportedTime,
  }),
  z.object({
    type: z.literal('build-finished'),
    status: FinishedBuildStatus,
    reason: z.string().nullable().optional(),
    at: ReportedTime,
  }),
]);
export type EngineEvent = z.infer<typeof EngineEvent>;

/**
 * What the log (the engine's notice) and the build (an annotation) say when the log reached
 * its limit: `The build log reached its limit of 64 MiB during step build; …`.
 */
export function logLimitMessage(limitBytes: number, step: string | null): string {
  const during = step === null ? '' : ` during step ${step}`;
  return `The build log reached its limit of ${formatSize(limitBytes)}${during}: later lines are not stored, the steps go on (runtimeScheduler.buildLogLimit, else the server's SLUICE_BUILD_LOG_LIMIT_BYTES)`;
}

/** `64 MiB`, `10 KiB`, `1000 bytes`. */
function formatSize(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 2 ** 30],
    ['MiB', 2 ** 20],
    ['KiB', 2 ** 10],
  ] as const)
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  return `${bytes} bytes`;
}

export const PostEngineEvents = z.object({ events: z.array(EngineEvent).min(1).max(500) });

/**
 * One chunk of a build's log. The server stores chunks in order and once: 204 means this chunk
 * and every earlier one are stored (a chunk already stored is ignored, so a resend is safe); a
 * chunk after a gap is refused with 409 `SLUICE_LOG_SEQUENCE_GAP`, `details.expectedSeq` naming
 * the chunk to resend from. docs/build-logs.md.
 */
export const PostLogChunk = z.object({
  seq: z
    .number()
    .int()
    .min(0)
    .describe(
      'Chunk number, from 0, no gaps: a seq already stored is ignored (204); one past the next expected is refused (409 SLUICE_LOG_SEQUENCE_GAP with details.expectedSeq)',
    ),
  lines: z.array(LogLine).max(5000),
});

export const ControlMessage = z.object({
  seq: z.number().int(),
  kind: z.enum(['cancel', 'approve', 'deny']),
  step: z.string().nullable().optional().describe('approve and deny: the step answered'),
  by: z.string().nullable().optional().describe('approve and deny: who answered'),
  at: Timestamp,
});
export type ControlMessage = z.infer<typeof ControlMessage>;
export const PollControl = z.object({
  after: z.coerce.number().int().min(0).default(0),
  wait: z.coerce.number().int().min(0).max(60).default(30),
});
