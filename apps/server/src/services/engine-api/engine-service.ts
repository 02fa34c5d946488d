/**
 * The engine's side of a build: what to run (pipeline, variables, decrypted secrets, the
 * registries, git integrations and clusters its pipeline names, not the account's others:
 * engine-grants.ts; the step types it may name), state changes of steps (upserted: see build-steps.ts),
 * approvals and the build, heartbeats, and the control channel (cancel, approve, deny).
 * Reports are stamped in server time for the workflow limits (`workflow-limits.ts`).
 * @module
 */
import { ConflictError, NotFoundError } from '@sluice/errors';
import type { Executor, JsonObject } from '@sluice/db';
import type {
  BuildCache,
  EngineBuild,
  EngineDefinitionAccepted,
  EngineEvent,
} from '@sluice/protocol';
import { logLimitMessage, RESERVED_ANNOTATION_PREFIX } from '@sluice/protocol';
import type { BuildService } from '../builds/build-service.js';
import type { CertificateService } from '../identity/certificate-service.js';
import { decryptBuildSecrets } from '../builds/build-service.js';
import type { ProjectService } from '../projects/project-service.js';
import type { ClusterService } from '../settings/cluster-service.js';
import type { GitIntegrationService } from '../settings/git-integration-service.js';
import type { RegistryService } from '../settings/registry-service.js';
import type { StepTypeService } from '../settings/step-type-service.js';
import type { BuildStore } from '../builds/build-store.js';
import { CHANNELS } from '../pg-notify.js';
import { awaitApproval, finishStep, startStep } from '../builds/build-steps.js';
import { isoTime } from '../server-context.js';
import { logTotals } from '../logs/log-pages.js';
import { buildForEngine, reportedEnd, specTemplateOf } from '../builds/build-rows.js';
import {
  clusterWanted,
  credentialWants,
  definitionReaderWants,
  gitIntegrationWanted,
  registryWanted,
} from './engine-grants.js';
import type { BuildScope, CredentialWants } from './engine-grants.js';
import type { ServerContext } from '../server-context.js';
import { isCommitSha } from '../statuses/commit-status-service.js';
import type { CommitStatusService } from '../statuses/commit-status-service.js';
import type { RuntimeService } from '../settings/runtime-service.js';
import { SERVER_DEFAULTS } from '@sluice/config/defaults';
import { quantityValue } from '@sluice/runtime-spec';

/**
 * Whether the commit a build reads its definition at is the commit it builds: it was given no
 * commit (a branch's head, or a restart of one), and its pipeline reads its own revision, not a
 * pinned one (which may even be another repository's).
 */
function readsBuildCommit(row: {
  revision: string | null;
  pipeline_spec_template: JsonObject | null;
}): boolean {
  return !isCommitSha(row.revision) && specTemplateOf(row.pipeline_spec_template)?.revision === '';
}

export interface EngineServiceDeps {
  projects: ProjectService;
  builds: BuildService;
  store: BuildStore;
  certificates: CertificateService;
  registries: RegistryService;
  gitIntegrations: GitIntegrationService;
  clusters: ClusterService;
  stepTypes: StepTypeService;
  statuses: CommitStatusService;
  runtimes: RuntimeService;
}

/** The annotation a build gets when its log reached its limit (the engine's `log-limited`). */
export const LOG_LIMIT_ANNOTATION = `${RESERVED_ANNOTATION_PREFIX}log-limit`;

export class EngineService {
  readonly #ctx: ServerContext;
  readonly #projects: ProjectService;
  readonly #builds: BuildService;
  readonly #store: BuildStore;
  readonly #certificates: CertificateService;
  readonly #registries: RegistryService;
  readonly #gitIntegrations: GitIntegrationService;
  readonly #clusters: ClusterService;
  readonly #stepTypes: StepTypeService;
  readonly #statuses: CommitStatusService;
  readonly #runtimes: RuntimeService;

  constructor(ctx: ServerContext, deps: EngineServiceDeps) {
    this.#ctx = ctx;
    this.#projects = deps.projects;
    this.#builds = deps.builds;
    this.#store = deps.store;
    this.#certificates = deps.certificates;
    this.#registries = deps.registries;
    this.#gitIntegrations = deps.gitIntegrations;
    this.#clusters = deps.clusters;
    this.#stepTypes = deps.stepTypes;
    this.#statuses = deps.statuses;
    this.#runtimes = deps.runtimes;
  }

