/**
 * Retries a build on new pods or a new engine process after an infrastructure error, or ends it.
 * What the control plane does when an agent's pod monitor reports that one of a build's pods
 * failed for a reason of the cluster's (Unschedulable, ErrImagePull, OOMKilled, Evicted, a lost
 * node…): while the build's engine has not started and its runtime allows
 * (`runtimeScheduler.infrastructureRetries`, default 1), the build gets new pods — its current
 * pods' delete tasks, then the same pods under new names (`-r1`, `-r2`…), on the same volume
 * claim, Secret and ConfigMap; otherwise it ends `error` with the pod's reason and message. The
 * local runtime reports an engine process that ended before its build the same way: while the
 * build is `elected`, the same RunEngine task is queued again (a new engine process, same
 * token), up to the same number of retries; otherwise it ends `error`. A
 * build whose steps ran is never retried: a step may have pushed or deployed. Reports about a
 * finished build or a pod of an earlier attempt change nothing, so a monitor may report twice.
 * @module
 */
import { InputError, NotFoundError } from '@sluice/errors';
import type { Executor } from '@sluice/db';
import { FINISHED_STATUSES } from '@sluice/protocol';
import type {
  BuildStatus,
  InfrastructureErrorAnswer,
  InfrastructureErrorReport,
} from '@sluice/protocol';
import { DEFAULT_INFRASTRUCTURE_RETRIES } from '@sluice/runtime-spec';
import type { BuildService } from '../builds/build-service.js';
import type { BuildStore } from '../builds/build-store.js';
import type { RuntimeService } from '../settings/runtime-service.js';
import { lockReportedBuild } from '../builds/build-rows.js';
import type { ServerContext } from '../server-context.js';
import { insertTasks, supersedeTasks, unsealTaskSpec } from '../builds/task-rows.js';
import type { PlannedTask } from '../builds/task-rows.js';

interface PodTask {
  id: string;
  name: string;
  spec: Record<string, unknown>;
}

interface ReportedBuild {
  id: string;
  account_id: string;
  status: BuildStatus;
  runtime_environment: string | null;
}

/** `engine-x-r2` → 2; a first attempt's pod has no suffix. */
const RETRY_SUFFIX = /-r(\d+)$/;

export class InfrastructureRetries {
  readonly #ctx: ServerContext;
  readonly #runtimes: RuntimeService;
  readonly #builds: BuildService;
  readonly #store: BuildStore;

  constructor(
    ctx: ServerContext,
    runtimes: RuntimeService,
    builds: BuildService,
    store: BuildStore,
  ) {
    this.#store = store;
    this.#ctx = ctx;
    this.#runtimes = runtimes;
    this.#builds = builds;
  }

