/**
 * Builds step-type catalogs: from directories of `*.yml`/`*.yaml` documents, from definitions
 * the control plane holds, and by chaining catalogs. The same name@version in two places: the
 * first location wins, so the caller orders them (repository `.sluice/step-types`, then
 * `--step-types DIR`, then the control plane, then the examples shipped with Sluice).
 *
 * `pipeline` does no I/O of its own: the reading is done through the `fs` passed in, which
 * Node's `node:fs` module satisfies as it is.
 * @module
 */
import { ISSUE_CODES } from '../pipeline-issue.js';
import type { PipelineIssue } from '../pipeline-issue.js';
import { parseYamlSource } from '../yaml-source.js';
import { newestVersion } from './semver.js';
import { parseStepTypeDocument } from './parse-step-type-document.js';
import type { StepTypeCatalog, StepTypeDefinition } from './step-type-catalog.js';
import { isPlainMap } from '../schema/validators.js';

/** The synchronous reads the loader needs; `import * as fs from 'node:fs'` is one. */
export interface StepTypeFileSystem {
  readdirSync(
    path: string,
    options: { withFileTypes: true },
  ): { name: string; isDirectory(): boolean; isFile(): boolean }[];
  readFileSync(path: string, encoding: 'utf8'): string;
}

export interface LoadStepTypeCatalogOptions {
  fs: StepTypeFileSystem;
  /** Definitions searched after the directories, such as those held by the control plane. */
  extra?: readonly StepTypeDefinition[];
}

/** A catalog built here: it can also list what it holds and what it could not read. */
export interface LoadedStepTypeCatalog extends StepTypeCatalog {
  list(): readonly StepTypeDefinition[];
  readonly problems: readonly PipelineIssue[];
}

/** Sub-directories deeper than this are not searched (a symlink loop would never end). */
const MAX_DEPTH = 4;

/** A missing directory is skipped, but still named in `locations` (it is where we looked). */
export function loadStepTypeCatalog(
  directories: readonly string[],
  options: LoadStepTypeCatalogOptions,
): LoadedStepTypeCatalog {
  const definitions: StepTypeDefinition[] = [];
  const problems: PipelineIssue[] = [];
  for (const directory of directories) {
    for (const file of yamlFiles(directory, options.fs, problems)) {
      const text = readText(file, options.fs, problems);
      if (text === undefined) continue;
      const definition = definitionOf(text, file, problems);
      if (definition !== undefined) definitions.push(definition);
    }
  }
  const extra = options.extra ?? [];
  definitions.push(...extra);
  const locations = [...directories, ...new Set(extra.map((d) => d.source))];
  return createCatalog(locations, definitions, problems);
}

/**
 * Step-type documents held elsewhere (the control plane's), as one location: those that parse;
 * `refused` names the sources of the others, for the caller to report.
 */
export function catalogFromDocuments(
  documents: readonly { text: string; source: string }[],
  locationName: string,
): { catalog: LoadedStepTypeCatalog; refused: string[] } {
  const definitions: StepTypeDefinition[] = [];
  const refused: string[] = [];
  for (const document of documents) {
    const parsed = parseStepTypeDocument(document.text, document.source);
    if (parsed.ok) definitions.push(parsed.definition);
    else refused.push(document.source);
  }
  return { catalog: catalogFromDefinitions(definitions, locationName), refused };
}

/** Step types the control plane holds (or any other list), searched as one location. */
export function catalogFromDefinitions(
  definitions: readonly StepTypeDefinition[],
  locationName: string,
): LoadedStepTypeCatalog {
  return createCatalog([locationName], definitions, []);
}

/** One catalog searching several in order; the first that has a name@version wins. */
export function combineStepTypeCatalogs(
  catalogs: readonly StepTypeCatalog[],
): LoadedStepTypeCatalog {
  const definitions = catalogs.flatMap((c) => c.list?.() ?? []);
  const problems = catalogs.flatMap((c) => c.problems ?? []);
  const catalog = createCatalog(
    catalogs.flatMap((c) => c.locations),
    definitions,
    problems,
  );
  return {
    ...catalog,
    find(name, version) {
      // A catalog that cannot list still answers `find`; ask each, newest across all.
      const found = catalogs.map((c) => c.find(name, version)).filter((d) => d !== undefined);
      if (version !== undefined) return found[0];
      const newest = newestVersion(found.map((d) => d.version));
      return found.find((d) => d.version === newest);
    },
  };
}

