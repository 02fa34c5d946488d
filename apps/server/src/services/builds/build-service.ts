/**
 * Builds: created `pending` (manual, webhook, cron or restart), then queued under the
 * concurrency limits by the scheduler; listed with filters and pages; cancelled (at once until
 * its engine starts, through the engine's control channel once it has) and restarted.
 * @module
 */
import { decryptSecret, encryptSecret } from '@sluice/pki';
import type { Executor, JsonObject, Schema, Transaction } from '@sluice/db';
import { FINISHED_STATUSES } from '@sluice/protocol';
import type { Build, BuildCache, BuildStatus } from '@sluice/protocol';
import { ConflictError, NotFoundError } from '@sluice/errors';
import {
  buildDefinition,
  definitionRow,
  loadBuild,
  lockBuildStatus,
  restartInputs,
  selectBuilds,
  specTemplateOf,
  toBuilds,
} from './build-rows.js';
import { insertPlannedSteps } from './build-steps.js';
import { wasHandedOut } from './task-rows.js';
import type { PlannedStep } from '../parsing/planned-steps.js';
import type { ProjectService } from '../projects/project-service.js';
import type { BuildStore, NewBuild } from './build-store.js';
import type { ServerContext } from '../server-context.js';
import { ACCOUNT_STEP_TYPES } from '../settings/step-type-service.js';
import type { StepTypeService } from '../settings/step-type-service.js';

/** What a new build's commit status needs, from the build and its pipeline. */
export interface TrackedBuild {
  buildId: string;
  accountId: string;
  pipelineId: string;
  facts: Record<string, string>;
  /** The commit built: a webhook's, `run-pipeline --sha`, or the one a definition was read at. */
  revision: string | null;
  project: string;
  pipeline: string;
  /** The pipeline's repository source (`pipelines.spec_template`), null when inline. */
  specTemplate: JsonObject | null;
}

/**
 * What follows each new build's commit (the commit status service, which reads builds and so
 * sits above them): told of the build in the transaction that creates it.
 */
export interface BuildTracker {
  track(executor: Executor, build: TrackedBuild): Promise<void>;
}

export interface CreateBuildInput {
  accountId: string;
  pipelineId: string;
  trigger: Build['trigger'];
  initiator?: string;
  branch?: string;
  revision?: string;
  facts?: Record<string, string>;
  variables?: Record<string, string>;
  secrets?: Record<string, string>;
  retryOf?: string;
  /** Overrides the pipeline's runtime environment and the account default (already checked to exist). */
  runtimeEnvironment?: string;
  /** The commit to read a repository's definition at (a restart: the original build's). */
  definitionRevision?: string;
  /** A definition to run once instead of the pipeline's (`run-pipeline --local-file`). */
  yaml?: string;
}

/** A definition given with the build, checked, with the steps it plans. */
interface GivenDefinition {
  yaml: string;
  steps: PlannedStep[];
  stages: string[];
}

export interface ListBuildsInput {
  accountId: string;
  pipelineId?: string;
  status?: BuildStatus;
  branch?: string;
  /** Only builds of these projects (a user limited to them); null or absent: every project. */
  projects?: readonly string[] | null;
  limit: number;
  cursor?: string;
}

export class BuildService {
  readonly #ctx: ServerContext;
  readonly #projects: ProjectService;
  readonly #store: BuildStore;
  readonly #stepTypes: StepTypeService;
  readonly #statuses: BuildTracker;

  constructor(
    ctx: ServerContext,
    projects: ProjectService,
    store: BuildStore,
    stepTypes: StepTypeService,
    statuses: BuildTracker,
  ) {
    this.#ctx = ctx;
    this.#projects = projects;
    this.#store = store;
    this.#stepTypes = stepTypes;
    this.#statuses = statuses;
  }

