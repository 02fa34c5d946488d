/**
 * The agent's Prometheus metrics, on a registry of its own (never the global one, so two agents
 * in one process, as in tests, do not collide): tasks by type and outcome with their duration,
 * tasks held, builds being worked (and the most at once), poll errors, runtime health, objects
 * reaped, how long each reconcile pass takes, build pods by phase (engine processes by state on
 * the local runtime), failed requests to the control plane and to Kubernetes by kind, and the
 * process's own memory and CPU.
 * @module
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RuntimeBackend } from './runtime-backend.js';
import type { WarmPoolStats } from './backends/kubernetes/warm-pool-size.js';

export type TaskOutcome = 'success' | 'retriable-error' | 'error';

/** A loop that compares what exists with what should, and acts on the difference. */
export type ReconcileLoop = 'reaper' | 'pod-monitor';

/** Failed requests of one kind to one API, counted since the agent started. */
export interface ApiErrorCount {
  api: 'control-plane' | 'kubernetes';
  /** The runtime whose cluster was asked; '' for the control plane. */
  runtime: string;
  /** `unavailable`, `forbidden`, `not-found`, ... (an error category or a Kubernetes error kind). */
  kind: string;
  count: number;
}

export interface AgentMetrics {
  registry: Registry;
  taskDone(type: string, outcome: TaskOutcome, seconds: number): void;
  setActive(active: number): void;
  pollError(): void;
  setRuntimeHealthy(runtime: string, healthy: boolean): void;
  reaped(runtime: string, objects: number): void;
  /** One pass of `loop` over `runtime` took `seconds` (failed passes included). */
  reconcileDone(loop: ReconcileLoop, runtime: string, seconds: number): void;
  /**
   * The runtime's build pods by phase now (Kubernetes `status.phase`; local engine processes:
   * `Running`, `Stopping`). A phase seen before and absent now reads 0.
   */
  setBuildPods(runtime: string, phases: Readonly<Record<string, number>>): void;
  /** Text for `/metrics`. */
  render(): Promise<string>;
}

export interface AgentMetricsOptions {
  /** Tasks held now, read at each scrape (the dispatcher's count, never a copy of it). */
  tasksHeld(): number;
  /** Failed API requests so far, read at each scrape from where they are counted. */
  apiErrors?(): ApiErrorCount[];
  /** Each warm pool's counts, read at each scrape (backends/kubernetes/warm-pool.ts). */
  warmPools?(): { runtime: string; stats: WarmPoolStats }[];
}

