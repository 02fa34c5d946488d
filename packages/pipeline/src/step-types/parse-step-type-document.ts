/**
 * Parses a step-type document (`kind: step-type`): its metadata, its arguments schema and its
 * template of steps. Every problem is returned at once, placed at file:line:column, including
 * problems inside the JSON schema text and inside template placeholders.
 * @module
 */
import { didYouMean } from '@sluice/errors';
import { compareIssues, ISSUE_CODES } from '../pipeline-issue.js';
import type { IssuePath, PipelineIssue } from '../pipeline-issue.js';
import { parseYamlSource } from '../yaml-source.js';
import type { YamlSource } from '../yaml-source.js';
import type { ArgumentSchema } from './argument-schema.js';
import { checkDefaults, readArgumentsSchema } from './read-arguments-schema.js';
import type { DocumentReport } from './read-arguments-schema.js';
import { parseSemVer } from './semver.js';
import type { StepTypeDefinition } from './step-type-catalog.js';
import { checkTemplate } from './check-template.js';
import { DEFAULT_DELIMITERS } from './template.js';
import type { TemplateDelimiters } from './template.js';
import { isPlainMap } from '../schema/validators.js';
import { describeValue } from './values.js';

/** A parsed step type: the definition plus what the document declares. */
export interface StepTypeDocument extends StepTypeDefinition {
  description?: string;
  /**
   * `metadata.anyVersion: true`: the step type stands in for one published elsewhere at other
   * versions (Codefresh's marketplace `git-commit`, `helm`, ...), so a pipeline naming any
   * version of it gets this one, with a warning.
   */
  anyVersion?: boolean;
  argumentsSchema: ArgumentSchema;
  /** The template: step name → raw step map, placeholders still in place. */
  steps: Record<string, unknown>;
  delimiters: TemplateDelimiters;
}

export type ParseStepTypeResult =
  | { ok: true; definition: StepTypeDocument; warnings: PipelineIssue[] }
  | { ok: false; issues: PipelineIssue[] };

/** `account/name` or `name`: lower case, digits, `.`, `_` and `-`. */
export const STEP_TYPE_NAME = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)?$/;

const TOP_FIELDS = ['version', 'kind', 'metadata', 'spec'];
const SPEC_FIELDS = ['arguments', 'steps', 'delimiters', 'returns', 'stepsTemplate'];

export function parseStepTypeDocument(text: string, source: string): ParseStepTypeResult {
  const result = parseDocument(text, source);
  const sorted = (issues: PipelineIssue[]) => [...issues].sort(compareIssues);
  return result.ok
    ? { ...result, warnings: sorted(result.warnings) }
    : { ok: false, issues: sorted(result.issues) };
}

function parseDocument(text: string, source: string): ParseStepTypeResult {
  const yaml = parseYamlSource(text, source);
  const issues: PipelineIssue[] = [...yaml.issues];
  if (issues.some((i) => i.severity === 'error')) return { ok: false, issues };
  const report = reporter(yaml, issues);
  const doc = yaml.value;
  if (!isPlainMap(doc)) {
    const message = `A step-type document must be a map with version, kind, metadata and spec, got ${describeValue(doc)}`;
    report([], message, ISSUE_CODES.invalidValue);
    return { ok: false, issues };
  }
  checkFields(doc, [], TOP_FIELDS, report, yaml);
  checkHeader(doc, report);
  const meta = checkMetadata(doc.metadata, report);
  const spec = readSpec(doc.spec, yaml, report);
  if (issues.some((i) => i.severity === 'error') || meta === undefined || spec === undefined) {
    return { ok: false, issues };
  }
  const definition: StepTypeDocument = { ...meta, source, text, ...spec };
  return { ok: true, definition, warnings: issues };
}

type Spec = Pick<StepTypeDocument, 'argumentsSchema' | 'steps' | 'delimiters'>;

function readSpec(value: unknown, yaml: YamlSource, report: Report): Spec | undefined {
  if (!isPlainMap(value)) {
    reportMapNeeded(value, ['spec'], 'spec', 'with arguments and steps', report);
    return undefined;
  }
  checkFields(value, ['spec'], SPEC_FIELDS, report, yaml);
  if (value.stepsTemplate !== undefined) {
    const message =
      '"spec.stepsTemplate" (a text template) is not supported by Sluice; write the template as "spec.steps"';
    report(['spec', 'stepsTemplate'], message, ISSUE_CODES.unsupported);
  }
  if (value.returns !== undefined) {
    const message =
      '"spec.returns" is not checked by Sluice; steps still export variables with cf_export';
    report(['spec', 'returns'], message, ISSUE_CODES.unsupported, undefined, 'warning');
  }
  const delimiters = checkDelimiters(value.delimiters, report);
  const { schema, locate } = readArgumentsSchema(value.arguments, yaml, report);
  const steps = checkSteps(value.steps, report);
  if (schema === undefined) return undefined;
  checkDefaults(schema, locate, report);
  if (steps === undefined || delimiters === undefined) return undefined;
  checkTemplate({ steps, schema, delimiters, yaml, report });
  return { argumentsSchema: schema, steps, delimiters };
}

type Report = DocumentReport;

function reporter(yaml: YamlSource, issues: PipelineIssue[]): Report {
  return (path, message, code, at, severity = 'error') => {
    const position = at ?? yaml.locate(path);
    issues.push({ severity, code, message, path, file: yaml.file, ...position });
  };
}

function checkFields(
  map: Record<string, unknown>,
  path: IssuePath,
  known: string[],
  report: Report,
  yaml: YamlSource,
): void {
  for (const key of Object.keys(map)) {
    if (known.includes(key)) continue;
    const where = path.length === 0 ? 'a step-type document' : `"${path.join('.')}"`;
    const message = `Unknown field "${key}" in ${where}${didYouMean(key, known)}`;
    report([...path, key], message, ISSUE_CODES.unknownField, yaml.locate([...path, key], 'key'));
  }
}

