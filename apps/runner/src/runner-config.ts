/**
 * The agent's configuration: where the control plane is, its token, how much it does at once,
 * and the runtimes it serves with how to reach each (in-cluster service account, a kubeconfig,
 * a directory of `*.runtime.yaml` files for one agent serving several clusters, or this
 * machine's Docker engine).
 * @module
 */
import { AGENT_DEFAULTS } from '@sluice/config';
import type { KubeSource as KubeClientSource } from '@sluice/kube';
import type { WarmPoolSettings } from './backends/kubernetes/warm-pool-size.js';

/**
 * How to reach one Kubernetes cluster: a `KubeClient` source, where the token kind comes from a
 * `*.runtime.yaml` file (API server URL, service-account token, cluster CA) named in `file`.
 */
export type KubeSource =
  | Exclude<KubeClientSource, { type: 'token' }>
  | (Extract<KubeClientSource, { type: 'token' }> & { file: string });

export interface KubernetesTarget {
  kind: 'kubernetes';
  /** The runtime environment's name. */
  name: string;
  source: KubeSource;
  /** Namespace of the build objects when the control plane does not say (reaper, health). */
  namespace?: string;
  /** Give engine pods a hostAliases entry for their dind pod (clusters without DNS). */
  dindHostAlias?: boolean;
  /** Pods kept running ahead of builds (backends/kubernetes/warm-pool.ts); none when absent. */
  warmPool?: WarmPoolSettings;
}

export interface LocalTarget {
  kind: 'local';
  name: string;
  /** The Docker engine the engines use; DOCKER_HOST style. */
  dockerHost?: string;
  /** argv that starts `sluice engine` (e.g. [process.execPath, '/…/sluice.js', 'engine']). */
  engineCommand: string[];
  /** Where the backend keeps one pid file per running engine, so a restarted agent finds them. */
  stateDir: string;
  /** Seconds an engine gets after SIGTERM before SIGKILL. */
  stopGraceSeconds: number;
  /** Engines started ahead of their builds, waiting for one (engine-standby.ts); none by default. */
  standbyEngines?: number;
}

export type RuntimeTarget = KubernetesTarget | LocalTarget;

export interface RunnerConfig {
  serverUrl: string;
  /** The agent token. Never logged. */
  token: string;
  /** Builds worked on at once (each build's tasks in order, by one worker). */
  concurrency: number;
  /** Tasks held (queued or running) before the agent stops asking for more. */
  queueSize: number;
  /** Seconds each long-poll is held open by the server. */
  pollWaitSeconds: number;
  heartbeatMs: number;
  /** How often the reaper lists build objects; 0 turns it off. */
  reapIntervalMs: number;
  /** `/healthz` and `/metrics`; port 0 picks a free one; undefined serves nothing. */
  http?: { host: string; port: number };
  /** How long a shutdown waits for running tasks before it gives up on them. */
  drainTimeoutMs: number;
  /** Kubernetes client rate limit: requests per second and burst, per cluster. */
  kubeQps: number;
  kubeBurst: number;
  /**
   * How long a build pod may stay stuck (its image not pulled, its container not created)
   * before the pod monitor reports it as an infrastructure error; `unschedulableGraceMs` for a
   * pod no node can take (raise it where a cluster autoscaler adds nodes).
   */
  podFailureGraceMs: number;
  unschedulableGraceMs: number;
  runtimes: RuntimeTarget[];
}

/** The agent's defaults: `AGENT_DEFAULTS` of `@sluice/config`, where its variables are described. */
export const RUNNER_DEFAULTS = AGENT_DEFAULTS;