export function createAgentMetrics(options: AgentMetricsOptions): AgentMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'sluice_agent_' });
  const tasks = new Counter({
    name: 'sluice_agent_tasks_total',
    help: 'Tasks carried out, by type and outcome',
    labelNames: ['type', 'outcome'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'sluice_agent_task_duration_seconds',
    help: 'Time to carry out and report one task',
    labelNames: ['type'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  new Gauge({
    name: 'sluice_agent_tasks_held',
    help: 'Tasks taken from the control plane and not yet reported',
    registers: [registry],
    collect() {
      this.set(options.tasksHeld());
    },
  });
  const active = new Gauge({
    name: 'sluice_agent_builds_active',
    help: 'Builds whose tasks are being carried out now',
    registers: [registry],
  });
  const activeMax = new Gauge({
    name: 'sluice_agent_builds_active_max',
    help: 'The most builds worked at once since the agent started (bounded by --concurrency)',
    registers: [registry],
  });
  const pollErrors = new Counter({
    name: 'sluice_agent_poll_errors_total',
    help: 'Failed long-polls for tasks (the agent backs off)',
    registers: [registry],
  });
  const healthy = new Gauge({
    name: 'sluice_agent_runtime_healthy',
    help: '1 when the runtime passed its last health check',
    labelNames: ['runtime'],
    registers: [registry],
  });
  const reaped = new Counter({
    name: 'sluice_agent_objects_reaped_total',
    help: 'Objects of finished or unknown builds deleted by the reaper',
    labelNames: ['runtime'],
    registers: [registry],
  });
  const reconcile = new Histogram({
    name: 'sluice_agent_reconcile_duration_seconds',
    help: 'One pass of a reconcile loop over one runtime: the reaper (list build objects, read their builds, delete orphans) or the pod monitor',
    labelNames: ['loop', 'runtime'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const pods = buildPodsGauge(registry);
  new Counter({
    name: 'sluice_agent_api_errors_total',
    help: 'Failed requests to the control plane (api="control-plane") and to Kubernetes (api="kubernetes", by runtime), by kind; AlreadyExists on create and NotFound on delete are not failures',
    labelNames: ['api', 'runtime', 'kind'],
    registers: [registry],
    collect() {
      // Counted where the requests are made; copied here at each scrape.
      this.reset();
      for (const { api, runtime, kind, count } of options.apiErrors?.() ?? [])
        if (count > 0) this.inc({ api, runtime, kind }, count);
    },
  });
  warmPoolSeries(registry, options);
  let most = 0;
  return {
    registry,
    taskDone(type, outcome, seconds) {
      tasks.inc({ type, outcome });
      duration.observe({ type }, seconds);
    },
    setActive(n) {
      active.set(n);
      if (n > most) activeMax.set((most = n));
    },
    pollError: () => pollErrors.inc(),
    setRuntimeHealthy: (runtime, ok) => healthy.set({ runtime }, ok ? 1 : 0),
    reaped: (runtime, n) => reaped.inc({ runtime }, n),
    reconcileDone: (loop, runtime, seconds) => reconcile.observe({ loop, runtime }, seconds),
    setBuildPods: (runtime, phases) => pods.set(runtime, phases),
    render: () => registry.metrics(),
  };
}

/** `sluice_agent_build_pods{runtime,phase}`, keeping every phase once seen (at 0 when absent). */
function buildPodsGauge(registry: Registry) {
  const gauge = new Gauge({
    name: 'sluice_agent_build_pods',
    help: 'Build pods by runtime and phase (Kubernetes status.phase); on the local runtime, engine processes by state',
    labelNames: ['runtime', 'phase'],
    registers: [registry],
  });
  const seen = new Map<string, Set<string>>();
  return {
    set(runtime: string, phases: Readonly<Record<string, number>>) {
      const known = seen.get(runtime) ?? new Set<string>();
      seen.set(runtime, known);
      for (const phase of Object.keys(phases)) known.add(phase);
      for (const phase of known) gauge.set({ runtime, phase }, phases[phase] ?? 0);
    },
  };
}

/**
 * `sluice_agent_warm_pool_pods{runtime,state}` (waiting, starting), `..._target{runtime}` and
 * `..._takes_total{runtime,outcome}` (hit, miss), read from the pools at each scrape.
 */
function warmPoolSeries(registry: Registry, options: AgentMetricsOptions): void {
  new Gauge({
    name: 'sluice_agent_warm_pool_pods',
    help: 'Warm-pool pods by runtime and state: waiting (ready for a build) or starting',
    labelNames: ['runtime', 'state'],
    registers: [registry],
    collect() {
      for (const { runtime, stats } of options.warmPools?.() ?? []) {
        this.set({ runtime, state: 'waiting' }, stats.waiting);
        this.set({ runtime, state: 'starting' }, stats.starting);
      }
    },
  });
  new Gauge({
    name: 'sluice_agent_warm_pool_target',
    help: 'The size each warm pool is being brought to (its maximum while builds come, its minimum when idle)',
    labelNames: ['runtime'],
    registers: [registry],
    collect() {
      for (const { runtime, stats } of options.warmPools?.() ?? [])
        this.set({ runtime }, stats.target);
    },
  });
  new Counter({
    name: 'sluice_agent_warm_pool_takes_total',
    help: 'Builds that took a warm-pool pod (outcome="hit") or found none ready (outcome="miss")',
    labelNames: ['runtime', 'outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { runtime, stats } of options.warmPools?.() ?? []) {
        this.inc({ runtime, outcome: 'hit' }, stats.hits);
        this.inc({ runtime, outcome: 'miss' }, stats.misses);
      }
    },
  });
}

/** The warm pools of the backends that have one. */
export function warmPoolStats(
  backends: readonly Pick<RuntimeBackend, 'runtime' | 'warmPool'>[],
): { runtime: string; stats: WarmPoolStats }[] {
  return backends.flatMap((backend) => {
    const stats = backend.warmPool?.();
    return stats === undefined ? [] : [{ runtime: backend.runtime, stats }];
  });
}

/** The control plane's failed calls and each Kubernetes runtime's, as the metrics list them. */
export function apiErrorCounts(
  controlPlane: ReadonlyMap<string, number>,
  backends: readonly Pick<RuntimeBackend, 'runtime' | 'apiErrors'>[],
): ApiErrorCount[] {
  const counts: ApiErrorCount[] = [];
  for (const [kind, count] of controlPlane)
    counts.push({ api: 'control-plane', runtime: '', kind, count });
  for (const backend of backends)
    for (const [kind, count] of Object.entries(backend.apiErrors?.() ?? {}))
      counts.push({ api: 'kubernetes', runtime: backend.runtime, kind, count });
  return counts;
}
