/**
 * `sluice apply -f FILE` (create or update each project and pipeline the file describes) and
 * `sluice create pipeline -f FILE` (create only: an existing one is a conflict). A pipeline's
 * file states it whole: its YAML, runtime, concurrency and variables; variables the server has
 * and the file does not are removed, a secret listed without a value keeps its stored value.
 * Each resource prints `created`, `configured` or `unchanged`, as kubectl does. Problems the
 * server finds in a pipeline's YAML are shown at their line and column in the file.
 * `sluice create pipeline PROJECT/NAME --from-repo REPO` makes the manifest of a pipeline whose
 * definition each build reads from its repository, and creates it (and its project) the same way.
 * @module
 */
import { isDeepStrictEqual } from 'node:util';
import { ConflictError, InputError, isSluiceError } from '@sluice/errors';
import type { Pipeline, Retention, SluiceClient, SpecTemplate } from '@sluice/protocol';
import { parseManifests } from '../manifest-file.js';
import type { ParsedManifest } from '../manifest-file.js';
import { PipelineManifest as PipelineManifestSchema } from '../manifests.js';
import type { PipelineManifest } from '../manifests.js';
import type { Terminal } from '../ui/terminal.js';
import { issuesOf, readDocument } from './document-file.js';
import { findPipeline } from './pipeline-ref.js';
import { serverClient } from './server-resources.js';
import type { ServerOptions } from './server-resources.js';

export interface ApplyOptions extends ServerOptions {
  /** `create -f`: refuse resources that exist. */
  createOnly?: boolean;
}

type Outcome = 'created' | 'configured' | 'unchanged';

export async function applyFile(
  term: Terminal,
  file: string,
  options: ApplyOptions,
): Promise<number> {
  const parsed = parseManifests(readDocument(file), file);
  const client = serverClient(options);
  for (const item of parsed) {
    const { manifest } = item;
    if (manifest.kind === 'Project') {
      const outcome = await applyProject(client, manifest.metadata.name, options);
      term.out(`project/${manifest.metadata.name} ${outcome}`);
      continue;
    }
    const name = `${manifest.metadata.project}/${manifest.metadata.name}`;
    try {
      term.out(`pipeline/${name} ${await applyPipeline(client, manifest, options)}`);
    } catch (err) {
      printYamlIssues(term, file, item, err);
      throw err;
    }
  }
  return 0;
}

/** `create pipeline`'s flags: a manifest file, or a pipeline from a repository. */
export interface CreatePipelineFlags {
  filename?: string;
  fromRepo?: string;
  path?: string;
  revision?: string;
  gitIntegration?: string;
  runtime?: string;
}

/** `sluice create pipeline -f FILE`, or `PROJECT/NAME --from-repo REPO`: one or the other. */
export async function createPipeline(
  term: Terminal,
  ref: string | undefined,
  options: CreatePipelineFlags & ServerOptions,
): Promise<number> {
  const { filename, fromRepo, ...rest } = options;
  if (fromRepo !== undefined && filename === undefined && ref !== undefined)
    return createFromRepo(term, ref, { ...rest, fromRepo });
  if (filename === undefined || fromRepo !== undefined || ref !== undefined)
    throw new InputError(
      'SLUICE_CLI_CREATE_PIPELINE_USAGE',
      'create pipeline takes -f FILE, or PROJECT/NAME --from-repo REPO',
      { hint: 'sluice create pipeline --help shows both' },
    );
  return applyFile(term, filename, { ...rest, createOnly: true });
}

export interface FromRepoOptions extends ServerOptions {
  fromRepo: string;
  path?: string;
  revision?: string;
  gitIntegration?: string;
  runtime?: string;
}

