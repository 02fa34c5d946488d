/**
 * The files `sluice apply -f`, `create pipeline -f` read and `get projects|pipelines -o yaml`
 * writes, kubectl style: `apiVersion: sluice/v1`, a `kind` (`Project`, `Pipeline`, or `List`
 * of them), `metadata` and `spec`. A pipeline's `codefresh.yml` is held verbatim in
 * `spec.yaml` (comments and all), so what `get` prints applies back unchanged. Secrets come
 * back without their value; a secret listed without one keeps the value the server holds.
 * Problems are reported with file:line:column.
 * @module
 */
import { LineCounter, parseAllDocuments } from 'yaml';
import type { Document } from 'yaml';
import { z } from 'zod';
import { InputError } from '@sluice/errors';
import { SpecTemplate } from '@sluice/protocol';
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

const Item = z.discriminatedUnion('kind', [ProjectManifest, PipelineManifest]);
export const ManifestList = z
  .object({
    apiVersion: z.literal(API_VERSION).optional(),
    kind: z.literal('List'),
    items: z.array(Item),
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
      variables: pipeline.variables.map((v) =>
        v.secret ? { name: v.name, secret: true } : { name: v.name, value: v.value ?? '' },
      ),
      ...(pipeline.specTemplate === null
        ? { yaml: pipeline.yaml }
        : { specTemplate: pipeline.specTemplate }),
    },
  };
}

/** A manifest and, for a pipeline whose YAML is a block scalar, where that YAML starts. */
export interface ParsedManifest {
  manifest: Manifest;
  /** The file line before the pipeline YAML's first line, and its indentation. */
  yamlOrigin?: { line: number; indent: number };
}

/** Every manifest in `text` (several documents, or `kind: List`), in file order. */
export function parseManifests(text: string, file: string): ParsedManifest[] {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter, prettyErrors: false });
  if (!Array.isArray(docs))
    throw new InputError('SLUICE_MANIFEST_INVALID', `${file}: no YAML documents`);
  const out: ParsedManifest[] = [];
  const sourceLines = text.split('\n');
  for (const doc of docs) {
    const syntax = doc.errors[0];
    if (syntax !== undefined) {
      const at = syntax.linePos?.[0];
      throw invalid(`${file}:${at?.line ?? 1}:${at?.col ?? 1}`, firstLine(syntax.message));
    }
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    const kind = (value as { kind?: unknown }).kind;
    const schema = kind === 'List' ? ManifestList : Item;
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const path = issue?.path ?? [];
      const where = positionOf(doc, path, lineCounter);
      const field = path.length > 0 ? ` (${path.join('.')})` : '';
      throw invalid(`${file}:${where}`, `${issue?.message ?? 'invalid manifest'}${field}`);
    }
    const items = parsed.data.kind === 'List' ? parsed.data.items : [parsed.data];
    items.forEach((manifest, i) => {
      const at = parsed.data.kind === 'List' ? ['items', i, 'spec', 'yaml'] : ['spec', 'yaml'];
      const yamlOrigin =
        manifest.kind === 'Pipeline' ? blockOrigin(doc, at, lineCounter, sourceLines) : undefined;
      out.push({ manifest, yamlOrigin });
    });
  }
  if (out.length === 0)
    throw invalid(file, 'nothing to apply: expected a Project, a Pipeline or a List');
  return out;
}

function positionOf(doc: Document, path: readonly PropertyKey[], lines: LineCounter): string {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = doc.getIn(path.slice(0, depth) as unknown[], true) as
      { range?: [number, number, number] } | undefined;
    const offset = node?.range?.[0] ?? (depth === 0 ? doc.contents?.range?.[0] : undefined);
    if (offset !== undefined) {
      const pos = lines.linePos(offset);
      return `${pos.line}:${pos.col}`;
    }
  }
  return '1:1';
}

function blockOrigin(
  doc: Document,
  path: readonly (string | number)[],
  lines: LineCounter,
  source: readonly string[],
): { line: number; indent: number } | undefined {
  const node = doc.getIn(path, true) as { type?: string; range?: [number, number, number] };
  if (node?.range === undefined || !String(node.type).startsWith('BLOCK_')) return undefined;
  const header = lines.linePos(node.range[0]).line;
  const first = source.slice(header).find((l) => l.trim() !== '') ?? '';
  return { line: header, indent: first.length - first.trimStart().length };
}

function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '');
}

function invalid(where: string, message: string): InputError {
  return new InputError('SLUICE_MANIFEST_INVALID', `${where}: ${message}`, {
    hint: 'See docs/cli.md, "Manifests", or print one with: sluice get pipelines NAME -o yaml',
  });
}
