/**
 * A pipeline whose definition lives in its repository (the pipeline's `specTemplate`): before
 * any step, the engine clones the repository into the build volume, at the build's
 * revision, reads the file from git's objects at that commit (step-scripts.ts: no symlink is
 * followed, nothing outside the repository is read), and hands it to `accept` (the control plane
 * checks it as `sluice validate` does, records it with its commit and plans its steps, and
 * answers with the credentials it names: `addDefinitionGrants`). Its
 * output is the `definition` step's log. Every way it can fail ends the build before a step
 * starts, with a reason that names the repository, the file and the commit, and what to check.
 * A pipeline whose first step clones the same repository at the same revision into the same
 * directory gets that clone as it is (`runtime.definitionClone`: one clone, not two); a later
 * clone of it finds the cached clone and fetches into it.
 * @module
 */
import { posix } from 'node:path';
import { LIMITS } from '@sluice/protocol';
import type { GitCloneStep, Pipeline } from '@sluice/pipeline';
import { emitLine } from '../containers/container-run.js';
import { runGitClone } from '../steps/execute-step.js';
import { onIntegrationHost } from '../containers/git-integrations.js';
import type { StepRuntime } from '../base/step-runtime.js';
import type { DeniedCluster } from './cluster-check.js';
import { mergeKubeconfigs } from '../base/kube-contexts.js';
import type { KubeCluster } from '../base/kube-contexts.js';
import type { GitIntegrationSetting, RegistrySetting } from '../base/registry-settings.js';

/** The name its log lines carry: not a step of the pipeline, which is not known yet. */
export const DEFINITION_STEP = 'definition';

export interface RepositoryDefinition {
  repo: string;
  /** The file in the repository. */
  path: string;
  /** Branch, tag or commit; empty: the repository's default branch. */
  revision: string;
  /** The git integration to clone with; none: the build's default, on its own host. */
  git: string | null;
  /**
   * The build names no commit, only the branch read: the commit read becomes its CF_REVISION,
   * as a build of a branch's head has.
   */
  fillsRevision: boolean;
  /**
   * Checks the definition read at `sha` and records it (the control plane): the pipeline to run,
   * or why it cannot run (each problem at `path:line:column`).
   */
  accept: (yaml: string, sha: string) => Promise<AcceptedDefinition>;
}

export type AcceptedDefinition =
  { ok: true; pipeline: Pipeline; grants?: DefinitionGrants } | { ok: false; reason: string };

/** The pipeline read and the commit it was read at, or why there is none. */
export type ReadDefinition =
  | { ok: true; pipeline: Pipeline; sha: string; grants?: DefinitionGrants }
  | { ok: false; reason: string };

/**
 * What the control plane gives the build once it accepts the definition: the registries, git
 * integrations and clusters the definition names (an engine is given only what its pipeline
 * names, and this one's was not known when it started), and the clusters named that it may not
 * use.
 */
export interface DefinitionGrants {
  registries: readonly RegistrySetting[];
  gitIntegrations: readonly GitIntegrationSetting[];
  clusters: readonly KubeCluster[];
  deniedClusters: readonly DeniedCluster[];
}

/** `extra` added to `given`, an entry of the same name replaced. */
function byName<T extends { name: string }>(given: readonly T[], extra: readonly T[]): T[] {
  const names = new Set(extra.map((item) => item.name));
  return [...given.filter((item) => !names.has(item.name)), ...extra];
}

/**
 * Adds the grants to the build's step runtime, their secrets masked first; the clusters are
 * merged into the KUBECONFIG every step gets. Returns every cluster and denied cluster now.
 */
export function addDefinitionGrants(
  runtime: StepRuntime,
  grants: DefinitionGrants,
  given: { clusters: readonly KubeCluster[]; deniedClusters: readonly DeniedCluster[] },
): { clusters: KubeCluster[]; deniedClusters: DeniedCluster[] } {
  for (const registry of grants.registries)
    if (registry.password) runtime.masker.add(registry.password);
  for (const integration of grants.gitIntegrations)
    for (const secret of [integration.token, integration.sshKey])
      if (secret) runtime.masker.add(secret);
  for (const cluster of grants.clusters)
    for (const secret of cluster.secrets) runtime.masker.add(secret);
  runtime.registries = byName(runtime.registries, grants.registries);
  runtime.gitIntegrations = byName(runtime.gitIntegrations, grants.gitIntegrations);
  // A clone that names none uses the build's default, which may have come only now.
  runtime.defaultGitIntegration ??= grants.gitIntegrations.find((i) => i.default)?.name;
  const clusters = byName(given.clusters, grants.clusters);
  runtime.kubeconfig = mergeKubeconfigs(clusters);
  return { clusters, deniedClusters: byName(given.deniedClusters, grants.deniedClusters) };
}

/** What the clone script's read wrote beside the file: its commit, git mode and size. */
interface DefinitionFiles {
  sha?: string | undefined;
  yaml?: Buffer | undefined;
  mode?: string | undefined;
  size?: string | undefined;
}

/** Exit codes of the clone script's read (step-scripts.ts). */
const MISSING = 73;
const NOT_A_FILE = 74;
const TOO_LARGE = 75;

