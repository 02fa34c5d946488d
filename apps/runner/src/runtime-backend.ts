/**
 * What the agent needs from the place builds run: a Kubernetes cluster (`KubernetesBackend`,
 * through @sluice/kube) or this machine's Docker engine (`LocalBackend`, engine child
 * processes). The task loop hands each backend the tasks of its runtime, one build at a time
 * and in order; the heartbeat asks for health; the reaper lists what a build left and removes it.
 * @module
 */
import type {
  InfrastructureErrorAnswer,
  InfrastructureErrorReport,
  RuntimeHealth,
  Task,
} from '@sluice/protocol';
import type { ReportBuildCache } from './backends/kubernetes/cache-records.js';
import type { WarmPoolStats } from './backends/kubernetes/warm-pool-size.js';

/** One object (or process) the agent made for a build, as the reaper sees it. */
export interface BuildObjectRef {
  buildId: string;
  /**
   * `Pod`, `Secret`, `PersistentVolumeClaim`, `ConfigMap`; for the local backend `EngineProcess`,
   * and the `Container`s and `Network`s of builds whose engine no longer runs.
   */
  kind: string;
  name: string;
  namespace?: string;
  /** Pods: `status.phase`; engine processes: `Running` or `Stopping`; containers: Docker's state. */
  phase?: string;
}

/** Tells the control plane that one of a build's pods failed for an infrastructure reason. */
export type ReportInfrastructureError = (
  buildId: string,
  report: InfrastructureErrorReport,
) => Promise<InfrastructureErrorAnswer>;

export interface RuntimeBackend {
  /** The runtime environment's name, as tasks carry it in `runtime`. */
  readonly runtime: string;
  readonly kind: 'kubernetes' | 'local';
  /**
   * Carries out one task. Resolves when it is done, including when there was nothing to do
   * (AlreadyExists on create, NotFound on delete). Throws `TaskFailure` with the retriable flag
   * of the reference's classification; any other error is reported as retriable.
   */
  apply(task: Task, signal: AbortSignal): Promise<void>;
  /** Health of the runtime: its API server (or Docker engine) reachable, permissions present. */
  health(): Promise<RuntimeHealth>;
  /** Every object or process this agent made for any build, found by label (or pid file). */
  listBuildObjects(): Promise<BuildObjectRef[]>;
  /** Removes what `listBuildObjects` returned for one build; absent objects are not an error. */
  deleteBuildObjects(refs: BuildObjectRef[]): Promise<void>;
  /**
   * Watches the runtime's build pods until the signal aborts, reporting those that failed for
   * an infrastructure reason and each build's cache record (Kubernetes only: a local engine's
   * end is its own report, and a local build's daemon is the machine's).
   */
  monitor?(options: {
    report: ReportInfrastructureError;
    /** Sends a build's cache record, read off its claim once bound (`cache-records.ts`). */
    reportCache?: ReportBuildCache;
    signal: AbortSignal;
    /** After each pass: how long it took and the build pods by phase. */
    onPass?: (seconds: number, phases: Record<string, number>) => void;
  }): Promise<void>;
  /** The warm pool's counts (Kubernetes runtimes with one); undefined without a pool. */
  warmPool?(): WarmPoolStats | undefined;
  /** Failed requests to the runtime's API (Kubernetes) by kind, since the backend was made. */
  apiErrors?(): Readonly<Record<string, number>>;
  /** Lets go of connections and child processes' handles; does not stop running builds. */
  close(): Promise<void>;
}

/** A task that could not be carried out, with whether the control plane should try again. */
export class TaskFailure extends Error {
  readonly retriable: boolean;

  constructor(message: string, options: { retriable: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'TaskFailure';
    this.retriable = options.retriable;
  }
}
