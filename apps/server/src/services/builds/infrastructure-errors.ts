/**
 * What the control plane does when an agent's pod monitor reports that one of a build's pods
 * failed for a reason of the cluster's (Unschedulable, ErrImagePull, OOMKilled, Evicted, a lost
 * node…): while the build's engine has not started and its runtime allows
 * (`runtimeScheduler.infrastructureRetries`, default 1), the build gets new pods — its current
 * pods' delete tasks, then the same pods under new names (`-r1`, `-r2`…), on the same volume
 * claim, Secret and ConfigMap; otherwise it ends `error` with the pod's reason and message. The
 * local runtime reports an engine process that ended before its build the same way; such a
 * build ends `error` at once, with no retry (an engine may have run steps before it died). A
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
import type { BuildService } from './build-service.js';
import type { BuildStore } from './build-store.js';
import type { RuntimeService } from '../settings/runtime-service.js';
import { lockReportedBuild } from './build-rows.js';
import type { ServerContext } from '../server-context.js';
import { insertTasks, unsealTaskSpec } from '../tasks/task-rows.js';
import type { PlannedTask } from '../tasks/task-rows.js';

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

export class InfrastructureErrors {
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
   * @throws NotFoundError `SLUICE_BUILD_NOT_FOUND` when the build is not one of the agent's
   *   runtimes' builds.
   */
  async report(
    agent: { accountId: string; runtimes: readonly string[] },
    buildId: string,
    report: InfrastructureErrorReport,
  ): Promise<InfrastructureErrorAnswer> {
    const answer = await this.#builds.transaction(async (trx) => {
      const build = await lockReportedBuild(trx, agent.accountId, buildId);
      if (
        build === undefined ||
        build.runtime_environment === null ||
        !agent.runtimes.includes(build.runtime_environment)
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
    const { pods, attempt } = await currentPods(this.#ctx, trx, build.id);
    if (FINISHED_STATUSES.includes(build.status)) return { action: 'ignored', attempt };
    if (pods.length === 0 && (await runsEngineProcess(trx, build.id))) {
      // The local runtime's engine process ended before its build (engine-exit-report.ts).
      const reason = `Infrastructure error: ${report.pod}: ${report.reason}: ${report.message}`;
      await this.#builds.finish(trx, build.id, 'error', reason);
      return { action: 'failed', attempt };
    }
    if (!pods.some((p) => p.name === report.pod)) return { action: 'ignored', attempt };
    const what = `pod ${report.pod}: ${report.reason}${report.message === '' ? '' : `: ${report.message}`}`;
    const retries = await this.#allowedRetries(trx, build);
    if (build.status === 'elected' && attempt <= retries) {
      await this.#retry(trx, build, pods, attempt, what);
      return { action: 'retried', attempt: attempt + 1 };
    }
    const why =
      build.status === 'elected'
        ? `after ${attempt} attempt(s) on new pods`
        : 'not retried: its steps had started';
    await this.#builds.finish(trx, build.id, 'error', `Infrastructure error on ${what} (${why})`);
    return { action: 'failed', attempt };
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
    await trx
      .updateTable('tasks')
      .set((eb) => ({
        status: 'failed',
        status_revision: eb('status_revision', '+', 1),
        lease_expires_at: null,
        last_error: superseded,
        updated_at: now,
      }))
      .where(
        'id',
        'in',
        pods.map((p) => p.id),
      )
      .where('status', 'in', ['queued', 'leased'])
      .execute();
    const renamed = pods.map((pod) => retryPod(pod.spec, pods, attempt));
    const tasks: PlannedTask[] = [
      // The engine before the daemon it uses, as a build's stop tasks go.
      ...[...pods].reverse().map((pod) => ({
        type: 'DeletePod' as const,
        spec: { name: pod.name, namespace: (pod.spec.metadata as { namespace: string }).namespace },
      })),
      ...renamed.map((spec) => ({ type: 'CreatePod' as const, spec })),
    ];
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
    await this.#store.markRetrying(
      trx,
      build.id,
      `Retrying on new pods (attempt ${attempt + 1}) after an infrastructure error on ${what}`,
      now,
    );
  }
}

/** Whether the build runs on the local runtime: its engine is a process (`RunEngine`), no pod. */
async function runsEngineProcess(trx: Executor, buildId: string): Promise<boolean> {
  const row = await trx
    .selectFrom('tasks')
    .select('id')
    .where('build_id', '=', buildId)
    .where('type', '=', 'RunEngine')
    .executeTakeFirst();
  return row !== undefined;
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
  const rows = await trx
    .selectFrom('tasks')
    .select(['id', 'spec'])
    .where('build_id', '=', buildId)
    .where('type', '=', 'CreatePod')
    .orderBy('position')
    .execute();
  const all = rows.map((row) => {
    const spec = unsealTaskSpec(ctx, row);
    const name = (spec.metadata as { name: string }).name;
    return { id: row.id, name, spec, retry: Number(RETRY_SUFFIX.exec(name)?.[1] ?? 0) };
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