  async create(input: CreateBuildInput): Promise<Build> {
    // The number is taken first, in a statement of its own that also reads the pipeline, so the
    // pipeline's row is locked only for that statement and builds of one pipeline created at
    // once do not wait for each other's whole insert. A creation that fails after this leaves a
    // gap in the numbers, as a sequence. The build and its steps are then one statement.
    const db = this.#ctx.database.db;
    // Checked before a number is taken: a refused file leaves no gap.
    const given =
      input.yaml === undefined
        ? undefined
        : {
            yaml: input.yaml,
            ...(await this.#projects.checkDefinition(input.accountId, input.yaml, 'the file')),
          };
    const build = await this.#newBuild(db, input, given);
    await this.#store.create(build.row, build.steps);
    await this.#statuses.track(db, build.tracked).catch((err: unknown) =>
      this.#ctx.log.warn('the build will report no commit status', {
        buildId: build.row.id,
        error: String(err),
      }),
    );
    return loadBuild(db, input.accountId, build.row.id);
  }

  /**
   * Inserts a pending build in the caller's transaction and returns its id; its commit wakes the
   * scheduler (run it in `transaction` to wait for that pass). The cron loop and webhooks use it
   * to create a build with what else they write, atomically; the pipeline's row stays locked to
   * the end of `trx`.
   */
  async insert(trx: Executor, input: CreateBuildInput): Promise<string> {
    const build = await this.#newBuild(trx, input);
    await this.#store.insert(trx, build.row);
    await insertPlannedSteps(trx, build.row.id, build.steps);
    await this.#statuses.track(trx, build.tracked);
    return build.row.id;
  }

  /** The new build's row and planned steps, its number taken (`takeBuildNumber`). */
  async #newBuild(
    executor: Executor,
    input: CreateBuildInput,
    given?: GivenDefinition,
  ): Promise<{ row: NewBuild; steps: PlannedStep[]; tracked: TrackedBuild }> {
    const pipeline = await takeBuildNumber(executor, input);
    if (pipeline === undefined)
      throw new NotFoundError(
        'SLUICE_PIPELINE_NOT_FOUND',
        `Pipeline ${input.pipelineId} does not exist`,
      );
    // A pipeline that no longer parses (a step type deleted since) still gets its build, which
    // its engine fails with the reason; it just has no step rows to show beforehand. A large one
    // is parsed in a worker, so creating its build holds up no other request. A definition in
    // the repository is planned once the build's engine has read it.
    const source = given === undefined ? pipeline.spec_template : null;
    const yaml = given?.yaml ?? pipeline.yaml;
    const { steps, stages } =
      given ??
      (source === null
        ? await this.#projects.parsePipeline({
            yaml: pipeline.yaml,
            file: pipeline.name,
            stepTypes: await this.#stepTypes.documentsOf(
              input.accountId,
              pipeline.step_types,
              executor,
            ),
          })
        : { steps: [], stages: [] });
    const id = this.#ctx.ids.next('bld');
    const secrets = input.secrets ?? {};
    const row: NewBuild = {
      id,
      accountId: input.accountId,
      pipelineId: pipeline.id,
      number: pipeline.last_build_number,
      trigger: input.trigger,
      initiator: input.initiator ?? null,
      branch: input.branch ?? null,
      revision: input.revision ?? null,
      facts: input.facts ?? {},
      variables: input.variables ?? {},
      secretsEncrypted: Object.keys(secrets).length
        ? encryptSecret(JSON.stringify(secrets), this.#ctx.secretKey, { associatedData: id })
        : null,
      secretNames: Object.keys(secrets).sort(),
      retryOf: input.retryOf ?? null,
      runtime: input.runtimeEnvironment ?? null,
      stages,
      yaml: source === null ? yaml : null,
      specTemplate: source === null ? null : buildSpecTemplate(source, input),
      createdAt: new Date(this.#ctx.clock()),
    };
    const tracked: TrackedBuild = {
      buildId: id,
      accountId: input.accountId,
      pipelineId: pipeline.id,
      facts: input.facts ?? {},
      revision: row.revision,
      project: pipeline.project_name ?? '',
      pipeline: pipeline.name,
      specTemplate: pipeline.spec_template,
    };
    return { row, steps, tracked };
  }

  /**
   * Runs `fn` in a transaction and, after its commit, waits for the scheduling passes its
   * writes started (see BuildStore), so the caller answers with the builds elected.
   */
  transaction<T>(
    fn: (trx: Transaction<Schema>) => Promise<T>,
    options: { translateErrors?: boolean } = {},
  ): Promise<T> {
    return this.#store.transaction(fn, options);
  }

  get(accountId: string, buildId: string): Promise<Build> {
    return loadBuild(this.#ctx.database.db, accountId, buildId);
  }

  /**
   * The definition the build ran and where it came from; its YAML is null until it was read.
   * `integration` is the git integration that reads it (null: the account's default).
   */
  async definition(
    accountId: string,
    buildId: string,
  ): Promise<Build['definition'] & { yaml: string | null; integration: string | null }> {
    const row = await definitionRow(this.#ctx.database.db, accountId, buildId);
    if (row === undefined)
      throw new NotFoundError('SLUICE_BUILD_NOT_FOUND', `Build ${buildId} does not exist`);
    const integration = specTemplateOf(row.spec_template)?.context ?? null;
    return { ...buildDefinition(row), yaml: row.yaml, integration };
  }

  /**
   * A page in one query: the builds with their names and steps. `db` is the executor: the
   * passes' connections for a read many callers share (`Database.passes`).
   */
  async list(
    input: ListBuildsInput,
    db: Executor = this.#ctx.database.db,
  ): Promise<{ items: Build[]; nextCursor: string | null }> {
    if (input.projects?.length === 0) return { items: [], nextCursor: null };
    let query = selectBuilds(db, input.accountId);
    if (input.projects) query = query.where('projects.name', 'in', input.projects);
    if (input.pipelineId) query = query.where('builds.pipeline_id', '=', input.pipelineId);
    if (input.status) query = query.where('builds.status', '=', input.status);
    if (input.branch) query = query.where('builds.branch', '=', input.branch);
    if (input.cursor) query = query.where('builds.id', '<', input.cursor);
    const rows = await query
      .orderBy('builds.id', 'desc')
      .limit(input.limit + 1)
      .execute();
    const page = rows.slice(0, input.limit);
    const items = toBuilds(page);
    return { items, nextCursor: rows.length > input.limit ? (page.at(-1)?.id ?? null) : null };
  }

  /**
   * Pending, or elected with no task handed out: terminated at once. Elected and handed out but
   * its engine not started (pods may still be Pending): terminated, and its objects removed.
   * Running: its engine is told to stop through the control channel.
   */
  async cancel(accountId: string, buildId: string): Promise<Build> {
    const build = await loadBuild(this.#ctx.database.db, accountId, buildId);
    if (FINISHED_STATUSES.includes(build.status))
      throw new ConflictError(
        'SLUICE_BUILD_FINISHED',
        `Build ${buildId} already finished (${build.status})`,
      );
    await this.#store.transaction(async (trx) => {
      const status = await lockBuildStatus(trx, buildId);
      if (status === 'pending' || status === 'elected') {
        const reason = (await wasHandedOut(trx, buildId))
          ? 'Cancelled before the engine started'
          : 'Cancelled before it started';
        await this.finish(trx, buildId, 'terminated', reason);
      } else if (!FINISHED_STATUSES.includes(status)) {
        // Recorded, so a build whose engine never stops is ended by the terminating limits.
        await this.#store.requestStop(trx, buildId, null);
      }
    });
    return loadBuild(this.#ctx.database.db, accountId, buildId);
  }

  async restart(accountId: string, buildId: string, initiator: string | undefined): Promise<Build> {
    const build = await loadBuild(this.#ctx.database.db, accountId, buildId);
    const row = await restartInputs(this.#ctx.database.db, buildId);
    return this.create({
      accountId,
      pipelineId: build.pipelineId,
      trigger: 'restart',
      initiator,
      branch: build.branch ?? undefined,
      revision: build.revision ?? undefined,
      facts: row.facts as Record<string, string>,
      variables: build.variables,
      secrets:
        row.secret_variables_encrypted === null
          ? undefined
          : decryptBuildSecrets(this.#ctx, buildId, row.secret_variables_encrypted),
      retryOf: buildId,
      ...(build.definition.sha === null ? {} : { definitionRevision: build.definition.sha }),
    });
  }

  /**
   * Keeps the cache record an agent reported for a build of its runtimes, or one dispatched to it.
   * @throws NotFoundError `SLUICE_BUILD_NOT_FOUND` when the build is neither.
   */
  async recordCache(
    agent: { accountId: string; agentId: string; runtimes: readonly string[] },
    buildId: string,
    cache: BuildCache,
  ): Promise<void> {
    const where = { ...agent, buildId };
    if (!(await this.#store.recordCache(this.#ctx.database.db, where, cache)))
      throw new NotFoundError(
        'SLUICE_BUILD_NOT_FOUND',
        `Build ${buildId} is not a build of this agent's runtimes`,
      );
  }

  /** Ends the build and queues the removal of its objects (`BuildStore.finish`); false if it had already ended. */
  finish(
    trx: Executor,
    buildId: string,
    status: BuildStatus,
    reason: string | null,
  ): Promise<boolean> {
    return this.#store.finish(trx, buildId, status, reason);
  }
}

/**
 * The pipeline's next build number (`pipelines.last_build_number`, migration
 * 005_build_throughput); undefined when the account has no such pipeline.
 */
/**
 * Takes the pipeline's next build number and reads the pipeline (with its project's name and
 * its account's step types) in the same statement; undefined when the account has no such
 * pipeline.
 */
async function takeBuildNumber(
  executor: Executor,
  input: { accountId: string; pipelineId: string },
) {
  return executor
    .updateTable('pipelines')
    .set((eb) => ({ last_build_number: eb('last_build_number', '+', 1) }))
    .where('id', '=', input.pipelineId)
    .where('account_id', '=', input.accountId)
    .returningAll()
    .returning((eb) =>
      eb
        .selectFrom('projects')
        .select('projects.name')
        .whereRef('projects.id', '=', 'pipelines.project_id')
        .as('project_name'),
    )
    .returning(ACCOUNT_STEP_TYPES.as('step_types'))
    .executeTakeFirst();
}

/**
 * Where a build of a pipeline whose definition is in its repository reads it: the commit a
 * restart repeats, else the pipeline's pinned revision, else the build's own commit or branch
 * (empty: the repository's default branch).
 */
function buildSpecTemplate(source: JsonObject, input: CreateBuildInput): JsonObject {
  const pinned = typeof source['revision'] === 'string' ? source['revision'] : undefined;
  const revision = input.definitionRevision ?? pinned ?? input.revision ?? input.branch ?? '';
  return { ...source, revision };
}

/** A build's secrets, encrypted with the build id as associated data. */
export function decryptBuildSecrets(
  ctx: ServerContext,
  buildId: string,
  encrypted: string,
): Record<string, string> {
  return JSON.parse(decryptSecret(encrypted, ctx.secretKey, { associatedData: buildId })) as Record<
    string,
    string
  >;
}
