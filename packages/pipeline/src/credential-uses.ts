/**
 * What a parsed pipeline names of the account's credentials, so that a build's engine is given
 * those and no others (least privilege): the registries its build and push steps name (or the
 * default one, when a step that pushes names none), the registry hosts of the images its steps
 * run, the git integrations its clones and step types name (or the build's default, when a
 * clone names none), and the Kubernetes clusters its steps name (a deploy step's `cluster`,
 * kubectl-apply's `CLUSTER`/`CONTEXT`, helm's `kube_context`, or `--context NAME`,
 * `--kube-context NAME` and `use-context NAME` in commands). Values are as written: one may
 * hold `${{VAR}}`, which the caller resolves with the build's variables. Pure.
 * @module
 */
import type { Hooks, Pipeline, ServicesSpec, Step } from './model.js';

export interface CredentialUses {
  /** `registry:` of build steps that push and of push steps. */
  registries: string[];
  /** A build step that pushes, or a push step, names no registry: the default one is used. */
  defaultRegistry: boolean;
  /** Every image a step, hook or service runs (and `cache_from`), as written. */
  images: string[];
  /** `git:` of git-clone steps, and the integration a step type's step asks for. */
  gitIntegrations: string[];
  /** A clone names no integration (or a step type asks for the clone's): the build's default. */
  defaultGitIntegration: boolean;
  /** The clusters steps name. */
  clusters: string[];
}

/** The environment a step type's step names its git integration in (git-integrations.ts of the engine). */
const STEP_TYPE_INTEGRATION = 'SLUICE_GIT_INTEGRATION';
/** The environment a step names its cluster in: the deploy step's, kubectl-apply's, helm's. */
const CLUSTER_VARIABLES = new Set([
  'SLUICE_DEPLOY_CLUSTER',
  'SLUICE_KUBE_CONTEXT',
  'SLUICE_HELM_KUBE_CONTEXT',
]);
/** `--context NAME`, `--context=NAME`, `--kube-context NAME`, `use-context NAME` in a command. */
const CONTEXT_FLAG = /(?:--(?:kube-)?context(?:=|\s+)|\buse-context\s+)["']?([^\s"';|&)]+)/g;

export const NO_CREDENTIAL_USES: CredentialUses = Object.freeze({
  registries: [],
  defaultRegistry: false,
  images: [],
  gitIntegrations: [],
  defaultGitIntegration: false,
  clusters: [],
});

class Uses {
  readonly registries = new Set<string>();
  defaultRegistry = false;
  readonly images = new Set<string>();
  readonly gitIntegrations = new Set<string>();
  defaultGitIntegration = false;
  readonly clusters = new Set<string>();

  commands(commands: readonly string[] | undefined): void {
    for (const command of commands ?? [])
      for (const match of command.matchAll(CONTEXT_FLAG)) {
        const name = match[1] ?? '';
        // `--context "$CLUSTER"` names no cluster the control plane can know; `${{X}}` it can.
        if (name !== '' && (!name.startsWith('$') || name.startsWith('${{')))
          this.clusters.add(name);
      }
  }

  services(spec: ServicesSpec | undefined): void {
    if (spec === undefined) return;
    for (const service of spec.services) this.images.add(service.image);
    if (spec.readiness !== undefined) {
      this.images.add(spec.readiness.image);
      this.commands(spec.readiness.commands);
    }
    if (spec.setup !== undefined) {
      this.images.add(spec.setup.image);
      this.commands(spec.setup.commands);
    }
  }

  hooks(hooks: Hooks): void {
    for (const hook of [hooks.onElected, hooks.onSuccess, hooks.onFail, hooks.onFinish]) {
      if (hook?.exec !== undefined) {
        this.images.add(hook.exec.image);
        this.commands(hook.exec.commands);
        this.environment(hook.exec.environment, false);
      }
      for (const step of hook?.steps ?? []) this.step(step);
    }
  }

  environment(environment: readonly (readonly [string, string])[], fromStepType: boolean): void {
    for (const [key, value] of environment) {
      if (CLUSTER_VARIABLES.has(key) && value !== '') this.clusters.add(value);
      // Only a step type's steps get an integration's credentials this way (the engine's rule).
      if (key === STEP_TYPE_INTEGRATION && fromStepType) {
        if (value === '') this.defaultGitIntegration = true;
        else this.gitIntegrations.add(value);
      }
    }
  }

  step(step: Step): void {
    // As the engine decides it: a leaf that a step type's template made.
    const fromStepType = step.origin?.kind === 'step-type';
    this.hooks(step.hooks);
    switch (step.type) {
      case 'freestyle':
        this.images.add(step.image);
        this.commands(step.commands);
        this.commands(step.cmd);
        this.environment(step.environment, fromStepType);
        this.services(step.services);
        return;
      case 'git-clone':
        if (step.git !== undefined) this.gitIntegrations.add(step.git);
        else if (step.credentials === undefined) this.defaultGitIntegration = true;
        return;
      case 'build':
        for (const image of step.cacheFrom) this.images.add(image);
        if (step.disablePush) return;
        if (step.registry === undefined) this.defaultRegistry = true;
        else this.registries.add(step.registry);
        return;
      case 'push':
        if (step.registry === undefined) this.defaultRegistry = true;
        else this.registries.add(step.registry);
        return;
      case 'composition':
        for (const service of [...step.services, ...step.candidates])
          this.images.add(service.image);
        this.environment(step.environment, fromStepType);
        return;
      case 'parallel':
      case 'group':
        for (const child of step.steps) this.step(child);
        return;
      case 'pending-approval':
        return;
    }
  }

  result(): CredentialUses {
    return {
      registries: [...this.registries],
      defaultRegistry: this.defaultRegistry,
      images: [...this.images],
      gitIntegrations: [...this.gitIntegrations],
      defaultGitIntegration: this.defaultGitIntegration,
      clusters: [...this.clusters],
    };
  }
}

/** What `pipeline` names of the account's credentials (see the module's comment). */
export function credentialUses(pipeline: Pipeline): CredentialUses {
  const uses = new Uses();
  uses.hooks(pipeline.hooks);
  for (const spec of pipeline.services) uses.services(spec);
  for (const step of pipeline.steps) uses.step(step);
  return uses.result();
}

/**
 * The registry host an image reference names (`host[:port]`, lower case): its first path
 * component when that has a `.` or a `:`, or is `localhost`; `docker.io` otherwise (Docker
 * Hub's images, `alpine` or `library/alpine`).
 */
export function imageRegistryHost(image: string): string {
  const slash = image.indexOf('/');
  if (slash < 0) return 'docker.io';
  const first = image.slice(0, slash);
  if (first.includes('.') || first.includes(':') || first === 'localhost')
    return first.toLowerCase();
  return 'docker.io';
}