/** `create pipeline PROJECT/NAME --from-repo REPO`: the pipeline and, when missing, its project. */
export async function createFromRepo(
  term: Terminal,
  ref: string,
  options: FromRepoOptions,
): Promise<number> {
  const [project = '', name = '', ...rest] = ref.split('/');
  if (rest.length > 0 || project === '' || name === '')
    throw new InputError(
      'SLUICE_PIPELINE_REF_INVALID',
      `"${ref}" is not PROJECT/NAME: a pipeline from a repository is named with its project`,
      { hint: 'e.g. sluice create pipeline web/build --from-repo acme/web' },
    );
  const parsed = PipelineManifestSchema.safeParse({
    apiVersion: 'sluice/v1',
    kind: 'Pipeline',
    metadata: { name, project },
    spec: {
      ...(options.runtime === undefined ? {} : { runtimeEnvironment: options.runtime }),
      specTemplate: {
        location: 'git',
        repo: options.fromRepo,
        ...(options.path === undefined ? {} : { path: options.path }),
        ...(options.revision === undefined ? {} : { revision: options.revision }),
        ...(options.gitIntegration === undefined ? {} : { context: options.gitIntegration }),
      },
    },
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const flag = FROM_REPO_FLAGS[String(issue?.path.at(-1))] ?? issue?.path.join('.');
    throw new InputError(
      'SLUICE_MANIFEST_INVALID',
      `${flag ?? 'create pipeline'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  const client = serverClient(options);
  const created = await applyProject(client, project, { ...options, createOnly: false });
  if (created === 'created') term.out(`project/${project} created`);
  const outcome = await applyPipeline(client, parsed.data, { ...options, createOnly: true });
  term.out(`pipeline/${project}/${name} ${outcome}`);
  return 0;
}

const FROM_REPO_FLAGS: Record<string, string> = {
  repo: '--from-repo',
  path: '--path',
  revision: '--revision',
  context: '--git-integration',
  name: 'the pipeline name',
  project: 'the project name',
};

async function applyProject(
  client: SluiceClient,
  name: string,
  options: ApplyOptions,
): Promise<Outcome> {
  try {
    await client.call('getProject', { params: { project: name } });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await client.call('createProject', { body: { name } });
    return 'created';
  }
  if (options.createOnly) throw exists(`Project "${name}"`);
  return 'unchanged';
}

async function applyPipeline(
  client: SluiceClient,
  manifest: PipelineManifest,
  options: ApplyOptions,
): Promise<Outcome> {
  const { name, project } = manifest.metadata;
  const current = await findPipeline(client, project, name);
  if (current === undefined) {
    const body = { name, ...desired(manifest, undefined) };
    await client.call('createPipeline', { params: { project }, body });
    return 'created';
  }
  if (options.createOnly)
    throw exists(`Pipeline "${project}/${name}"`, 'Change it with sluice apply -f FILE');
  const change = desired(manifest, current);
  if (!changes(change, current)) return 'unchanged';
  await client.call('updatePipeline', { params: { pipelineId: current.id }, body: change });
  return 'configured';
}

interface PipelineChange {
  /** One of the two: the definition stored, or where it is in the repository. */
  yaml?: string;
  specTemplate?: SpecTemplate;
  runtimeEnvironment: string | null;
  maxConcurrentBuilds: number | null;
  retention: Retention | null;
  variables: Record<string, { value: string; secret: boolean }>;
  removeVariables: string[];
}

/** What the server must hold for the pipeline to be as the manifest says. */
function desired(manifest: PipelineManifest, current: Pipeline | undefined): PipelineChange {
  const { spec, metadata } = manifest;
  const variables: PipelineChange['variables'] = {};
  const listed = new Set<string>();
  for (const v of spec.variables ?? []) {
    if (listed.has(v.name))
      throw new InputError(
        'SLUICE_MANIFEST_INVALID',
        `Pipeline ${metadata.project}/${metadata.name} lists variable ${v.name} twice`,
      );
    listed.add(v.name);
    const stored = current?.variables.find((c) => c.name === v.name);
    if (v.value === undefined) {
      if (!v.secret || stored?.secret !== true)
        throw new InputError(
          'SLUICE_MANIFEST_INVALID',
          `Variable ${v.name} of ${metadata.project}/${metadata.name} has no value${v.secret ? ' and no stored secret to keep' : ''}`,
          {
            hint: 'Give it a value (only a secret the server already holds may be listed without one)',
          },
        );
      continue;
    }
    const secret = v.secret ?? false;
    // A secret's stored value cannot be read back, so one given in the file is always set.
    if (!secret && stored?.secret === false && stored.value === v.value) continue;
    variables[v.name] = { value: v.value, secret };
  }
  return {
    ...(spec.specTemplate === undefined
      ? { yaml: spec.yaml }
      : { specTemplate: spec.specTemplate }),
    runtimeEnvironment: spec.runtimeEnvironment ?? null,
    maxConcurrentBuilds: spec.maxConcurrentBuilds ?? null,
    retention: limitsOf(spec.retention ?? null),
    variables,
    removeVariables: (current?.variables ?? []).map((v) => v.name).filter((n) => !listed.has(n)),
  };
}

/** A retention with only the limits it sets, as the server answers it. */
function limitsOf(retention: Retention | null): Retention | null {
  if (retention === null) return null;
  const { days, builds } = retention;
  return { ...(days == null ? {} : { days }), ...(builds == null ? {} : { builds }) };
}

function changes(change: PipelineChange, current: Pipeline): boolean {
  const definitionChanged =
    change.specTemplate === undefined
      ? current.specTemplate !== null || change.yaml !== current.yaml
      : !isDeepStrictEqual(change.specTemplate, current.specTemplate);
  return (
    definitionChanged ||
    change.runtimeEnvironment !== current.runtimeEnvironment ||
    change.maxConcurrentBuilds !== current.maxConcurrentBuilds ||
    !isDeepStrictEqual(change.retention, current.retention) ||
    Object.keys(change.variables).length > 0 ||
    change.removeVariables.length > 0
  );
}

function isNotFound(err: unknown): boolean {
  return isSluiceError(err) && err.category === 'not-found';
}

function exists(what: string, hint = 'Use sluice apply -f to update what exists'): ConflictError {
  return new ConflictError('SLUICE_RESOURCE_EXISTS', `${what} already exists`, { hint });
}

/** The server's problems with a pipeline's YAML, at their place in the manifest file. */
function printYamlIssues(term: Terminal, file: string, item: ParsedManifest, err: unknown): void {
  const issues = issuesOf(err);
  if (issues === undefined) return;
  const origin = item.yamlOrigin;
  for (const issue of issues) {
    const where =
      origin === undefined
        ? `${file}: spec.yaml ${issue.line}:${issue.column}`
        : `${file}:${origin.line + issue.line}:${origin.indent + issue.column}`;
    term.err(term.paint('red', `${where}: ${issue.message}`));
  }
  const count = (err as { details?: { details?: { issueCount?: unknown } } }).details?.details
    ?.issueCount;
  if (typeof count === 'number' && count > issues.length)
    term.err(
      term.paint(
        'red',
        `… and ${count - issues.length} more (the server lists the first ${issues.length})`,
      ),
    );
}