function checkHeader(doc: Record<string, unknown>, report: Report): void {
  if (doc.version === undefined) {
    report([], "A step-type document needs version: '1.0'", ISSUE_CODES.missingField);
  } else if (doc.version !== '1.0') {
    const quote = doc.version === 1 ? '; quote it' : '';
    report(
      ['version'],
      `"version" must be the string "1.0", got ${describeValue(doc.version)}${quote}`,
      ISSUE_CODES.invalidValue,
    );
  }
  if (doc.kind === undefined) {
    report([], 'A step-type document needs kind: step-type', ISSUE_CODES.missingField);
  } else if (doc.kind !== 'step-type') {
    report(
      ['kind'],
      `"kind" must be "step-type", got ${describeValue(doc.kind)}`,
      ISSUE_CODES.invalidValue,
    );
  }
}

/**
 * Name, version, description and anyVersion; other metadata (maintainers, icon, tags, ...) is
 * ignored.
 */
function checkMetadata(
  value: unknown,
  report: Report,
): Pick<StepTypeDocument, 'name' | 'version' | 'description' | 'anyVersion'> | undefined {
  if (!isPlainMap(value)) {
    reportMapNeeded(value, ['metadata'], 'metadata', 'with name and version', report);
    return undefined;
  }
  const { name, version, description, anyVersion } = value;
  let ok = true;
  if (anyVersion !== undefined && typeof anyVersion !== 'boolean') {
    ok = false;
    report(
      ['metadata', 'anyVersion'],
      `"metadata.anyVersion" must be true or false, got ${describeValue(anyVersion)}`,
      ISSUE_CODES.invalidValue,
    );
  }
  if (typeof name !== 'string' || !STEP_TYPE_NAME.test(name)) {
    ok = false;
    const got = name === undefined ? 'it is missing' : `got ${describeValue(name)}`;
    report(
      ['metadata', 'name'],
      `"metadata.name" must be account/name in lower case (like sluice/git-commit-push), ${got}`,
      name === undefined ? ISSUE_CODES.missingField : ISSUE_CODES.invalidValue,
    );
  }
  if (typeof version !== 'string' || parseSemVer(version) === undefined) {
    ok = false;
    const got = version === undefined ? 'it is missing' : `got ${describeValue(version)}`;
    const quote = typeof version === 'number' ? '; quote it' : '';
    report(
      ['metadata', 'version'],
      `"metadata.version" must be a semantic version such as 1.0.0, ${got}${quote}`,
      version === undefined ? ISSUE_CODES.missingField : ISSUE_CODES.invalidValue,
    );
  }
  if (description !== undefined && typeof description !== 'string') {
    report(
      ['metadata', 'description'],
      `"metadata.description" must be a string, got ${describeValue(description)}`,
      ISSUE_CODES.invalidValue,
    );
  }
  if (!ok) return undefined;
  return {
    name: String(name),
    version: String(version),
    ...(typeof description === 'string' ? { description } : {}),
    ...(anyVersion === true ? { anyVersion } : {}),
  };
}

function checkDelimiters(value: unknown, report: Report): TemplateDelimiters | undefined {
  if (value === undefined) return DEFAULT_DELIMITERS;
  const path = ['spec', 'delimiters'];
  if (!isPlainMap(value)) {
    reportMapNeeded(value, path, 'spec.delimiters', 'with left and right', report);
    return undefined;
  }
  const { left, right } = value;
  let ok = true;
  for (const [key, item] of [
    ['left', left],
    ['right', right],
  ] as const) {
    if (typeof item !== 'string' || item.trim() === '') {
      ok = false;
      report(
        [...path, key],
        `"spec.delimiters.${key}" must be a non-empty string such as "[[", got ${describeValue(item)}`,
        item === undefined ? ISSUE_CODES.missingField : ISSUE_CODES.invalidValue,
      );
    }
  }
  for (const key of Object.keys(value).filter((k) => k !== 'left' && k !== 'right')) {
    report(
      [...path, key],
      `Unknown field "${key}" in "spec.delimiters"; it has left and right`,
      ISSUE_CODES.unknownField,
    );
  }
  if (ok && left === right) {
    report(
      path,
      `"spec.delimiters" needs different left and right, got "${String(left)}" twice`,
      ISSUE_CODES.invalidValue,
    );
    return undefined;
  }
  return ok ? { left: String(left), right: String(right) } : undefined;
}

function checkSteps(value: unknown, report: Report): Record<string, unknown> | undefined {
  const path = ['spec', 'steps'];
  if (!isPlainMap(value) || Object.keys(value).length === 0) {
    reportMapNeeded(value, path, 'spec.steps', 'of at least one step (name: step)', report);
    return undefined;
  }
  let ok = true;
  for (const [name, step] of Object.entries(value)) {
    if (isPlainMap(step)) continue;
    ok = false;
    report(
      [...path, name],
      `Template step "${name}" must be a map of step fields, got ${describeValue(step)}`,
      ISSUE_CODES.invalidValue,
    );
  }
  return ok ? value : undefined;
}

function reportMapNeeded(
  value: unknown,
  path: IssuePath,
  field: string,
  what: string,
  report: Report,
): void {
  if (value === undefined)
    report(
      path.slice(0, -1),
      `A step-type document needs "${field}", a map ${what}`,
      ISSUE_CODES.missingField,
    );
  else
    report(
      path,
      `"${field}" must be a map ${what}, got ${describeValue(value)}`,
      ISSUE_CODES.invalidValue,
    );
}
