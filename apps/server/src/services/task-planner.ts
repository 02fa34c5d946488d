/**
 * What a build becomes for its agent, chosen by its runtime's resolved spec: a `KubernetesPod`
 * runtime gets the build's Service, PVC, Secret, ConfigMap and pods (`kubernetes-plan.ts`), a
 * local one an engine process (`RunEngine`). Either way the engine token is issued here, once,
 * and stored sealed with its task, so every hand-out of the task is the same: one handed out
 * again while its engine runs leaves that engine's token alive. Stop tasks are the inverse of
 * the start tasks the build was given, newest object first, so they remove exactly what was
 * asked for even when the runtime spec changed since.
 * @module
 */
import { InputError } from '@sluice/errors';
import type { Executor } from '@sluice/db';
import type { TaskType } from '@sluice/protocol';
import { renderLocalEngineEnv } from '@sluice/runtime-spec';
import type { KubeMetadata, RuntimeSpec } from '@sluice/runtime-spec';
import type { CertificateService } from './certificate-service.js';
import type { IdentityService } from './identity-service.js';
import { planKubernetesStart } from './kubernetes-plan.js';
import type { RuntimeService } from './runtime-service.js';
import type { ServerContext } from './server-context.js';
import { unsealTaskSpec } from './task-rows.js';
import type { PlannedTask, StartPlan } from './task-rows.js';

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
  // A scheduler pass plans many builds in one transaction, mostly on the same runtime: its spec
  // is read and resolved once per transaction.
  const specs = new WeakMap<Executor, Map<string, Promise<RuntimeSpec>>>();
  const resolve = (trx: Executor, accountId: string, runtime: string): Promise<RuntimeSpec> => {
    const inTrx = specs.get(trx) ?? new Map<string, Promise<RuntimeSpec>>();
    specs.set(trx, inTrx);
    const key = `${accountId}/${runtime}`;
    let spec = inTrx.get(key);
    if (spec === undefined) {
      spec = runtimes.resolve(accountId, runtime, { executor: trx });
      inTrx.set(key, spec);
    }
    return spec;
  };
  return {
    async prepare() {
      await certificates.ca();
    },
    async planStart(trx, build) {
      let spec;
      try {
        spec = await resolve(trx, build.accountId, build.runtime);
      } catch (err) {
        if (err instanceof InputError) return { ok: false, reason: err.message };
        throw err;
      }
      if (spec.runtimeScheduler?.type === 'KubernetesPod')
        return planKubernetesStart(trx, options, { ...build, spec });
      return planLocalStart(trx, options, build, spec);
    },
    async planStop(trx, build) {
      const rows = await trx
        .selectFrom('tasks')
        .select(['id', 'type', 'spec'])
        .where('build_id', '=', build.buildId)
        .where('type', 'in', START_TASK_TYPES)
        .orderBy('position', 'desc')
        .execute();
      return rows.flatMap((row) => stopTaskFor(ctx, row, build));
    },
  };
}

/** An engine process; its task holds the engine token, so it is sealed like a build Secret. */
async function planLocalStart(
  trx: Executor,
  { ctx, identity }: TaskPlannerOptions,
  build: PlanInput,
  runtime: RuntimeSpec,
): Promise<StartPlan> {
  const engineToken = await identity.issueEngineToken(trx, build);
  const spec = {
    buildId: build.buildId,
    engineToken,
    serverUrl: ctx.config.publicUrl ?? '',
    // userEnvVars, hostPath userVolumeMounts and the proxy, set on the engine process.
    env: renderLocalEngineEnv(runtime),
  };
  return { ok: true, tasks: [{ type: 'RunEngine', spec, sealed: true }] };
}

/** Only a Kubernetes object's task is opened: its stop task names the object. */
function stopTaskFor(
  ctx: ServerContext,
  row: { id: string; type: string; spec: unknown },
  build: PlanInput,
): PlannedTask[] {
  if (row.type === 'RunEngine') return [{ type: 'StopEngine', spec: { buildId: build.buildId } }];
  const stop = STOP_TYPE[row.type];
  if (stop === undefined) return [];
  const { name, namespace } = unsealTaskSpec(ctx, row).metadata as KubeMetadata;
  return [{ type: stop, spec: { name, namespace } }];
}
