/**
 * Expands one typed step (`type: account/name[:version]` with `arguments:`) into the raw steps
 * of its step type's template: find the step type in the catalog, check the arguments against
 * its schema, fill in the template. Every problem goes to the reporter at its place in the
 * pipeline; nothing is returned unless the expansion is complete.
 * @module
 */
import { didYouMean } from '@sluice/errors';
import { ISSUE_CODES } from '../pipeline-issue.js';
import type { IssuePath, PipelineIssue } from '../pipeline-issue.js';
import { expandTemplate } from './expand-template.js';
import { parseStepTypeDocument } from './parse-step-type-document.js';
import type { ParseStepTypeResult, StepTypeDocument } from './parse-step-type-document.js';
import { compareSemVer, parseSemVer } from './semver.js';
import type {
  ExpansionReporter,
  StepTypeCatalog,
  StepTypeDefinition,
} from './step-type-catalog.js';
import { STEP_TYPE_ISSUE_CODES } from './step-type-codes.js';
import { validateArguments } from './validate-arguments.js';

export interface TypedStepInput {
  /** The step's name in the pipeline. */
  stepName: string;
  /** The step's path in the pipeline, e.g. `['steps', 'notify']`. */
  path: IssuePath;
  /** As written: `name`, `account/name` or `account/name:version`. */
  type: string;
  arguments: unknown;
}

export interface TypedStepExpansion {
  /** `account/name:version` of the step type used. */
  stepType: string;
  /** Step name → raw step map, in template order, ready for the schema pass. */
  steps: Record<string, unknown>;
}

/** Broken documents show this many of their problems; the author fixes them with the file open. */
const MAX_DOCUMENT_ISSUES = 5;

export function expandTypedStep(
  input: TypedStepInput,
  catalog: StepTypeCatalog | undefined,
  reporter: ExpansionReporter,
): TypedStepExpansion | undefined {
  const typePath = [...input.path, 'type'];
  const [name = '', version] = input.type.trim().split(/:(.*)/s);
  if (version !== undefined && parseSemVer(version) === undefined) {
    const message = `Step type "${input.type}" names version "${version}", which is not a semantic version; write ${name}:1.2.3`;
    reporter.report(typePath, message, { code: ISSUE_CODES.invalidValue });
    return undefined;
  }
  const definition = findDefinition(name, version, catalog, typePath, reporter);
  if (definition === undefined) return undefined;
  const document = parseDefinition(definition);
  const id = `${definition.name}:${definition.version}`;
  if (!document.ok) {
    reportBroken(id, document.issues, typePath, reporter);
    return undefined;
  }
  const declared = `${document.definition.name}:${document.definition.version}`;
  if (declared !== id) {
    const message = `Step type "${id}" from ${definition.source} is broken: the document declares itself as "${declared}"`;
    reporter.report(typePath, message, { code: STEP_TYPE_ISSUE_CODES.invalid });
    return undefined;
  }
  const { argumentsSchema, steps, delimiters } = document.definition;
  const args = validateArguments(argumentsSchema, input.arguments, { stepType: definition.name });
  for (const problem of args.problems) {
    reporter.report(argumentPath(input, problem.path), problem.message, { code: problem.code });
  }
  if (args.problems.length > 0) return undefined;
  return { stepType: id, steps: expandTemplate(steps, args.value, delimiters) };
}

function findDefinition(
  name: string,
  version: string | undefined,
  catalog: StepTypeCatalog | undefined,
  typePath: IssuePath,
  reporter: ExpansionReporter,
): StepTypeDefinition | undefined {
  const found = catalog?.find(name, version);
  if (found !== undefined) {
    if (version === undefined) {
      const message = `Step type "${name}" uses the newest version ${found.version}; pin it as ${name}:${found.version}`;
      reporter.report(typePath, message, {
        code: STEP_TYPE_ISSUE_CODES.unpinned,
        severity: 'warning',
      });
    }
    return found;
  }
  const all = catalog?.list?.() ?? [];
  const versions = all.filter((d) => d.name === name).map((d) => d.version);
  const standIn = version === undefined ? undefined : standInFor(name, catalog);
  if (version !== undefined && standIn !== undefined) {
    const message = `Step type "${name}" has no version ${version}; ${name}:${standIn.version} from ${standIn.source} stands in for it (it accepts any version)`;
    reporter.report(typePath, message, {
      code: STEP_TYPE_ISSUE_CODES.standIn,
      severity: 'warning',
    });
    return standIn;
  }
  if (version !== undefined && versions.length > 0) {
    const available = versions.sort(compareSemVer).join(', ');
    const message = `Step type "${name}" has no version ${version}; available: ${available}`;
    reporter.report(typePath, message, { code: ISSUE_CODES.unknownStepType });
    return undefined;
  }
  const why = CODEFRESH_ONLY[name.slice(name.lastIndexOf('/') + 1)];
  if (why !== undefined) {
    // Valid Codefresh, like the built-in types Sluice does not run: accepted, and the build stops.
    const message = `Step type "${name}" is not run by Sluice: ${why}; the build stops before its first step`;
    reporter.report(typePath, message, { code: ISSUE_CODES.unsupported, severity: 'warning' });
    return undefined;
  }
  reporter.report(typePath, notFoundMessage(name, catalog, all), {
    code: ISSUE_CODES.unknownStepType,
  });
  return undefined;
}

