/**
 * The files `sluice apply -f`, `create pipeline -f` read and `get projects|pipelines -o yaml`
 * writes, kubectl style: `apiVersion: sluice/v1`, a `kind` (`Project`, `Pipeline`, or `List`
 * of them), `metadata` and `spec`. A pipeline's `codefresh.yml` is held verbatim in
 * `spec.yaml` (comments and all), so what `get` prints applies back unchanged. Secrets come
 * back without their value; a secret listed without one keeps the value the server holds.
 * Reading a file of them is manifest-file.ts (only `apply` and `create` load the YAML parser).
 * @module
 */
import { z } from 'zod';
import { Retention, SpecTemplate } from '@sluice/protocol';
import type { Pipeline, Project } from '@sluice/protocol';

export const API_VERSION = 'sluice/v1';

const Name = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9._-]*[a-z0-9])?$/, 'lowercase letters, digits, ".", "_" and "-"')
  .max(63);

export const ProjectManifest = z
  .object({
    apiVersion: z.literal(API_VERSION),
    kind: z.literal('Project'),
    metadata: z.object({ name: Name }).strict(),
  })
  .strict();
export type ProjectManifest = z.infer<typeof ProjectManifest>;

export const VariableManifest = z
  .object({
    name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'letters, digits and "_"'),
    value: z.string().optional().describe('Absent for a secret: the stored value is kept'),
    secret: z.boolean().optional(),
  })
  .strict();

export const PipelineManifest = z
  .object({
    apiVersion: z.literal(API_VERSION),
    kind: z.literal('Pipeline'),
    metadata: z.object({ name: Name, project: Name }).strict(),
    spec: z
      .object({
        runtimeEnvironment: z.string().min(1).nullable().optional(),
        maxConcurrentBuilds: z.number().int().min(1).max(1000).nullable().optional(),
        retention: Retention.nullable()
          .optional()
          .describe("How long its finished builds are kept; absent: the server's default"),
        variables: z.array(VariableManifest).optional(),
        yaml: z.string().min(1).optional().describe('The codefresh.yml, verbatim'),
        specTemplate: SpecTemplate.optional().describe(
          'Or: the codefresh.yml in the repository, read by each build at its commit',
        ),
      })
      .strict()
      .refine((spec) => (spec.yaml === undefined) !== (spec.specTemplate === undefined), {
        message:
          'give the pipeline its definition once: yaml (stored) or specTemplate (read from the repository)',
      }),
  })
  .strict();
export type PipelineManifest = z.infer<typeof PipelineManifest>;

export type Manifest = ProjectManifest | PipelineManifest;

export const ManifestItem = z.discriminatedUnion('kind', [ProjectManifest, PipelineManifest]);
export const ManifestList = z
  .object({
    apiVersion: z.literal(API_VERSION).optional(),
    kind: z.literal('List'),
    items: z.array(ManifestItem),
  })
  .strict();

export function projectManifest(project: Project): ProjectManifest {
  return { apiVersion: API_VERSION, kind: 'Project', metadata: { name: project.name } };
}

export function pipelineManifest(pipeline: Pipeline): PipelineManifest {
  return {
    apiVersion: API_VERSION,
    kind: 'Pipeline',
    metadata: { name: pipeline.name, project: pipeline.project },
    spec: {
      runtimeEnvironment: pipeline.runtimeEnvironment,
      maxConcurrentBuilds: pipeline.maxConcurrentBuilds,
      ...(pipeline.retention === null ? {} : { retention: pipeline.retention }),
      variables: pipeline.variables.map((v) =>
        v.secret ? { name: v.name, secret: true } : { name: v.name, value: v.value ?? '' },
      ),
      ...(pipeline.specTemplate === null
        ? { yaml: pipeline.yaml }
        : { specTemplate: pipeline.specTemplate }),
    },
  };
}
