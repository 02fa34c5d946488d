/**
 * Projects and pipelines, with their variables and secrets.
 * @module
 */
import { z } from 'zod';
import { Id, Name, Timestamp, VariableName } from './common.js';
import { Retention } from './lifecycle.js';

export const Project = z.object({ id: Id, name: Name, createdAt: Timestamp });
export type Project = z.infer<typeof Project>;
export const CreateProject = z.object({ name: Name });

export const PipelineVariable = z.object({
  name: VariableName,
  /** Null for secrets: their value is never returned. */
  value: z.string().nullable(),
  secret: z.boolean(),
});

/**
 * `owner/name` on the integration's host, or a clone URL: https, http or git without credentials
 * in it (they belong in a git integration), ssh or scp-like `git@host:path` with a user name.
 */
const REPOSITORY =
  /^(?:[\w.-]+(?:\/[\w.-]+)+|(?:https?|git):\/\/[^\s@/]+(?:\/\S*)?|ssh:\/\/(?:[\w.-]+@)?[^\s@/]+(?:\/\S*)?|[\w.-]+@[\w.-]+:\S+)$/;
/** A relative path inside the repository: no `..` part, no leading `/`, `-` or control character. */
const REPOSITORY_PATH = /^(?!-)(?!\/)(?!.*(?:^|\/)\.\.(?:\/|$))[^\p{Cc}\\]+$/u;

/**
 * Where a pipeline's definition lives when it is in its repository, as Codefresh's
 * `spec.specTemplate` names it: read by the build's engine, inside the runner's network, at the
 * build's own commit unless `revision` pins a branch or tag.
 */
export const SpecTemplate = z
  .object({
    location: z.literal('git'),
    repo: z
      .string()
      .max(500)
      .regex(
        REPOSITORY,
        'owner/name, or a clone URL without credentials (https://, ssh://, git://, git@host:path)',
      )
      .describe("`owner/name` on the git integration's host, or a clone URL"),
    path: z
      .string()
      .max(500)
      .regex(REPOSITORY_PATH, 'a path inside the repository, without ".." or a leading "/"')
      .default('codefresh.yml')
      .describe('The file in the repository (default `codefresh.yml`)'),
    revision: z
      .string()
      .min(1)
      .max(255)
      .regex(/^(?!-)[^\s\p{Cc}~^:?*[\\]+$/u, 'a branch, tag or commit')
      .optional()
      .describe(
        "A branch or tag to always read it from; absent: the build's own revision (the webhook's commit, `run-pipeline -b/--sha`)",
      ),
    context: Name.optional().describe(
      'The git integration that reads it (its token or SSH key); absent: the account default',
    ),
  })
  .strict();
export type SpecTemplate = z.infer<typeof SpecTemplate>;

export const Pipeline = z.object({
  id: Id,
  project: Name,
  name: Name,
  yaml: z.string().describe('The stored definition; empty when it lives in the repository'),
  specTemplate: SpecTemplate.nullable().describe(
    'Where the definition lives when it is in the repository; null: it is `yaml`',
  ),
  runtimeEnvironment: z.string().nullable().describe('Overrides the account default'),
  maxConcurrentBuilds: z.number().int().nullable(),
  retention: Retention.nullable().describe(
    "How long its finished builds are kept; null: the server's default (SLUICE_RETENTION_DAYS, SLUICE_RETENTION_BUILDS)",
  ),
  variables: z.array(PipelineVariable),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Pipeline = z.infer<typeof Pipeline>;

export const VariableInput = z.object({ value: z.string(), secret: z.boolean().default(false) });

export const CreatePipeline = z.object({
  name: Name,
  yaml: z.string().min(1).optional().describe('The definition, stored; or give `specTemplate`'),
  specTemplate: SpecTemplate.optional().describe(
    'Read the definition from the repository instead of storing it',
  ),
  runtimeEnvironment: z.string().nullable().optional(),
  maxConcurrentBuilds: z.number().int().min(1).max(1000).nullable().optional(),
  retention: Retention.nullable().optional(),
  variables: z.record(VariableName, VariableInput).optional(),
});

export const UpdatePipeline = CreatePipeline.omit({ name: true })
  .partial()
  .extend({
    removeVariables: z
      .array(VariableName)
      .max(1000)
      .optional()
      .describe('Variables and secrets to delete (a name that is not set is ignored)'),
    ifUpdatedAt: z
      .string()
      .optional()
      .describe(
        "The pipeline's `updatedAt` this change is based on: when it changed since, 409 SLUICE_PIPELINE_CHANGED with the current pipeline in `details.current` and nothing saved",
      ),
  });

/** 422 body when a pipeline's YAML does not validate: every problem with its position. */
export const PipelineIssueBody = z.object({
  severity: z.enum(['error', 'warning']),
  code: z.string(),
  message: z.string(),
  path: z.array(z.union([z.string(), z.number()])),
  line: z.number().int(),
  column: z.number().int(),
});

/** Body of `validatePipeline`: a pipeline's YAML, checked and not saved. */
export const ValidatePipeline = z.object({ yaml: z.string().min(1) });

/** Every problem of the YAML (errors and warnings), as a 422 of createPipeline would list them. */
export const PipelineValidation = z.object({
  ok: z.boolean().describe('No error (warnings may remain)'),
  issues: z.array(PipelineIssueBody),
  issueCount: z.number().int().describe('All problems, when more than `issues` lists'),
});
