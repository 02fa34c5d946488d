/**
 * The engine's side of a build: what to run (pipeline, variables, decrypted secrets, the
 * account's registries and step types), state changes of steps (upserted: see build-steps.ts),
 * approvals and the build, heartbeats, and the control channel (cancel, approve, deny).
 * A build whose engine goes silent is failed as an infrastructure error by `reapSilentEngines`.
 * @module
 */
import { NotFoundError } from '@sluice/errors';
import type { Executor } from '@sluice/db';
import type { EngineBuild, EngineEvent } from '@sluice/protocol';
import type { BuildService } from './build-service.js';
import type { CertificateService } from './certificate-service.js';
import { decryptBuildSecrets } from './build-service.js';
import type { ProjectService } from './project-service.js';
import type { RegistryService } from './registry-service.js';
import type { StepTypeService } from './step-type-service.js';
import type { Scheduler } from './scheduler.js';
import { CHANNELS } from './signals.js';
import { keepFirstTiming, mergeTiming } from './json-columns.js';
import { awaitApproval, finishStep, startStep } from './build-steps.js';
import { resumeWhenAnswered } from './approval-service.js';
import { isoTime } from './server-context.js';
import type { ServerContext } from './server-context.js';

export interface EngineServiceDeps {
  projects: ProjectService;
  builds: BuildService;
  scheduler: Scheduler;
  certificates: CertificateService;
  registries: RegistryService;
  stepTypes: StepTypeService;
}

export class EngineService {
  readonly #ctx: ServerContext;
  readonly #projects: ProjectService;
  readonly #builds: BuildService;
  readonly #scheduler: Scheduler;
  readonly #certificates: CertificateService;
  readonly #registries: RegistryService;
  readonly #stepTypes: StepTypeService;

  constructor(ctx: ServerContext, deps: EngineServiceDeps) {
    this.#ctx = ctx;
    this.#projects = deps.projects;
    this.#builds = deps.builds;
    this.#scheduler = deps.scheduler;
    this.#certificates = deps.certificates;
    this.#registries = deps.registries;
    this.#stepTypes = deps.stepTypes;
  }

  async build(buildId: string): Promise<EngineBuild> {
    const db = this.#ctx.database.db;
    const row = await db
      .selectFrom('builds')
      .innerJoin('pipelines', 'pipelines.id', 'builds.pipeline_id')
      .innerJoin('projects', 'projects.id', 'pipelines.project_id')
      .selectAll('builds')
      .select([
        'pipelines.yaml',
        'pipelines.name as pipeline_name',
        'projects.name as project_name',
      ])
      .where('builds.id', '=', buildId)
      .executeTakeFirst();
    if (row === undefined)
      throw new NotFoundError('SLUICE_BUILD_NOT_FOUND', `Build ${buildId} does not exist`);
    const stored = await this.#projects.variablesForBuild(row.pipeline_id);
    const runSecrets =
      row.secret_variables_encrypted === null
        ? {}
        : decryptBuildSecrets(this.#ctx, buildId, row.secret_variables_encrypted);
    const facts: Record<string, string> = { ...(row.facts as Record<string, string>) };
    if (row.branch !== null) facts.branch = row.branch;
    if (row.revision !== null) facts.revision = row.revision;
    return {
      buildId,
      number: row.number,
      pipelineName: row.pipeline_name,
      projectName: row.project_name,
      yaml: row.yaml,
      status: row.status,
      facts,
      variables: { ...stored.variables, ...row.variables },
      secrets: { ...stored.secrets, ...runSecrets },
      volumeKey: `${row.project_name}-${row.pipeline_name}`,
      runtimeEnvironment: row.runtime_environment,
      tls: await this.#certificates.buildClientCertificate(buildId),
      registries: await this.#registries.forEngine(row.account_id),
      stepTypes: await this.#stepTypes.forEngine(row.account_id),
    };
  }

  async events(buildId: string, events: EngineEvent[]): Promise<void> {
    let finished = false;
    await this.#ctx.database.db.transaction().execute(async (trx) => {
      for (const event of events) finished = (await this.#apply(trx, buildId, event)) || finished;
      await this.#touch(trx, buildId);
    });
    if (finished) {
      const build = await this.#ctx.database.db
        .selectFrom('builds')
        .select('account_id')
        .where('id', '=', buildId)
        .executeTakeFirstOrThrow();
      await this.#scheduler.schedule(build.account_id);
    }
  }