function createCatalog(
  locations: readonly string[],
  definitions: readonly StepTypeDefinition[],
  problems: readonly PipelineIssue[],
): LoadedStepTypeCatalog {
  const byKey = new Map<string, StepTypeDefinition>();
  for (const definition of definitions) {
    const key = `${definition.name}@${definition.version}`;
    if (!byKey.has(key)) byKey.set(key, definition);
  }
  const all = [...byKey.values()];
  return {
    locations,
    problems,
    list: () => all,
    find(name, version) {
      if (version !== undefined) return byKey.get(`${name}@${version}`);
      const candidates = all.filter((d) => d.name === name);
      const newest = newestVersion(candidates.map((d) => d.version));
      return candidates.find((d) => d.version === newest);
    },
  };
}

/** The YAML files under `directory`, sorted so that precedence inside it is stable. */
function yamlFiles(
  directory: string,
  fs: StepTypeFileSystem,
  problems: PipelineIssue[],
  depth = 0,
): string[] {
  let entries: { name: string; isDirectory(): boolean; isFile(): boolean }[];
  try {
    entries = fs.readdirSync(directory, { withFileTypes: true });
  } catch (err) {
    if (!isMissing(err)) problems.push(unreadable(directory, err));
    return [];
  }
  const files: string[] = [];
  for (const entry of [...entries].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const path = joinPath(directory, entry.name);
    const yaml = /\.ya?ml$/.test(entry.name);
    // A symbolic link is neither: followed as a file when named like one, else as a directory
    // (a link to anything else is then skipped as "not a directory").
    if (entry.isFile() || (yaml && !entry.isDirectory())) {
      if (yaml) files.push(path);
    } else if (depth < MAX_DEPTH) files.push(...yamlFiles(path, fs, problems, depth + 1));
  }
  return files;
}

function readText(
  file: string,
  fs: StepTypeFileSystem,
  problems: PipelineIssue[],
): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    problems.push(unreadable(file, err));
    return undefined;
  }
}

/**
 * Only the name and version are needed to index a document. One that has them but is broken
 * otherwise is still indexed, so that the step using it is told what is wrong with it.
 */
function definitionOf(
  text: string,
  file: string,
  problems: PipelineIssue[],
): StepTypeDefinition | undefined {
  const yaml = parseYamlSource(text, file);
  const firstError = yaml.issues.find((i) => i.severity === 'error');
  if (firstError !== undefined) {
    problems.push(firstError);
    return undefined;
  }
  const doc = yaml.value;
  const meta = isPlainMap(doc) && isPlainMap(doc.metadata) ? doc.metadata : {};
  const { name, version } = meta;
  if (isPlainMap(doc) && doc.kind === 'step-type' && typeof name === 'string') {
    if (typeof version === 'string') return { name, version, source: file, text };
  }
  const message =
    isPlainMap(doc) && doc.kind !== 'step-type'
      ? `Not a step-type document: "kind" is ${JSON.stringify(doc.kind ?? null)}, not "step-type"`
      : 'Not a usable step-type document: it needs metadata.name and metadata.version (a string such as 1.0.0)';
  problems.push({
    severity: 'error',
    code: ISSUE_CODES.invalidValue,
    message,
    path: [],
    file,
    ...yaml.locate(isPlainMap(doc) && doc.kind !== 'step-type' ? ['kind'] : ['metadata']),
  });
  return undefined;
}

function unreadable(path: string, err: unknown): PipelineIssue {
  const reason = err instanceof Error ? err.message : String(err);
  const message = `Cannot be read: ${reason}`;
  return {
    severity: 'error',
    code: ISSUE_CODES.invalidValue,
    message,
    path: [],
    file: path,
    line: 1,
    column: 1,
  };
}

function isMissing(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function joinPath(directory: string, name: string): string {
  return directory.endsWith('/') ? `${directory}${name}` : `${directory}/${name}`;
}
