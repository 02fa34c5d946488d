/**
 * Least privilege for a build's engine: of the account's registries, git integrations and
 * Kubernetes clusters, the engine gets those its pipeline names (`credentialUses` of
 * `@sluice/pipeline`), not every one. A name written with `${{VAR}}` is resolved with the
 * build's variables and `CF_*` facts as the engine will see them at its start; one that only a
 * step can make (`cf_export`) names nothing here, and its step finds no such credential.
 *
 * - registries: those named by `registry:` of a build step that pushes or a push step (by name,
 *   or by domain as the engine also matches), the default one when such a step names none, and
 *   those whose domain is the registry host of an image a step runs.
 * - git integrations: those named by `git:` of a clone or by a step type's step, and the build's
 *   default (its trigger's, else the account's) when a clone names none.
 * - clusters: those a step names, or every one the project may use when the build's variable
 *   `SLUICE_CLUSTERS` is `*` (a comma-separated list adds those names).
 *
 * A pipeline read from the repository is not known when its engine starts: it gets the
 * integration that reads the definition, and the rest in the answer that accepts the definition.
 * @module
 */
import { imageRegistryHost, interpolate, systemVariables } from '@sluice/pipeline';
import type { CredentialUses } from '@sluice/pipeline';

/** The build's variable that widens its clusters: `*` for all the project may use, or names. */
export const CLUSTERS_VARIABLE = 'SLUICE_CLUSTERS';

export interface RegistryWants {
  /** Names (or domains) written in `registry:`. */
  names: ReadonlySet<string>;
  /** A step pushes to the default registry. */
  default: boolean;
  /** Registry hosts of the images steps run, `docker.io` for Docker Hub's. */
  hosts: ReadonlySet<string>;
}

export interface GitIntegrationWants {
  names: ReadonlySet<string>;
  /** A clone names none: the build's default (the trigger's when it has one). */
  default: boolean;
}

export interface CredentialWants {
  registries: RegistryWants;
  gitIntegrations: GitIntegrationWants;
  /** Cluster names, or every cluster the project may use. */
  clusters: ReadonlySet<string> | 'all';
}

/** What the build sees of its variables and facts when its engine starts. */
export interface BuildScope {
  buildId: string;
  pipelineName: string;
  variables: Readonly<Record<string, string>>;
  facts: Readonly<Record<string, string>>;
}

/** Docker Hub's names for itself: a registry of one of them serves `alpine`. */
const DOCKER_HUB = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);

/** A registry setting's domain as `imageRegistryHost` gives an image's. */
export function registryHost(domain: string): string {
  const host = domain.toLowerCase();
  return DOCKER_HUB.has(host) ? 'docker.io' : host;
}

/** `${{VAR}}` resolved with the build's scope; undefined when a reference is left. */
function resolver(scope: BuildScope): (value: string) => string | undefined {
  const system = systemVariables({
    ...scope.facts,
    trigger: undefined,
    buildId: scope.buildId,
    pipelineName: scope.pipelineName,
    startedAt: 0,
    volumeName: '',
  });
  const lookup = (name: string) => scope.variables[name] ?? system[name];
  return (value) => {
    const resolved = interpolate(value, lookup);
    return resolved.includes('${{') ? undefined : resolved;
  };
}

function resolvedSet(values: readonly string[], resolve: (v: string) => string | undefined) {
  return new Set(values.flatMap((value) => resolve(value) ?? []));
}

/** What the engine of a build whose pipeline names `uses` is given. */
export function credentialWants(uses: CredentialUses, scope: BuildScope): CredentialWants {
  const resolve = resolver(scope);
  const widened = (scope.variables[CLUSTERS_VARIABLE] ?? '').trim();
  const named = resolvedSet(uses.clusters, resolve);
  for (const name of widened.split(',')) if (name.trim() !== '') named.add(name.trim());
  return {
    registries: {
      names: resolvedSet(uses.registries, resolve),
      default: uses.defaultRegistry,
      hosts: new Set([...resolvedSet(uses.images, resolve)].map(imageRegistryHost)),
    },
    gitIntegrations: {
      names: resolvedSet(uses.gitIntegrations, resolve),
      default: uses.defaultGitIntegration,
    },
    clusters: widened === '*' ? 'all' : named,
  };
}

/** Before a repository's definition is read: the integration that reads it, and nothing else. */
export function definitionReaderWants(context: string | null): CredentialWants {
  return {
    registries: { names: new Set(), default: false, hosts: new Set() },
    gitIntegrations: {
      names: new Set(context === null ? [] : [context]),
      default: context === null,
    },
    clusters: new Set(),
  };
}

/** Whether the engine gets the registry. */
export function registryWanted(
  wants: RegistryWants,
  registry: { name: string; domain: string; isDefault: boolean },
): boolean {
  return (
    wants.names.has(registry.name) ||
    wants.names.has(registry.domain) ||
    (wants.default && registry.isDefault) ||
    wants.hosts.has(registryHost(registry.domain))
  );
}

/**
 * Whether the engine gets the integration; `trigger` is the build's own default (its trigger's),
 * which the engine uses instead of the account's when it has one.
 */
export function gitIntegrationWanted(
  wants: GitIntegrationWants,
  integration: { name: string; isDefault: boolean },
  trigger: string | undefined,
): boolean {
  if (wants.names.has(integration.name)) return true;
  if (!wants.default) return false;
  return trigger === undefined ? integration.isDefault : integration.name === trigger;
}

export function clusterWanted(wants: CredentialWants['clusters'], name: string): boolean {
  return wants === 'all' || wants.has(name);
}
