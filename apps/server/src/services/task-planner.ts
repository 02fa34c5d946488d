/**
 * What a build becomes for its agent, chosen by its runtime's resolved spec: a `KubernetesPod`
 * runtime gets the build's Service, PVC, Secret, ConfigMap and pods (`kubernetes-plan.ts`), a
 * local one an engine process (`RunEngine`). Stop tasks are the inverse of the start tasks the
 * build was given, newest object first, so they remove exactly what was asked for even when the
 * runtime spec changed since.
 * @module
 */
import { InputError } from '@sluice/errors';
import type { Executor } from '@sluice/db';
import type { TaskType } from '@sluice/protocol';
import type { KubeMetadata } from '@sluice/runtime-spec';
import type { CertificateService } from './certificate-service.js';
import type { IdentityService } from './identity-service.js';
import { planKubernetesStart } from './kubernetes-plan.js';
import type { RuntimeService } from './runtime-service.js';
import type { ServerContext } from './server-context.js';
import { unsealTaskSpec } from './task-rows.js';
import type { PlannedTask, StartPlan } from './task-rows.js';

export type { PlannedTask, StartPlan };

export interface PlanInput {
  accountId: string;
  buildId: string;
  runtime: string;
}

export interface TaskPlanner {
  /** Loads, outside any transaction, what planning needs (the CA), so plans read only `trx`. */
  prepare(): Promise<void>;
  planStart(trx: Executor, build: PlanInput): Promise<StartPlan>;
  planStop(trx: Executor, build: PlanInput): Promise<PlannedTask[]>;
}

export interface TaskPlannerOptions {
  ctx: ServerContext;
  runtimes: RuntimeService;
  identity: IdentityService;
  certificates: CertificateService;
}

/** Task types that make a build's objects; the rest remove them. */
export const START_TASK_TYPES: readonly string[] = [
  'RunEngine',
  'CreateService',
  'CreatePvc',
  'CreateSecret',
  'CreateConfigMap',
  'CreatePod',
];

const STOP_TYPE: Partial<Record<string, TaskType>> = {
  CreatePvc: 'DeletePvc',
  CreateSecret: 'DeleteSecret',
  CreateConfigMap: 'DeleteConfigMap',
  CreatePod: 'DeletePod',
  // CreateService has no inverse: the namespace's dind Service serves every build.
};

export function createTaskPlanner(options: TaskPlannerOptions): TaskPlanner {
  const { ctx, runtimes, certificates } = options;
  return {
    async prepare() {
      await certificates.ca();
    },
    async planStart(trx, build) {
      let spec;
      try {
        spec = await runtimes.resolve(build.accountId, build.runtime, { executor: trx });
      } catch (err) {
        if (err instanceof InputError) return { ok: false, reason: err.message };
        throw err;
      }
      if (spec.runtimeScheduler?.type === 'KubernetesPod')
        return planKubernetesStart(trx, options, { ...build, spec });
      return { ok: true, tasks: [{ type: 'RunEngine', spec: { buildId: build.buildId } }] };
    },
    async planStop(trx, build) {
      const rows = await trx
        .selectFrom('tasks')
        .select(['id', 'type', 'spec'])
        .where('build_id', '=', build.buildId)
        .where('type', 'in', START_TASK_TYPES)
        .orderBy('position', 'desc')
        .execute();
      return rows.flatMap((row) => stopTaskFor(row.type, unsealTaskSpec(ctx, row), build));
    },
  };
}

function stopTaskFor(type: string, spec: Record<string, unknown>, build: PlanInput): PlannedTask[] {
  if (type === 'RunEngine') return [{ type: 'StopEngine', spec: { buildId: build.buildId } }];
  const stop = STOP_TYPE[type];
  if (stop === undefined) return [];
  const { name, namespace } = spec.metadata as KubeMetadata;
  return [{ type: stop, spec: { name, namespace } }];
}