  async build(buildId: string): Promise<EngineBuild> {
    const db = this.#ctx.database.db;
    const row = await buildForEngine(db, buildId);
    if (row === undefined)
      throw new NotFoundError('SLUICE_BUILD_NOT_FOUND', `Build ${buildId} does not exist`);
    const { facts, variables, secrets } = await this.#scopeOf(row);
    // A build made before builds kept their definition (011) runs its pipeline's.
    const source = specTemplateOf(row.spec_template);
    const yaml = row.yaml ?? (source === null ? row.pipeline_yaml : '');
    const readsDefinition = row.yaml === null && source !== null;
    const stepTypes = await this.#stepTypes.forBuild(row.account_id, yaml);
    const scope = { buildId, pipelineName: row.pipeline_name, variables, facts };
    const wants = readsDefinition
      ? definitionReaderWants(source.context)
      : await this.#wantsOf(row.account_id, yaml, scope);
    return {
      buildId,
      number: row.number,
      pipelineName: row.pipeline_name,
      projectName: row.project_name,
      yaml,
      specTemplate: readsDefinition ? { ...source, readsBuildCommit: readsBuildCommit(row) } : null,
      status: row.status,
      facts,
      variables,
      secrets: { ...secrets },
      volumeKey: `${row.project_name}-${row.pipeline_name}`,
      runtimeEnvironment: row.runtime_environment,
      tls: await this.#certificates.buildClientCertificate(buildId),
      ...(await this.#grants(row, facts, wants)),
      stepTypes,
      ...(await this.#log(row.account_id, buildId, row.runtime_environment)),
    };
  }

  /** Where the stored log ends, and its limit: the runtime's, else the server's. */
  async #log(accountId: string, buildId: string, runtime: string | null) {
    const { nextSeq, bytes } = await logTotals(this.#ctx.database.db, buildId);
    let limit = this.#ctx.config.buildLogLimitBytes ?? SERVER_DEFAULTS.buildLogLimitBytes;
    if (runtime !== null) {
      // A runtime removed since the build was made: the server's limit.
      const spec = await this.#runtimes.resolve(accountId, runtime).catch(() => undefined);
      const own = spec?.runtimeScheduler?.buildLogLimit;
      if (own !== undefined) limit = Math.floor(quantityValue(own) ?? limit);
    }
    return { logNextSeq: nextSeq, logLimitBytes: limit, logBytesStored: bytes };
  }

  /** The build's facts, variables and secrets, as its engine gets them. */
  async #scopeOf(row: NonNullable<Awaited<ReturnType<typeof buildForEngine>>>) {
    const stored = await this.#projects.variablesForBuild(row.pipeline_id);
    const runSecrets =
      row.secret_variables_encrypted === null
        ? {}
        : decryptBuildSecrets(this.#ctx, row.id, row.secret_variables_encrypted);
    const facts: Record<string, string> = { ...(row.facts as Record<string, string>) };
    if (row.branch !== null) facts.branch = row.branch;
    if (row.revision !== null) facts.revision = row.revision;
    return {
      facts,
      variables: { ...stored.variables, ...row.variables },
      secrets: { ...stored.secrets, ...runSecrets },
    };
  }

  /** What `yaml` names of the account's credentials; nothing when it does not parse. */
  async #wantsOf(accountId: string, yaml: string, scope: BuildScope) {
    const parsed = await this.#projects.parsePipeline({
      yaml,
      file: `${scope.pipelineName}.yml`,
      stepTypes: await this.#stepTypes.documents(accountId),
    });
    return credentialWants(parsed.uses, scope);
  }

  /** The registries, git integrations and clusters `wants` names, decrypted for the engine. */
  async #grants(
    row: { account_id: string; project_name: string; runtime_environment: string | null },
    facts: Record<string, string>,
    wants: CredentialWants,
  ) {
    const accountId = row.account_id;
    const build = { project: row.project_name, runtime: row.runtime_environment };
    const { clusters, denied } = await this.#clusters.forEngine(accountId, build, {
      pick: (name) => clusterWanted(wants.clusters, name),
    });
    return {
      registries: await this.#registries.forEngine(accountId, {
        pick: (registry) => registryWanted(wants.registries, registry),
      }),
      gitIntegrations: await this.#gitIntegrations.forEngine(accountId, {
        pick: (integration) =>
          gitIntegrationWanted(wants.gitIntegrations, integration, facts.gitIntegration),
      }),
      clusters,
      deniedClusters: denied,
    };
  }

  /**
   * The definition the engine read from the repository at `sha`: checked as `sluice validate`
   * checks it (413 over the size limit, 422 with every problem at `path:line:column`), then
   * recorded on the build with its stages and steps. A report the build already has (the
   * engine's retry after a lost answer) is answered the same; a build whose definition is
   * stored, or was read at another commit, refuses it.
   */
  async definition(
    buildId: string,
    body: { yaml: string; sha: string },
  ): Promise<EngineDefinitionAccepted> {
    const db = this.#ctx.database.db;
    const row = await buildForEngine(db, buildId);
    if (row === undefined)
      throw new NotFoundError('SLUICE_BUILD_NOT_FOUND', `Build ${buildId} does not exist`);
    const source = specTemplateOf(row.spec_template);
    if (source === null)
      throw new ConflictError(
        'SLUICE_BUILD_DEFINITION_STORED',
        `Build ${buildId} runs its pipeline's stored definition; it reads none from the repository`,
      );
    // What the definition names of the account's credentials comes with the answer: the engine
    // had only the integration that read it.
    const answer = async () => {
      const stepTypes = await this.#stepTypes.forBuild(row.account_id, body.yaml);
      const { facts, variables } = await this.#scopeOf(row);
      const scope = { buildId, pipelineName: row.pipeline_name, variables, facts };
      const wants = await this.#wantsOf(row.account_id, body.yaml, scope);
      return { stepTypes, ...(await this.#grants(row, facts, wants)) };
    };
    if (row.yaml !== null) {
      if (row.yaml === body.yaml && row.yaml_revision === body.sha) return answer();
      throw new ConflictError(
        'SLUICE_BUILD_DEFINITION_RECORDED',
        `Build ${buildId} already has its definition, read at ${row.yaml_revision ?? '?'}`,
      );
    }
    const parsed = await this.#projects.checkDefinition(row.account_id, body.yaml, source.path);
    if (!(await this.#store.recordDefinition(buildId, { ...body, ...parsed })))
      throw new ConflictError(
        'SLUICE_BUILD_DEFINITION_RECORDED',
        `Build ${buildId} already has its definition`,
      );
    // A build of a branch learns its commit here: the one its definition was read at.
    if (readsBuildCommit(row))
      await this.#statuses
        .track(db, {
          buildId,
          accountId: row.account_id,
          pipelineId: row.pipeline_id,
          facts: row.facts as Record<string, string>,
          revision: body.sha,
          project: row.project_name,
          pipeline: row.pipeline_name,
          specTemplate: row.pipeline_spec_template,
        })
        .catch((err: unknown) =>
          this.#ctx.log.warn('the build will report no commit status', {
            buildId,
            error: String(err),
          }),
        );
    return answer();
  }

  async events(buildId: string, events: EngineEvent[]): Promise<void> {
    await this.#builds.transaction(async (trx) => {
      for (const event of events) await this.#apply(trx, buildId, event);
      await this.#store.touch(trx, buildId, { event: true });
    });
  }

  async #apply(trx: Executor, buildId: string, event: EngineEvent): Promise<void> {
    switch (event.type) {
      case 'build-started':
        await this.#store.start(trx, buildId, event.at);
        return;
      case 'step-started':
        await startStep(trx, buildId, event);
        await this.#store.stampFirstStep(trx, buildId, event.at);
        if (isPostStep(event)) await this.#store.stampPostSteps(trx, buildId);
        return;
      case 'approval-requested':
        await awaitApproval(trx, buildId, event);
        await this.#store.awaitApproval(trx, buildId);
        return;
      case 'step-finished':
        await finishStep(trx, buildId, event);
        // The engine decided an approval itself (its timeout): the build runs on.
        await this.#store.resumeWhenAnswered(trx, buildId, new Date(this.#ctx.clock()));
        return;
      case 'annotations':
        await this.#store.annotate(trx, buildId, event.changes);
        return;
      case 'volume-ready':
        // An agent's record (read off a Kubernetes build's claim) says more: it is kept.
        await this.#store.recordEngineCache(trx, buildId, engineCache(event));
        return;
      case 'log-limited':
        await this.#store.note(
          trx,
          buildId,
          LOG_LIMIT_ANNOTATION,
          logLimitMessage(event.limitBytes, event.step),
        );
        return;
      case 'build-finished': {
        const reported = { status: event.status, reason: event.reason ?? null };
        const { status, reason } = await reportedEnd(trx, buildId, reported);
        await this.#builds.finish(trx, buildId, status, reason);
        return;
      }
    }
  }

  async heartbeat(buildId: string): Promise<void> {
    await this.#store.touch(this.#ctx.database.db, buildId);
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
}

/** The pipeline's own on_success/on_fail/on_finish hooks (`hooks.<name>` and their steps). */
const POST_HOOK = /^hooks\.on_(success|fail|finish)(\.|$)/;

function isPostStep(event: { step: string; parent?: string }): boolean {
  return POST_HOOK.test(event.step) || (event.parent !== undefined && POST_HOOK.test(event.parent));
}

/**
 * The cache record of a build whose engine found, or made, its Docker volume (the local
 * runtime's workspace cache; a Kubernetes build's agent records its claim's volume instead).
 */
function engineCache(event: Extract<EngineEvent, { type: 'volume-ready' }>): BuildCache {
  return {
    outcome: event.reused ? 'hit' : 'miss',
    reason: event.reused
      ? `Docker volume ${event.volume} was left by an earlier build of the same volume key`
      : `a new Docker volume ${event.volume}: no earlier build of its volume key left one`,
    volume: event.volume,
    claim: '',
    volumeCreatedAt: event.createdAt,
    previousUseAt: null,
    mountCount: null,
    usedBytes: null,
    capacity: null,
    storageClass: null,
  };
}
