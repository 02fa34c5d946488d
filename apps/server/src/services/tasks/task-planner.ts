/**
 * What a build becomes for its agent, chosen by its runtime's resolved spec: a `KubernetesPod`
 * runtime gets the build's Service, PVC, Secret, ConfigMap and pods (`kubernetes-plan.ts`), a
 * local one an engine process (`RunEngine`). Either way the engine token is made here, once,
 * and stored sealed with its task (its hash by the statement that elects the build: planning
 * writes nothing), so every hand-out of the task is the same: one handed out
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
import type { CertificateService } from '../identity/certificate-service.js';
import type { EngineToken, IdentityService } from '../identity/identity-service.js';
import { planKubernetesStart } from './kubernetes-plan.js';
import { resolveStoredRuntime } from '../settings/runtime-service.js';
import type { StoredRuntimeSpecs } from '../settings/runtime-service.js';
import type { ClusterService } from '../settings/cluster-service.js';
import type { ServerContext } from '../server-context.js';
import { unsealTaskSpec } from '../builds/task-rows.js';
import type { PlannedTask, StartPlan } from '../builds/task-rows.js';

export interface PlanInput {
  accountId: string;
  buildId: string;
  runtime: string;
}

export interface TaskPlanner {
  /** Loads, outside any transaction, what planning needs (the CA), so plans read only `trx`. */
  prepare(): Promise<void>;
  /**
   * Plans the start of builds of one account in a scheduling pass, writing nothing: each
   * runtime is resolved once among `stored` (the account's runtimes, read with the pass's
   * inputs), and each plan carries the engine token its tasks hold, which the statement that
   * elects the build stores (`BuildStore.electStarts`).
   */
  startPlanner(
    trx: Executor,
    accountId: string,
    stored: StoredRuntimeSpecs,
  ): (build: { buildId: string; runtime: string }) => Promise<StartPlan>;
  planStop(trx: Executor, build: PlanInput): Promise<PlannedTask[]>;
}

export interface TaskPlannerOptions {
  ctx: ServerContext;
  identity: IdentityService;
  certificates: CertificateService;
  clusters: ClusterService;
}

/** Task types that make a build's objects; the rest remove them. */
export const START_TASK_TYPES: readonly string[] = [
  'RunEngine',
  'CreateService',
  'CreatePvc',
  'CreateSecret',
  'CreateClusterCredentials',
  'CreateConfigMap',
  'CreatePod',
];

const STOP_TYPE: Partial<Record<string, TaskType>> = {
  CreatePvc: 'DeletePvc',
  CreateSecret: 'DeleteSecret',
  CreateClusterCredentials: 'DeleteSecret',
  CreateConfigMap: 'DeleteConfigMap',
  CreatePod: 'DeletePod',
  // CreateService has no inverse: the namespace's dind Service serves every build.
};

export function createTaskPlanner(options: TaskPlannerOptions): TaskPlanner {
  const { ctx, certificates, identity } = options;
  return {
    async prepare() {
      await certificates.ca();
    },
    startPlanner(trx, accountId, stored) {
      const specs = new Map<string, RuntimeSpec | InputError>();
      const specOf = (runtime: string) => {
        if (!specs.has(runtime)) {
          try {
            specs.set(runtime, resolveStoredRuntime(stored, runtime));
          } catch (err) {
            if (!(err instanceof InputError)) throw err;
            specs.set(runtime, err);
          }
        }
        return specs.get(runtime) as RuntimeSpec | InputError;
      };
      return async ({ buildId, runtime }) => {
        const spec = specOf(runtime);
        if (spec instanceof InputError) return { ok: false, reason: spec.message };
        const build = { accountId, buildId, runtime };
        const engineToken = identity.newEngineToken(build);
        if (spec.runtimeScheduler?.type === 'KubernetesPod')
          return planKubernetesStart(trx, options, { ...build, spec, engineToken });
        return localStartPlan(ctx, build, spec, engineToken);
      };
    },
    async planStop(trx, build) {
      const rows = await trx
        .selectFrom('tasks')
        .select(['id', 'type', 'spec'])
        .where('build_id', '=', build.buildId)
        .where('type', 'in', START_TASK_TYPES)
        .orderBy('position', 'desc')
        .execute();
      const tasks = rows.flatMap((row) => stopTaskFor(ctx, row, build));
      // The claim first: it goes only once its pod has stopped (pvc-protection), but marked as
      // going at once it tells the volume provisioner that its warm volume is about to be free
      // (a build started back to back waits for it rather than starting cold).
      return [
        ...tasks.filter((task) => task.type === 'DeletePvc'),
        ...tasks.filter((task) => task.type !== 'DeletePvc'),
      ];
    },
  };
}

/** An engine process; its task holds the engine token, so it is sealed like a build Secret. */
function localStartPlan(
  ctx: ServerContext,
  build: PlanInput,
  runtime: RuntimeSpec,
  engineToken: EngineToken,
): StartPlan {
  const spec = {
    buildId: build.buildId,
    engineToken: engineToken.value,
    serverUrl: ctx.config.publicUrl ?? '',
    // userEnvVars, hostPath userVolumeMounts and the proxy, set on the engine process.
    env: renderLocalEngineEnv(runtime),
  };
  return {
    ok: true,
    tasks: [{ type: 'RunEngine', spec, sealed: true }],
    engineToken: engineToken.row,
  };
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
