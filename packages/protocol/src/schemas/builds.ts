/**
 * Builds, their steps and timing waterfall, and their logs.
 * @module
 */
import { z } from 'zod';
import { Annotations } from './annotations.js';
import { Id, Name, Page, Timestamp, Variables } from './common.js';
import { StepName } from './limits.js';

export const BuildStatus = z.enum([
  'pending',
  'elected',
  'running',
  'pending-approval',
  'success',
  'failure',
  'terminated',
  'error',
]);
export type BuildStatus = z.infer<typeof BuildStatus>;
/** The statuses a build ends in: the engine reports one of them last. */
export const FinishedBuildStatus = BuildStatus.extract([
  'success',
  'failure',
  'terminated',
  'error',
]);
export const FINISHED_STATUSES: readonly BuildStatus[] = FinishedBuildStatus.options;

/**
 * `pending-approval`: a pending-approval step waits for an answer; `timeout`: stopped at its
 * `timeout`; `denied`: an approval step someone (or its timeout) denied.
 */
export const StepStatus = z.enum([
  'pending',
  'running',
  'pending-approval',
  'success',
  'failure',
  'skipped',
  'terminated',
  'timeout',
  'denied',
]);
export type StepStatus = z.infer<typeof StepStatus>;

export const BuildStep = z.object({
  name: z.string(),
  position: z
    .number()
    .int()
    .describe(
      'Order in the pipeline tree, depth first; later steps added by the engine (hooks) come last',
    ),
  parent: z
    .string()
    .nullable()
    .describe(
      'The parallel block, typed step or matrix the step runs in (its lane); null at top level',
    ),
  stage: z
    .string()
    .nullable()
    .describe(
      "The stage it belongs to (the step's `stage:`, else its block's); null when it names none",
    ),
  attempt: z.number().int().min(1).describe('1-based; above 1 when `retry` ran the step again'),
  status: StepStatus,
  exitCode: z.number().int().nullable(),
  reason: z.string().nullable(),
  startedAt: Timestamp.nullable(),
  finishedAt: Timestamp.nullable(),
  answeredBy: z
    .string()
    .nullable()
    .describe('For a pending-approval step: who approved or denied it'),
  answeredAt: Timestamp.nullable().describe('For a pending-approval step: when it was answered'),
  title: z
    .string()
    .nullable()
    .describe(
      'Its `title:`: as written while it waits, with its variables filled in once started; null when it has none',
    ),
  needs: z
    .array(z.object({ step: z.string(), on: z.array(z.string()) }))
    .describe('The steps it waits for (its `when.steps`), each with the results it waits for'),
  block: z
    .enum(['parallel', 'sequential'])
    .nullable()
    .describe(
      "When it holds steps: `parallel` (a parallel block, `matrix` or `scale`: they start together, or as their `when.steps` allow) or `sequential` (a typed step's group: one after another); null for a step that holds none",
    ),
});
export type BuildStep = z.infer<typeof BuildStep>;

/** Body of approve and deny: one step, or every step waiting for approval. */
export const AnswerApproval = z.object({
  step: StepName.optional().describe('The pending-approval step; all of them when absent'),
});

/** When each phase of a build was reached (RFC 3339); absent until reached. */
export const BuildTiming = z.object({
  queuedAt: Timestamp.optional(),
  electedAt: Timestamp.optional(),
  dispatchedAt: Timestamp.optional(),
  objectsCreatedAt: Timestamp.optional(),
  engineStartedAt: Timestamp.optional(),
  firstStepStartedAt: Timestamp.optional(),
  finishedAt: Timestamp.optional(),
});
export type BuildTiming = z.infer<typeof BuildTiming>;

/**
 * Whether the build's Docker daemon started warm: the volume it got from the runtime's volume
 * provisioner, as the agent read it off the build's claim; on the local runtime (the machine's
 * Docker daemon), whether the engine found the build's Docker volume left by an earlier build.
 */
export const BuildCache = z.object({
  outcome: z
    .enum(['hit', 'miss', 'unknown'])
    .describe(
      "`hit`: a volume an earlier build warmed was reused; `miss`: a new, empty volume; `unknown`: the volume came from a provisioner that records nothing (not Sluice's)",
    ),
  reason: z
    .string()
    .max(1024)
    .describe('Why: the reuse keys that matched, or why no released volume could serve'),
  volume: z.string().max(253).nullable().describe('The PersistentVolume'),
  claim: z
    .string()
    .max(253)
    .describe("The build daemon's PersistentVolumeClaim; empty on the local runtime"),
  volumeCreatedAt: Timestamp.nullable().describe('When the volume was first made'),
  previousUseAt: Timestamp.nullable().describe('When its previous build let it go'),
  mountCount: z.int().min(0).nullable().describe('Builds that have had it, this one included'),
  usedBytes: z
    .int()
    .min(0)
    .nullable()
    .describe('Bytes of cache it held when the build got it, as the node last measured it'),
  capacity: z
    .string()
    .max(64)
    .nullable()
    .describe("The volume's size, as Kubernetes gives it (`10Gi`)"),
  storageClass: z.string().max(253).nullable(),
});
export type BuildCache = z.infer<typeof BuildCache>;

export const BuildTrigger = z.enum(['manual', 'webhook', 'cron', 'restart']);