  async #apply(trx: Executor, buildId: string, event: EngineEvent): Promise<boolean> {
    switch (event.type) {
      case 'build-started':
        await trx
          .updateTable('builds')
          .set({ status: 'running', timing: mergeTiming({ engineStartedAt: event.at }) })
          .where('id', '=', buildId)
          .where('status', 'in', ['elected', 'pending'])
          .execute();
        return false;
      case 'step-started':
        await startStep(trx, buildId, event);
        await trx
          .updateTable('builds')
          .set({ timing: keepFirstTiming({ firstStepStartedAt: event.at }) })
          .where('id', '=', buildId)
          .execute();
        return false;
      case 'approval-requested':
        await awaitApproval(trx, buildId, event);
        await trx
          .updateTable('builds')
          .set({ status: 'pending-approval', updated_at: new Date(this.#ctx.clock()) })
          .where('id', '=', buildId)
          .where('status', '=', 'running')
          .execute();
        return false;
      case 'step-finished':
        await finishStep(trx, buildId, event);
        // The engine decided an approval itself (its timeout): the build runs on.
        await resumeWhenAnswered(trx, buildId, new Date(this.#ctx.clock()));
        return false;
      case 'build-finished':
        await this.#builds.finish(trx, buildId, event.status, event.reason ?? null);
        return true;
    }
  }

  async heartbeat(buildId: string): Promise<void> {
    await this.#touch(this.#ctx.database.db, buildId);
  }

  async #touch(executor: Executor, buildId: string): Promise<void> {
    await executor
      .updateTable('builds')
      .set({ engine_heartbeat_at: new Date(this.#ctx.clock()) })
      .where('id', '=', buildId)
      .execute();
  }

  async control(buildId: string, after: number, waitMs: number, signal?: AbortSignal) {
    const deadline = this.#ctx.clock() + waitMs;
    for (;;) {
      const since = this.#ctx.signals.generation(CHANNELS.control, buildId);
      const rows = await this.#ctx.database.db
        .selectFrom('build_control')
        .selectAll()
        .where('build_id', '=', buildId)
        .where('seq', '>', after)
        .orderBy('seq')
        .execute();
      const left = deadline - this.#ctx.clock();
      if (rows.length > 0 || left <= 0 || signal?.aborted)
        return rows.map((r) => ({
          seq: r.seq,
          kind: r.kind,
          step: r.step,
          by: r.actor,
          at: isoTime(r.created_at) ?? '',
        }));
      await this.#ctx.signals.wait(CHANNELS.control, buildId, left, { signal, since });
    }
  }

  /** Fails builds whose engine stopped heartbeating; finishing queues their stop tasks. */
  async reapSilentEngines(): Promise<number> {
    const cutoff = new Date(this.#ctx.clock() - this.#ctx.config.engineSilentAfterMs);
    const silent = await this.#ctx.database.db
      .selectFrom('builds')
      .select(['id', 'account_id'])
      .where('status', 'in', ['running', 'pending-approval'])
      .where((eb) =>
        eb.or([eb('engine_heartbeat_at', '<', cutoff), eb('engine_heartbeat_at', 'is', null)]),
      )
      .execute();
    const silentMs = this.#ctx.config.engineSilentAfterMs;
    const seconds = silentMs >= 1000 ? `${Math.round(silentMs / 1000)}s` : `${silentMs}ms`;
    const reason = `The engine stopped sending heartbeats for ${seconds}`;
    for (const build of silent) {
      await this.#ctx.database.db
        .transaction()
        .execute((trx) => this.#builds.finish(trx, build.id, 'error', reason));
      await this.#scheduler.schedule(build.account_id);
    }
    return silent.length;
  }
}
