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
import { InputError, InternalError } from '@sluice/errors';
import type { Executor } from '@sluice/db';
import type { TaskType } from '@sluice/protocol';
import { renderLocalEngineEnv } from '@sluice/runtime-spec';
import type { KubeMetadata, RuntimeSpec } from '@sluice/runtime-spec';
import type { CertificateService } from '../identity/certificate-service.js';
import type { IdentityService } from '../identity/identity-service.js';
import { planKubernetesStart } from './kubernetes-plan.js';
import type { RuntimeService } from '../settings/runtime-service.js';
import type { ServerContext } from '../server-context.js';
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
  /** `planStart` for each build, in order, in fewer statements. */
  planStarts(trx: Executor, builds: readonly PlanInput[]): Promise<StartPlan[]>;
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
  const { ctx, runtimes, certificates, identity } = options;
  const planStarts = async (trx: Executor, builds: readonly PlanInput[]) => {
    // A scheduler pass plans many builds, mostly on one runtime: each is resolved once, and the
    // engine tokens of local builds are issued in one statement.
    const specs = new Map<string, Promise<RuntimeSpec>>();
    const plans: StartPlan[] = [];
    const local: { index: number; build: PlanInput; spec: RuntimeSpec }[] = [];
    for (const [index, build] of builds.entries()) {
      const key = `${build.accountId}/${build.runtime}`;
      if (!specs.has(key))
        specs.set(key, runtimes.resolve(build.accountId, build.runtime, { executor: trx }));
      let spec;
      try {
        spec = await specs.get(key);
      } catch (err) {
        if (!(err instanceof InputError)) throw err;
        plans[index] = { ok: false, reason: err.message };
        continue;
      }
      if (spec?.runtimeScheduler?.type === 'KubernetesPod')
        plans[index] = await planKubernetesStart(trx, options, { ...build, spec });
      else if (spec !== undefined) local.push({ index, build, spec });
    }
    const tokens = await identity.issueEngineTokens(
      trx,
      local.map((l) => l.build),
    );
    for (const [i, { index, build, spec }] of local.entries())
      plans[index] = localStartPlan(ctx, build, spec, tokens[i] ?? '');
    return plans;
  };
  return {
    async prepare() {
      await certificates.ca();
    },
    planStarts,
    async planStart(trx, build) {
      const [plan] = await planStarts(trx, [build]);
      if (plan === undefined) throw new InternalError('SLUICE_INTERNAL', 'No plan for the build');
      return plan;
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
function localStartPlan(
  ctx: ServerContext,
  build: PlanInput,
  runtime: RuntimeSpec,
  engineToken: string,
): StartPlan {
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