/** Where a build's pipeline definition came from, and the commit it was read at. */
export const BuildDefinition = z.object({
  location: z
    .enum(['inline', 'git'])
    .describe('Stored in the pipeline, or read from its repository'),
  repo: z.string().nullable().describe('git: the repository'),
  path: z.string().nullable().describe('git: the file in it'),
  revision: z
    .string()
    .nullable()
    .describe(
      "git: the branch, tag or commit it is read at (null: the repository's default branch)",
    ),
  sha: z
    .string()
    .nullable()
    .describe('git: the commit it was read at; null until its engine has read it'),
});
export type BuildDefinition = z.infer<typeof BuildDefinition>;

/** What a build's commit was told on its git host (a commit status), and how it went. */
export const CommitStatusReport = z.object({
  integration: z.string().describe('The git integration whose token reports it'),
  repo: z.string(),
  sha: z.string(),
  context: z
    .string()
    .describe(
      "The status's name on the host: `sluice/<project>/<pipeline>`, or as SLUICE_COMMIT_STATUS_CONTEXT says",
    ),
  sent: z
    .array(
      z.object({
        state: z.enum(['pending', 'running', 'success', 'failure', 'error', 'cancelled']),
        at: Timestamp,
      }),
    )
    .describe(
      'Each state the host took, in order (a state superseded while the host was away is skipped)',
    ),
  attempts: z.number().int().describe('Failed tries of the state being sent'),
  lastError: z.string().nullable().describe("The host's last refusal or the network's error"),
  nextAttemptAt: Timestamp.nullable().describe('When it is tried again; null once done'),
});
export type CommitStatusReport = z.infer<typeof CommitStatusReport>;

export const Build = z.object({
  id: Id,
  number: z.number().int(),
  pipelineId: Id,
  project: Name,
  pipeline: Name,
  status: BuildStatus,
  trigger: BuildTrigger,
  initiator: z
    .string()
    .nullable()
    .describe("Who started it: a user's id (manual, restart), the webhook's sender (webhook)"),
  initiatorName: z
    .string()
    .nullable()
    .describe(
      "The initiator's name: the user's, or the webhook's sender as the git host names them",
    ),
  commit: z
    .object({
      sha: z.string(),
      message: z.string().nullable(),
      author: z.string().nullable(),
      url: z.string().nullable().describe('The commit on its git host'),
    })
    .nullable()
    .describe('The commit it built, as its webhook described it; null when it names none'),
  branch: z.string().nullable(),
  revision: z.string().nullable(),
  variables: Variables.describe('Build variables; secrets are never returned'),
  secretNames: z
    .array(z.string())
    .describe("The names of the build's secrets (their values are never returned)"),
  runtimeEnvironment: z.string().nullable(),
  agentId: Id.nullable(),
  reason: z.string().nullable(),
  retryOf: Id.nullable(),
  stages: z
    .array(z.string())
    .describe(
      "The pipeline's `stages:` in their order, as when the build was created; empty when it has none",
    ),
  steps: z.array(BuildStep),
  definition: BuildDefinition,
  timing: BuildTiming,
  cache: BuildCache.nullable().describe(
    'Whether its Docker daemon started on a warm volume; null until the agent reports it, and for runtimes without persistent volumes (local)',
  ),
  annotations: Annotations.describe(
    "Set by its steps' on_success, on_fail and on_finish (`annotations` with `entity_type: build`)",
  ),
  imageAnnotations: z
    .record(z.string(), Annotations)
    .describe(
      'Image metadata its steps set (`metadata`, or `annotations` with `entity_type: image`), by image',
    ),
  createdAt: Timestamp,
  finishedAt: Timestamp.nullable(),
});
export type Build = z.infer<typeof Build>;

export const CreateBuild = z.object({
  branch: z.string().max(255).optional(),
  revision: z.string().max(64).optional(),
  variables: Variables.optional(),
  secrets: Variables.optional().describe('Masked in logs, stored encrypted, never returned'),
  runtimeEnvironment: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("Run on this runtime environment instead of the pipeline's or the account default"),
  yaml: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Run this definition once instead of the pipeline's (`run-pipeline --local-file`, to try a change before pushing it): checked as a saved one is, 422 with each problem's line:column",
    ),
});

/** Query of `GET /api/v1/builds/:buildId/log`. */
export const BuildLogQuery = z.object({
  step: StepName.optional().describe(
    "One step's lines only, without the `[step] ` prefix each line has in the whole log",
  ),
  from: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      "The lines of chunks from this seq on (0 by default); the answer's `X-Sluice-Log-Next-Seq` header says where the next download starts",
    ),
});

/**
 * The header of `GET /api/v1/builds/:buildId/log` naming the chunk after the last one in the
 * answer: pass it as `?from=` to read what was stored since.
 */
export const LOG_NEXT_SEQ_HEADER = 'x-sluice-log-next-seq';

export const ListBuilds = Page.extend({
  pipelineId: Id.optional(),
  status: BuildStatus.optional(),
  branch: z.string().optional(),
});

export const LogStream = z.enum(['stdout', 'stderr', 'system']);
export const LogLine = z.object({
  step: z.string().nullable(),
  stream: LogStream,
  line: z.string(),
  at: Timestamp,
});
export type LogLine = z.infer<typeof LogLine>;

/** One chunk as stored and streamed: the SSE event id is `seq`. */
export const LogChunk = z.object({ seq: z.number().int().min(0), lines: z.array(LogLine) });
export type LogChunk = z.infer<typeof LogChunk>;
