/**
 * Entry point of the package: codefresh.yml text in, a validated `Pipeline` or every problem out.
 * Read → find the pipeline (bare file or `kind: pipeline` document) → normalize steps (fold
 * `arguments:`, expand typed steps) → schema → cross-field checks → build the model.
 * @module
 */
import { buildPipeline } from './build-model.js';
import { normalizePipeline } from './normalize-steps.js';
import { createPathMap, viewThrough } from './path-map.js';
import { compareIssues, ISSUE_CODES } from './pipeline-issue.js';
import { checkSemantics } from './semantic-checks.js';
import {
  DOCUMENT_KEYS,
  documentSchema,
  PIPELINE_KEYS,
  pipelineSchema,
  SPEC_KEYS,
  specSchema,
} from './schema/pipeline-schema.js';
import { isPlainMap, typeName } from './schema/validators.js';
import { setKey } from './step-types/values.js';
import { parseYamlSource } from './yaml-source.js';
import type { NotRunConstruct, Pipeline } from './model.js';
import type { IssuePath, PipelineIssue } from './pipeline-issue.js';
import type { SemanticContext } from './semantic-checks.js';
import type { ReportOptions, SchemaContext } from './schema/validators.js';
import type { StepTypeCatalog } from './step-types/step-type-catalog.js';
import type { YamlSource } from './yaml-source.js';

export interface ParsePipelineOptions {
  /** Shown in issues; defaults to `codefresh.yml`. */
  file?: string;
  /** Where typed steps (`type: account/name`) are looked up; without it they cannot expand. */
  stepTypes?: StepTypeCatalog;
}

export type ParsePipelineResult =
  | { ok: true; pipeline: Pipeline; issues: PipelineIssue[] }
  | { ok: false; issues: PipelineIssue[] };

type Raw = Record<string, unknown>;

export function parsePipeline(
  text: string,
  options: ParsePipelineOptions = {},
): ParsePipelineResult {
  const source = parseYamlSource(text, options.file ?? 'codefresh.yml');
  const issues = [...source.issues];
  const failed = () => issues.some((i) => i.severity === 'error');
  const done = () => issues.sort(compareIssues);
  if (failed()) return { ok: false, issues: done() };

  const reporter = (toDocument: (path: IssuePath) => IssuePath): SemanticContext => ({
    report(path, message, opts: ReportOptions = {}) {
      const at = toDocument(path);
      const { line, column } = source.locate(at, opts.at);
      const severity = opts.severity ?? 'error';
      const code = opts.code ?? ISSUE_CODES.invalidValue;
      issues.push({ severity, code, message, path: at, file: source.file, line, column });
    },
    reportInScalar(path, offset, message, code) {
      const at = toDocument(path);
      const where = source.locateInScalar(at, offset) ?? source.locate(at);
      issues.push({ severity: 'error', code, message, path: at, file: source.file, ...where });
    },
    where(path) {
      const { line, column } = source.locate(toDocument(path), 'key');
      return `${source.file}:${line}:${column}`;
    },
  });
  const documentCtx = reporter((path) => path);

  const found = findPipeline(source, documentCtx);
  if (found === undefined) return { ok: false, issues: done() };
  const paths = createPathMap(found.prefix);
  const ctx = reporter((path) => paths.toDocument(path));
  const root = normalizePipeline(found.root, { paths, ctx, stepTypes: options.stepTypes });
  (found.prefix.length === 0 ? pipelineSchema : specSchema).check(root, [], ctx);
  checkSemantics(root, ctx);
  if (failed()) return { ok: false, issues: done() };
  const pipeline = buildPipeline(root, viewThrough(source, paths));
  return { ok: true, pipeline: { ...pipeline, notRun: notRunOf(issues) }, issues: done() };
}

/** The warnings that name what Sluice accepts but does not run, for the engine to repeat. */
function notRunOf(issues: PipelineIssue[]): NotRunConstruct[] {
  const effects: Record<string, NotRunConstruct['effect']> = {
    [ISSUE_CODES.unsupported]: 'fails',
    [ISSUE_CODES.ignored]: 'ignored',
    [ISSUE_CODES.unknownField]: 'ignored',
  };
  return [...issues].sort(compareIssues).flatMap((issue) => {
    const effect = effects[issue.code];
    if (effect === undefined || issue.severity !== 'warning') return [];
    const { message, path, line, column } = issue;
    return [{ message, effect, path, line, column }];
  });
}

/** The map holding `steps`: the root, or `spec` of a `kind: pipeline` document. */
function findPipeline(
  source: YamlSource,
  ctx: SchemaContext,
): { root: Raw; prefix: IssuePath } | undefined {
  const value = source.value;
  if (!isPlainMap(value)) {
    ctx.report([], rootMessage(value));
    return undefined;
  }
  if (value.kind === undefined) {
    return { root: withoutAnchorHolders(value, PIPELINE_KEYS, [], source), prefix: [] };
  }
  documentSchema.check(withoutAnchorHolders(value, DOCUMENT_KEYS, [], source), [], ctx);
  if (value.kind !== 'pipeline' || !isPlainMap(value.spec)) return undefined;
  return { root: withoutAnchorHolders(value.spec, SPEC_KEYS, ['spec'], source), prefix: ['spec'] };
}

/**
 * Keys that only park YAML anchors for use elsewhere (`x-defaults: &defaults {...}`): an unknown
 * key is one when its name starts with `x-` or its value defines an anchor.
 */
function withoutAnchorHolders(
  map: Raw,
  known: Set<string>,
  path: IssuePath,
  source: YamlSource,
): Raw {
  const out: Raw = {};
  for (const [key, value] of Object.entries(map)) {
    const holder =
      !known.has(key) && (key.startsWith('x-') || source.definesAnchor([...path, key]));
    if (!holder) setKey(out, key, value);
  }
  return out;
}

function rootMessage(root: unknown): string {
  if (root === null || root === undefined) {
    return 'The pipeline file is empty; it needs "version" and "steps"';
  }
  return `A pipeline must be a map with "version" and "steps", got ${typeName(root)}`;
}
