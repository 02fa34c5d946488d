/**
 * Builds, their steps and timing waterfall, and their logs.
 * @module
 */
import { z } from 'zod';
import { Id, Name, Page, Timestamp, Variables } from './common.js';

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

export const StepStatus = z.enum([
  'pending',
  'running',
  'success',
  'failure',
  'skipped',
  'terminated',
]);
export type StepStatus = z.infer<typeof StepStatus>;

export const BuildStep = z.object({
  name: z.string(),
  position: z.number().int(),
  status: StepStatus,
  exitCode: z.number().int().nullable(),
  reason: z.string().nullable(),
  startedAt: Timestamp.nullable(),
  finishedAt: Timestamp.nullable(),
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

export const BuildTrigger = z.enum(['manual', 'webhook', 'cron', 'restart']);

export const Build = z.object({
  id: Id,
  number: z.number().int(),
  pipelineId: Id,
  project: Name,
  pipeline: Name,
  status: BuildStatus,
  trigger: BuildTrigger,
  initiator: z.string().nullable(),
  branch: z.string().nullable(),
  revision: z.string().nullable(),
  variables: Variables.describe('Build variables; secrets are never returned'),
  runtimeEnvironment: z.string().nullable(),
  agentId: Id.nullable(),
  reason: z.string().nullable(),
  retryOf: Id.nullable(),
  steps: z.array(BuildStep),
  timing: BuildTiming,
  createdAt: Timestamp,
  finishedAt: Timestamp.nullable(),
});
export type Build = z.infer<typeof Build>;

export const CreateBuild = z.object({
  branch: z.string().max(255).optional(),
  revision: z.string().max(64).optional(),
  variables: Variables.optional(),
  secrets: Variables.optional().describe('Masked in logs, stored encrypted, never returned'),
});

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
