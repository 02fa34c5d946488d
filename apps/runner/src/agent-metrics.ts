/**
 * The agent's Prometheus metrics, on a registry of its own (never the global one, so two agents
 * in one process, as in tests, do not collide): tasks by type and outcome with their duration,
 * tasks held, builds being worked (and the most at once), poll errors, runtime health, objects
 * reaped, and the process's own memory and CPU.
 * @module
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export type TaskOutcome = 'success' | 'retriable-error' | 'error';

export interface AgentMetrics {
  registry: Registry;
  taskDone(type: string, outcome: TaskOutcome, seconds: number): void;
  setActive(active: number): void;
  pollError(): void;
  setRuntimeHealthy(runtime: string, healthy: boolean): void;
  reaped(runtime: string, objects: number): void;
  /** Text for `/metrics`. */
  render(): Promise<string>;
}

export interface AgentMetricsOptions {
  /** Tasks held now, read at each scrape (the dispatcher's count, never a copy of it). */
  tasksHeld(): number;
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
    render: () => registry.metrics(),
  };
}
