/**
 * What a build becomes for its agent. The local runtime runs the engine as a process
 * (`RunEngine`); the Kubernetes planner that renders PVC, Secret and pods from the runtime spec
 * plugs in here (runner agent issue).
 * @module
 */
import type { TaskType } from '@sluice/protocol';

export interface PlannedTask {
  type: TaskType;
  spec: Record<string, string | number | boolean>;
}

export interface TaskPlanner {
  planStart(build: { buildId: string; runtime: string }): PlannedTask[];
  planStop(build: { buildId: string; runtime: string }): PlannedTask[];
}

export const engineProcessPlanner: TaskPlanner = {
  planStart: ({ buildId }) => [{ type: 'RunEngine', spec: { buildId } }],
  planStop: ({ buildId }) => [{ type: 'StopEngine', spec: { buildId } }],
};