  /**
   * @throws NotFoundError `SLUICE_BUILD_NOT_FOUND` when the build is neither one of the agent's
   *   runtimes' builds nor one dispatched to the agent (whose runtime was taken from it since).
   */
  async report(
    agent: { accountId: string; agentId: string; runtimes: readonly string[] },
    buildId: string,
    report: InfrastructureErrorReport,
  ): Promise<InfrastructureErrorAnswer> {
    const answer = await this.#builds.transaction(async (trx) => {
      const build = await lockReportedBuild(trx, agent.accountId, buildId);
      if (
        build === undefined ||
        build.runtime_environment === null ||
        (!agent.runtimes.includes(build.runtime_environment) && build.agent_id !== agent.agentId)
      )
        throw new NotFoundError(
          'SLUICE_BUILD_NOT_FOUND',
          `Build ${buildId} is not a build of this agent's runtimes`,
        );
      return this.#decide(trx, build, report);
    });
    const log = { buildId, pod: report.pod, reason: report.reason, ...answer };
    if (answer.action !== 'ignored') this.#ctx.log.warn('build pod failed (infrastructure)', log);
    return answer;
  }

  async #decide(
    trx: Executor,
    build: ReportedBuild,
    report: InfrastructureErrorReport,
  ): Promise<InfrastructureErrorAnswer> {
    const { pods, attempt: podAttempt } = await currentPods(this.#ctx, trx, build.id);
    if (FINISHED_STATUSES.includes(build.status)) return { action: 'ignored', attempt: podAttempt };
    // The local runtime's engine process that ended before its build (engine-exit-report.ts):
    // each attempt is one RunEngine task, and any report is about the current one.
    const engines =
      pods.length === 0 ? await tasksOfType(this.#ctx, trx, build.id, 'RunEngine') : [];
    const local = engines.length > 0;
    const attempt = local ? engines.length : podAttempt;
    if (!local && !pods.some((p) => p.name === report.pod)) return { action: 'ignored', attempt };
    const what = `${local ? '' : 'pod '}${report.pod}: ${report.reason}${report.message === '' ? '' : `: ${report.message}`}`;
    const retries = await this.#allowedRetries(trx, build);
    if (build.status === 'elected' && attempt <= retries) {
      const latest = engines.at(-1);
      if (latest === undefined) await this.#retry(trx, build, pods, attempt, what);
      else await this.#retryEngine(trx, build, latest.spec, attempt, what);
      return { action: 'retried', attempt: attempt + 1 };
    }
    const why =
      build.status === 'elected'
        ? `after ${attempt} attempt(s) ${local ? 'with new engine processes' : 'on new pods'}`
        : 'not retried: its steps had started';
    await this.#builds.finish(trx, build.id, 'error', `Infrastructure error on ${what} (${why})`);
    return { action: 'failed', attempt };
  }

  /** A new engine process: the same RunEngine task again (its token still holds), queued last. */
  async #retryEngine(
    trx: Executor,
    build: ReportedBuild,
    spec: Record<string, unknown>,
    attempt: number,
    what: string,
  ): Promise<void> {
    await this.#appendTasks(trx, build, [{ type: 'RunEngine', spec, sealed: true }]);
    await this.#store.markRetrying(
      trx,
      build.id,
      `Retrying with a new engine process (attempt ${attempt + 1}) after an infrastructure error on ${what}`,
      new Date(this.#ctx.clock()),
    );
  }

  /** Queues `tasks` after the build's last one. */
  async #appendTasks(trx: Executor, build: ReportedBuild, tasks: PlannedTask[]): Promise<void> {
    const { last } = await trx
      .selectFrom('tasks')
      .select((eb) => eb.fn.max('position').as('last'))
      .where('build_id', '=', build.id)
      .executeTakeFirstOrThrow();
    await insertTasks(this.#ctx, trx, {
      accountId: build.account_id,
      buildId: build.id,
      runtime: build.runtime_environment as string,
      tasks,
      firstPosition: Number(last ?? -1) + 1,
    });
  }

  async #allowedRetries(trx: Executor, build: ReportedBuild): Promise<number> {
    try {
      const spec = await this.#runtimes.resolve(
        build.account_id,
        build.runtime_environment as string,
        { executor: trx },
      );
      return spec.runtimeScheduler?.infrastructureRetries ?? DEFAULT_INFRASTRUCTURE_RETRIES;
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      // A runtime deleted or broken since the build started: the default.
      return DEFAULT_INFRASTRUCTURE_RETRIES;
    }
  }

  /**
   * The current pods' start tasks that have not run are dropped (and a leased one can no longer
   * be reported, its revision moved on), their delete tasks queued, then the new pods.
   */
  async #retry(
    trx: Executor,
    build: ReportedBuild,
    pods: readonly PodTask[],
    attempt: number,
    what: string,
  ): Promise<void> {
    const now = new Date(this.#ctx.clock());
    const superseded = `Superseded: the build is retried on new pods after ${what}`;
    await supersedeTasks(
      trx,
      pods.map((p) => p.id),
      { reason: superseded, now },
    );
    const renamed = pods.map((pod) => retryPod(pod.spec, pods, attempt));
    const tasks: PlannedTask[] = [
      // The engine before the daemon it uses, as a build's stop tasks go.
      ...[...pods].reverse().map((pod) => ({
        type: 'DeletePod' as const,
        spec: { name: pod.name, namespace: (pod.spec.metadata as { namespace: string }).namespace },
      })),
      ...renamed.map((spec) => ({ type: 'CreatePod' as const, spec })),
    ];
    await this.#appendTasks(trx, build, tasks);
    await this.#store.markRetrying(
      trx,
      build.id,
      `Retrying on new pods (attempt ${attempt + 1}) after an infrastructure error on ${what}`,
      now,
    );
  }
}

/** The build's tasks of `type`, oldest first, their specs unsealed. */
async function tasksOfType(
  ctx: ServerContext,
  trx: Executor,
  buildId: string,
  type: 'CreatePod' | 'RunEngine',
): Promise<{ id: string; spec: Record<string, unknown> }[]> {
  const rows = await trx
    .selectFrom('tasks')
    .select(['id', 'spec'])
    .where('build_id', '=', buildId)
    .where('type', '=', type)
    .orderBy('position')
    .execute();
  return rows.map((row) => ({ id: row.id, spec: unsealTaskSpec(ctx, row) }));
}

/**
 * The pods of the build's latest attempt and its number: a retry's pods carry `-r<n>`, so the
 * latest are the `CreatePod` tasks with the highest n (none: the first attempt's).
 */
async function currentPods(
  ctx: ServerContext,
  trx: Executor,
  buildId: string,
): Promise<{ pods: PodTask[]; attempt: number }> {
  const all = (await tasksOfType(ctx, trx, buildId, 'CreatePod')).map(({ id, spec }) => {
    const name = (spec.metadata as { name: string }).name;
    return { id, name, spec, retry: Number(RETRY_SUFFIX.exec(name)?.[1] ?? 0) };
  });
  const latest = Math.max(0, ...all.map((p) => p.retry));
  return { pods: all.filter((p) => p.retry === latest), attempt: latest + 1 };
}

/**
 * The pod under its next attempt's name; an engine pod's `SLUICE_DIND_POD` follows its dind
 * pod's new name. The dind pod keeps its `hostname`, so the name the engine dials, and the
 * certificate issued for it, still hold.
 */
function retryPod(
  spec: Record<string, unknown>,
  pods: readonly PodTask[],
  attempt: number,
): Record<string, unknown> {
  const rename = (name: string) => `${name.replace(RETRY_SUFFIX, '')}-r${attempt}`;
  const names = new Map(pods.map((p) => [p.name, rename(p.name)]));
  const metadata = spec.metadata as { name: string };
  const podSpec = spec.spec as { containers?: { env?: { name: string; value?: string }[] }[] };
  const containers = (podSpec.containers ?? []).map((container) => ({
    ...container,
    ...(container.env === undefined
      ? {}
      : {
          env: container.env.map((e) =>
            e.name === 'SLUICE_DIND_POD' && e.value !== undefined && names.has(e.value)
              ? { ...e, value: names.get(e.value) }
              : e,
          ),
        }),
  }));
  return {
    ...spec,
    metadata: { ...metadata, name: rename(metadata.name) },
    spec: { ...podSpec, containers },
  };
}
