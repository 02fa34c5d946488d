/**
 * Projects and pipelines, with their variables and secrets.
 * @module
 */
import { z } from 'zod';
import { Id, Name, Timestamp, VariableName } from './common.js';

export const Project = z.object({ id: Id, name: Name, createdAt: Timestamp });
export type Project = z.infer<typeof Project>;
export const CreateProject = z.object({ name: Name });

export const PipelineVariable = z.object({
  name: VariableName,
  /** Null for secrets: their value is never returned. */
  value: z.string().nullable(),
  secret: z.boolean(),
});

export const Pipeline = z.object({
  id: Id,
  project: Name,
  name: Name,
  yaml: z.string(),
  runtimeEnvironment: z.string().nullable().describe('Overrides the account default'),
  maxConcurrentBuilds: z.number().int().nullable(),
  variables: z.array(PipelineVariable),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Pipeline = z.infer<typeof Pipeline>;

export const VariableInput = z.object({ value: z.string(), secret: z.boolean().default(false) });

export const CreatePipeline = z.object({
  name: Name,
  yaml: z.string().min(1),
  runtimeEnvironment: z.string().nullable().optional(),
  maxConcurrentBuilds: z.number().int().min(1).max(1000).nullable().optional(),
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
