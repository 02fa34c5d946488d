/**
 * The validated pipeline as the engine sees it. Strings are kept raw: `${{VAR}}` is resolved
 * step by step at run time, because `cf_export` values only exist once earlier steps ran.
 * Typed steps, `matrix` and `scale` are already expanded into ordinary steps here.
 * @module
 */

export interface Position {
  line: number;
  column: number;
}

export interface BranchFilter {
  only?: string[];
  ignore?: string[];
}

export interface ConditionExpression {
  name: string;
  source: string;
  /** Where the expression text starts in the file (inside the quotes), when it is a one-line scalar. */
  position: Position | undefined;
  path: readonly (string | number)[];
}

/**
 * `when.steps` entry: run once `step` reached one of `on` (default `['success']`). An approval
 * step's `on: approved` is read as `success`, and `on: denied` is its `denied` result.
 */
export interface StepDependency {
  step: string;
  on: ('success' | 'failure' | 'finished' | 'skipped' | 'denied')[];
}

export interface StepWhen {
  branch?: BranchFilter;
  conditions?: { mode: 'all' | 'any'; expressions: ConditionExpression[] }[];
  /** Parallel-mode dependencies (`when.steps`, or `when.steps.all|any`); list form is `all`. */
  steps?: { mode: 'all' | 'any'; dependencies: StepDependency[] };
}

/** `retry:` — attempts run `delaySeconds * exponentialFactor^(n-1)` apart. */
export interface RetryPolicy {
  maxAttempts: number;
  delaySeconds: number;
  exponentialFactor: number;
}

/**
 * One hook: a single container (`exec`; its image `DEFAULT_HOOK_IMAGE` when none is written),
 * a small pipeline of its own (`steps`), annotations to set, or any of them together; a hook of
 * only annotations runs no container.
 */
export interface Hook {
  exec?: {
    image: string;
    commands: string[];
    shell: 'sh' | 'bash';
    environment: [string, string][];
  };
  steps?: Step[];
  mode: 'sequential' | 'parallel';
  /** Only meaningful for `on_elected`: false means its failure does not fail the owner. */
  failFast: boolean;
  /**
   * The hook's `annotations` and `metadata`, applied once the hook has run, as a step's
   * `on_success` ones are (read by the same code); absent when it has none.
   */
  annotations?: AnnotationOperation[];
}

export interface Hooks {
  onElected?: Hook;
  onSuccess?: Hook;
  onFail?: Hook;
  onFinish?: Hook;
}

/** Readiness probe of a services block: `commands` in `image` until they exit 0. */
export interface ReadinessProbe {
  image: string;
  commands: string[];
  periodSeconds: number;
  timeoutSeconds: number;
  initialDelaySeconds: number;
  successThreshold: number;
  failureThreshold: number;
}

/** One compose-style service container. */
export interface ServiceContainer {
  name: string;
  image: string;
  command?: string[];
  entrypoint?: string[];
  environment: [string, string][];
  workingDirectory?: string;
  /** Mount the build's shared volume at /codefresh/volume (`${{CF_VOLUME_NAME}}` in volumes). */
  volumes: string[];
  ports: string[];
  /** Compose `depends_on`: services started (or, by condition, done) before this one. */
  dependsOn: ServiceDependency[];
  /** Compose `links`: `service` or `service:alias`. */
  links: string[];
  /** Compose `labels`, as pairs. */
  labels: [string, string][];
}

/** `condition` of a compose `depends_on` entry; the list form is `service_started`. */
export interface ServiceDependency {
  name: string;
  condition: 'service_started' | 'service_healthy' | 'service_completed_successfully';
}

/** A `services:` block, at pipeline level (whole build) or on a step (that step only). */
export interface ServicesSpec {
  /** Pipeline-level blocks have a name steps can refer to. */
  name?: string;
  services: ServiceContainer[];
  readiness?: ReadinessProbe;
  setup?: { image: string; commands: string[] };
  /** Step-level: names of pipeline-level blocks this step uses (`services: [db]`). */
  references: string[];
  /** `composition: path/to/compose.yml` or a stored composition's name, instead of services. */
  file?: string;
  /** `shared_host_network: true`: Codefresh puts the services on the step's localhost. */
  sharedHostNetwork?: boolean;
}

interface StepBase {
  name: string;
  title?: string;
  description?: string;
  stage?: string;
  workingDirectory?: string;
  /** Resolved against the root `fail_fast`. */
  failFast: boolean;
  /** Resolved against the root `strict_fail_fast`. */
  strictFailFast: boolean;
  when?: StepWhen;
  /** Milliseconds; undefined is no limit. Parallel children inherit their block's. */
  timeoutMs?: number;
  retry?: RetryPolicy;
  hooks: Hooks;
  /** For steps made by `matrix`/`scale` or a typed step: the name written in the file. */
  origin?: { step: string; kind: 'matrix' | 'scale' | 'step-type'; label: string };
  /** `on_success`/`on_fail`/`on_finish` of the step, when it has any. */
  postStep?: {
    onSuccess?: PostStepOperations;
    onFail?: PostStepOperations;
    onFinish?: PostStepOperations;
  };
  position: Position;
}