/**
 * Codefresh marketplace step types that only make sense against Codefresh's own services, with
 * why Sluice has none; a catalog's step type of the same name still wins.
 */
const CODEFRESH_ONLY: Record<string, string> = {
  'codefresh-report-image':
    "it reports an image and its git and Jira facts to Codefresh's GitOps image dashboard, which Sluice does not have; keep such facts on the build with the step's on_success annotations or metadata",
};

/**
 * The newest version of `name` when its document declares `metadata.anyVersion`: pipelines
 * written for Codefresh pin the marketplace's versions (`git-commit:0.2.0`), which ours are not.
 */
function standInFor(
  name: string,
  catalog: StepTypeCatalog | undefined,
): StepTypeDefinition | undefined {
  const newest = catalog?.find(name);
  if (newest === undefined) return undefined;
  const parsed = parseDefinition(newest);
  return parsed.ok && parsed.definition.anyVersion === true ? newest : undefined;
}

function notFoundMessage(
  name: string,
  catalog: StepTypeCatalog | undefined,
  all: readonly StepTypeDefinition[],
): string {
  const locations = catalog?.locations ?? [];
  const where =
    locations.length > 0 ? locations.join(', ') : 'nowhere (no step-type catalog was given)';
  const suggestion = didYouMean(name, new Set(all.map((d) => d.name)));
  const unreadable = catalog?.problems ?? [];
  const shown = unreadable.slice(0, 3).map((p) => `${p.file}:${p.line}:${p.column}: ${p.message}`);
  const more = unreadable.length > 3 ? ` and ${unreadable.length - 3} more` : '';
  const broken =
    unreadable.length > 0
      ? `; these files there could not be read: ${shown.join('; ')}${more}`
      : '';
  // A close name is most likely a typo; otherwise say how to make the step type exist.
  const hint =
    suggestion !== ''
      ? suggestion
      : '; to add it, put a "kind: step-type" document with that metadata.name in .sluice/step-types/ of the repository or in a directory given with --step-types';
  return `Step type "${name}" was not found; looked in: ${where}${broken}${hint}`;
}

function reportBroken(
  id: string,
  issues: PipelineIssue[],
  typePath: IssuePath,
  reporter: ExpansionReporter,
): void {
  const errors = issues.filter((i) => i.severity === 'error');
  for (const issue of errors.slice(0, MAX_DOCUMENT_ISSUES)) {
    const message = `Step type "${id}" is broken: ${issue.file}:${issue.line}:${issue.column}: ${issue.message}`;
    reporter.report(typePath, message, { code: STEP_TYPE_ISSUE_CODES.invalid });
  }
  const more = errors.length - MAX_DOCUMENT_ISSUES;
  if (more > 0) {
    const message = `Step type "${id}" has ${more} more problems in ${errors[0]?.file ?? 'its document'}`;
    reporter.report(typePath, message, { code: STEP_TYPE_ISSUE_CODES.invalid });
  }
}

/** The whole `arguments` is blamed at its key, or at the step when the key is absent. */
function argumentPath(input: TypedStepInput, path: IssuePath): IssuePath {
  if (path.length > 0) return [...input.path, 'arguments', ...path];
  return input.arguments === undefined ? input.path : [...input.path, 'arguments'];
}

/** A definition is parsed once however many steps use it; definitions are never changed. */
const parsedDefinitions = new WeakMap<StepTypeDefinition, ParseStepTypeResult>();

/**
 * Marks `document` as parsed already (by whoever holds it: a worker thread, a cache), so a typed
 * step expanded with it as its catalog's definition does not parse its text again.
 */
export function rememberParsedStepType(document: StepTypeDocument): StepTypeDocument {
  parsedDefinitions.set(document, { ok: true, definition: document, warnings: [] });
  return document;
}

function parseDefinition(definition: StepTypeDefinition): ParseStepTypeResult {
  let parsed = parsedDefinitions.get(definition);
  if (parsed === undefined) {
    parsed = parseStepTypeDocument(definition.text, definition.source);
    parsedDefinitions.set(definition, parsed);
  }
  return parsed;
}