/** The pipeline the repository defines at the build's revision, or why there is none. */
export async function readRepositoryDefinition(
  source: RepositoryDefinition,
  runtime: StepRuntime,
): Promise<ReadDefinition> {
  const where = `${source.path} in ${source.repo}`;
  const integration = runtime.gitIntegrations.find(
    (i) => i.name === (source.git ?? runtime.defaultGitIntegration),
  );
  if (source.git !== null && integration === undefined)
    return refused(
      `Could not read ${where}: git integration "${source.git}" does not exist in the account; create it with sluice create git-integration ${source.git}, or change the pipeline's specTemplate.context`,
    );
  // A token goes only to its own host: a repository elsewhere is refused, never sent it.
  if (
    source.git !== null &&
    integration !== undefined &&
    !onIntegrationHost(source.repo, integration)
  )
    return refused(
      `Could not read ${where}: ${source.repo} is not on the host of git integration "${integration.name}", whose credentials are never sent elsewhere; name the repository as OWNER/NAME, or use an integration of its host`,
    );
  const step = cloneStep(source);
  const out = posix.join('/codefresh/volume/.sluice', `definition-${runtime.buildId}.yml`);
  const at = source.revision === '' ? 'the default branch' : source.revision;
  emitLine(runtime, DEFINITION_STEP, 'system', `Reading ${where} at ${at}`);
  let made: { url: string; directory: string; integration: string | undefined } | undefined;
  // What the read left on the volume, read from the clone's own container before its removal.
  const files: DefinitionFiles = {};
  const read = (container: string, suffix: string) =>
    runtime.docker.readFile(container, `${out}${suffix}`);
  const clone = await runGitClone(step, runtime, {
    extraEnv: [
      `SLUICE_DEFINITION_PATH=${source.path}`,
      `SLUICE_DEFINITION_OUT=${out}`,
      `SLUICE_DEFINITION_LIMIT=${LIMITS.pipelineYamlBytes}`,
    ],
    onCloned: ({ target, integration }) =>
      (made = { url: target.url, directory: target.directory, integration }),
    afterExit: async (container) => {
      const [sha, yaml, mode, size] = await Promise.all(
        ['.sha', '', '.mode', '.size'].map((suffix) => read(container, suffix)),
      );
      Object.assign(files, {
        sha: sha?.toString('utf8').trim(),
        yaml,
        mode: mode?.toString('utf8').trim(),
        size: size?.toString('utf8').trim(),
      });
    },
  });
  if (clone.result === 'terminated') return refused(clone.reason ?? 'The build was cancelled');
  if (clone.result !== 'success') files.yaml = undefined;
  const commit = files.sha === undefined ? at : `${at} (${files.sha})`;
  switch (clone.result === 'success' ? 0 : (clone.exitCode ?? -1)) {
    case 0:
      break;
    case MISSING:
      return refused(
        `${where} does not exist at ${commit}: check the pipeline's specTemplate.path and that the file is committed on that branch`,
      );
    case NOT_A_FILE:
      return refused(
        `${where} at ${commit} is not a regular file (git mode ${files.mode ?? '?'}: a symlink, a directory or a submodule), and is not followed; commit the definition itself at that path`,
      );
    case TOO_LARGE:
      return refused(
        `${where} at ${commit} is ${files.size ?? '?'} bytes; the limit is ${LIMITS.pipelineYamlBytes} bytes (1 MiB): split the pipeline, or move repeated steps into a step type`,
      );
    default:
      return refused(`Could not read ${where}: ${clone.reason ?? 'the clone failed'}`);
  }
  if (files.yaml === undefined || files.sha === undefined)
    return refused(`Could not read ${where} at ${commit} from the build volume`);
  const text = decodeDefinition(files.yaml);
  if (!text.ok) return refused(`${where} at ${files.sha}: ${text.reason}`);
  emitLine(runtime, DEFINITION_STEP, 'system', `Read ${where} at ${files.sha}`);
  if (made !== undefined)
    runtime.definitionClone = { ...made, revision: source.revision, sha: files.sha };
  const accepted = await source.accept(text.yaml, files.sha);
  return accepted.ok ? { ...accepted, sha: files.sha } : accepted;
}

function refused(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}

/** The clone a pipeline's own first step would make: same repository, same directory. */
function cloneStep(source: RepositoryDefinition): GitCloneStep {
  return {
    type: 'git-clone',
    name: DEFINITION_STEP,
    repo: source.repo,
    ...(source.revision === '' ? {} : { revision: source.revision }),
    ...(source.git === null ? {} : { git: source.git }),
    useProxy: true,
    failFast: true,
    strictFailFast: false,
    hooks: {},
    position: { line: 1, column: 1 },
  };
}

/**
 * The file as UTF-8 text; a NUL byte or a byte that is not UTF-8 is refused at its line and
 * column (a YAML parser would report neither where it is).
 */
export function decodeDefinition(
  bytes: Buffer,
): { ok: true; yaml: string } | { ok: false; reason: string } {
  const nul = bytes.indexOf(0);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(
      nul < 0 ? bytes : bytes.subarray(0, nul),
    );
  } catch {
    const valid = new TextDecoder('utf-8').decode(bytes);
    const bad = valid.indexOf('\uFFFD');
    return { ok: false, reason: `is not UTF-8 text: an invalid byte at ${position(valid, bad)}` };
  }
  if (nul >= 0) return { ok: false, reason: `holds a NUL byte at ${position(text, text.length)}` };
  return { ok: true, yaml: text };
}

/** `line L, column C` (1-based) of `offset` in `text`. */
function position(text: string, offset: number): string {
  const before = text.slice(0, Math.max(0, offset));
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `line ${line}, column ${column}`;
}