export interface FreestyleStep extends StepBase {
  type: 'freestyle';
  image: string;
  commands?: string[];
  cmd?: string[];
  entryPoint?: string[];
  shell: 'sh' | 'bash';
  environment: [string, string][];
  volumes: string[];
  services?: ServicesSpec;
}

export interface GitCloneStep extends StepBase {
  type: 'git-clone';
  repo: string;
  revision?: string;
  depth?: number;
  credentials?: { username: string; password: string };
  /** The git integration whose credentials clone it (`git: NAME`). */
  git?: string;
  useProxy: boolean;
}

export interface BuildStep extends StepBase {
  type: 'build';
  imageName: string;
  /** A path relative to the working directory, or the Dockerfile text itself. */
  dockerfile: { path: string } | { content: string };
  /** Default: the branch name, normalized as CF_BRANCH_TAG_NORMALIZED. */
  tags: string[];
  tagPolicy: 'lowercase' | 'original';
  buildArguments: [string, string][];
  target?: string;
  noCache: boolean;
  registry?: string;
  disablePush: boolean;
  /** `buildkit:`; undefined leaves it to the fields below (BuildKit if any is set). */
  buildkit?: boolean;
  /** `platform: linux/amd64`, or a comma-separated list. */
  platform?: string;
  /** `cache_from`: images whose layers (inline cache) the build may reuse. */
  cacheFrom: string[];
  /** `buildx: true`, or its settings map (`builder`, `qemu`). */
  buildx?: boolean | Record<string, unknown>;
  /** `build_version: v1 | v2` (v2: BuildKit). */
  buildVersion?: string;
}

export interface PushStep extends StepBase {
  type: 'push';
  candidate: string;
  /** Default `['latest']`. */
  tags: string[];
  imageName?: string;
  /** Name of a registry setting; undefined is the default registry. */
  registry?: string;
  credentials?: { username: string; password: string };
}

export interface CompositionStep extends StepBase {
  type: 'composition';
  services: ServiceContainer[];
  /** Services whose exit codes decide the step. */
  candidates: ServiceContainer[];
  variables: [string, string][];
  environment: [string, string][];
  /** A compose file's top-level `volumes:` names: created for the step, removed after it. */
  volumes: string[];
  /** `add_flow_volume_to_composition`: the build volume at /codefresh/volume in every service. */
  addFlowVolume: boolean;
  /**
   * `composition: path/to/compose.yml` (relative to the working directory) or a stored
   * composition's name; its services and volumes are read when the step runs.
   */
  file?: string;
}

export interface ApprovalStep extends StepBase {
  type: 'pending-approval';
  /** Default 168 h. */
  timeoutMs: number;
  /** What happens when nobody answers in time. Default `denied`. */
  finalState: 'approved' | 'denied';
}

export interface ParallelStep extends StepBase {
  type: 'parallel';
  steps: Step[];
  /** Which children decide the block's result; undefined means all of them. */
  successCriteria?: {
    only?: string[];
    conditions?: { mode: 'all' | 'any'; expressions: ConditionExpression[] }[];
  };
}

/** An annotation's value as written: text may hold `${{…}}`; a bare name has none (null). */
export type AnnotationValueInput = string | number | boolean | null;

/**
 * One entity's annotation changes: `annotations` with `entity_type: build` (this build) or
 * `image`, and `metadata` (always an image). Names, text values and the image are templates.
 */
export interface AnnotationOperation {
  entity: 'build' | 'image';
  /** For an image: its id or reference, e.g. `${{build.imageId}}`. */
  image?: string;
  set: [string, AnnotationValueInput][];
  unset: string[];
}

/**
 * Post-step operations (`on_success`/`on_fail`/`on_finish` on a step): the annotations and image
 * metadata to set once the step ends that way, in the order written. Entries Sluice does not
 * keep (another build's or a pipeline's annotations) are left out; validation names them.
 */
export interface PostStepOperations {
  annotations: AnnotationOperation[];
}

/** A typed step after expansion: its template's steps, run in order, as one step. */
export interface GroupStep extends StepBase {
  type: 'group';
  /** `account/name:version` of the step type. */
  stepType: string;
  steps: Step[];
}

export type Step =
  | GroupStep
  | FreestyleStep
  | GitCloneStep
  | BuildStep
  | PushStep
  | CompositionStep
  | ApprovalStep
  | ParallelStep;

export interface Pipeline {
  file: string;
  version: '1.0';
  stages: string[];
  /** `parallel`: steps start as soon as their `when.steps` allow (a DAG). */
  mode: 'sequential' | 'parallel';
  failFast: boolean;
  strictFailFast: boolean;
  hooks: Hooks;
  /** Pipeline-level service blocks, running for the whole build. */
  services: ServicesSpec[];
  steps: Step[];
  /**
   * What the file uses that Sluice does not run, in file order. The engine names each one in the
   * build's log before any step starts, and stops the build there if one has `effect: 'fails'`.
   */
  notRun: NotRunConstruct[];
}

/** A construct Sluice accepts but does not run (a `SLUICE_PIPELINE_UNSUPPORTED`/`_IGNORED` warning). */
export interface NotRunConstruct {
  /** The warning's text: the construct, why, and what the build does about it. */
  message: string;
  /** `fails`: the build stops before its first step; `ignored`: it runs without it. */
  effect: 'fails' | 'ignored';
  path: readonly (string | number)[];
  line: number;
  column: number;
}
