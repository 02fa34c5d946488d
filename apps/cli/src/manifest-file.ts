/**
 * A manifest file as `sluice apply -f` and `create pipeline -f` read it (manifests.ts has the
 * shapes): every Project and Pipeline in it, in file order, or the first problem at
 * file:line:column (not YAML, an alias bomb, a wrong field, a pipeline YAML over the server's
 * limit). Apart from manifests.ts so that `get pipelines` loads neither the YAML parser nor
 * the pipeline package.
 * @module
 */
import { LineCounter } from 'yaml';
import type { Document } from 'yaml';
import { InputError } from '@sluice/errors';
import { LIMITS } from '@sluice/protocol';
import { ManifestItem, ManifestList } from './manifests.js';
import type { Manifest, PipelineManifest } from './manifests.js';
import { readYamlDocuments } from './yaml-file.js';

/** A manifest and, for a pipeline whose YAML is a block scalar, where that YAML starts. */
export interface ParsedManifest {
  manifest: Manifest;
  /** The file line before the pipeline YAML's first line, and its indentation. */
  yamlOrigin?: { line: number; indent: number };
}

/** Every manifest in `text` (several documents, or `kind: List`), in file order. */
export function parseManifests(text: string, file: string): ParsedManifest[] {
  const lineCounter = new LineCounter();
  const read = readYamlDocuments(text, file, { lineCounter });
  if (!read.ok) throw invalid(read.problem);
  const out: ParsedManifest[] = [];
  const sourceLines = text.split('\n');
  for (const { doc, value } of read.value) {
    if (value === null || value === undefined) continue;
    const kind = (value as { kind?: unknown }).kind;
    const schema = kind === 'List' ? ManifestList : ManifestItem;
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const path = issue?.path ?? [];
      const where = positionOf(doc, path, lineCounter);
      const field = path.length > 0 ? ` (${path.join('.')})` : '';
      throw invalid(`${file}:${where}: ${issue?.message ?? 'invalid manifest'}${field}`);
    }
    const items = parsed.data.kind === 'List' ? parsed.data.items : [parsed.data];
    items.forEach((manifest, i) => {
      const at = parsed.data.kind === 'List' ? ['items', i, 'spec', 'yaml'] : ['spec', 'yaml'];
      if (manifest.kind === 'Pipeline')
        checkYamlSize(manifest, `${file}:${positionOf(doc, at, lineCounter)}`);
      const yamlOrigin =
        manifest.kind === 'Pipeline' ? blockOrigin(doc, at, lineCounter, sourceLines) : undefined;
      out.push({ manifest, yamlOrigin });
    });
  }
  if (out.length === 0)
    throw invalid(`${file}: nothing to apply: expected a Project, a Pipeline or a List`);
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

/**
 * The server refuses a pipeline YAML over its limit (413); said here, at its place in the
 * file, before anything is sent.
 */
function checkYamlSize(manifest: PipelineManifest, where: string): void {
  const bytes = Buffer.byteLength(manifest.spec.yaml ?? '', 'utf8');
  if (bytes <= LIMITS.pipelineYamlBytes) return;
  const { project, name } = manifest.metadata;
  throw new InputError(
    'SLUICE_PIPELINE_TOO_LARGE',
    `${where}: the YAML of pipeline ${project}/${name} (spec.yaml) is ${bytes} bytes; the limit is ${LIMITS.pipelineYamlBytes} bytes (1 MiB)`,
    { hint: 'Split the pipeline, or move repeated steps into a step type (docs/step-types.md)' },
  );
}

function invalid(problem: string): InputError {
  return new InputError('SLUICE_MANIFEST_INVALID', problem, {
    hint: 'See docs/cli.md, "Manifests", or print one with: sluice get pipelines NAME -o yaml',
  });
}
