/**
 * Reading builds: every query of the `builds` table (the build store's read half; its writes are
 * `build-store.ts`), and the row-to-API mapping shared by every service that returns a build.
 * @module
 */
import { NotFoundError } from '@sluice/errors';
import { sql } from '@sluice/db';
import type { BuildRow, CommitStatusRow, Executor, JsonObject } from '@sluice/db';
import { FINISHED_STATUSES } from '@sluice/protocol';
import type { Build, BuildStatus } from '@sluice/protocol';
import type { RuntimeSpec } from '@sluice/runtime-spec';
import { isoTime } from '../server-context.js';
import type { StoredRuntimeSpecs } from '../settings/runtime-service.js';

export async function loadBuild(
  executor: Executor,
  accountId: string,
  buildId: string,
): Promise<Build> {
  const [build] = await loadBuilds(executor, accountId, [buildId]);
  if (build === undefined)
    throw new NotFoundError('SLUICE_BUILD_NOT_FOUND', `Build ${buildId} does not exist`);
  return build;
}

/** The builds of `buildIds` in the account, in that order, in one query however many. */
export async function loadBuilds(
  executor: Executor,
  accountId: string,
  buildIds: readonly string[],
): Promise<Build[]> {
  if (buildIds.length === 0) return [];
  const rows = await selectBuilds(executor, accountId).where('builds.id', 'in', buildIds).execute();
  const byId = new Map(rows.map((row) => [row.id, row]));
  return toBuilds(buildIds.flatMap((id) => byId.get(id) ?? []));
}

/** Builds of the account with their pipeline's and project's names, for `toBuild`. */
export function selectBuilds(executor: Executor, accountId: string) {
  return executor
    .selectFrom('builds')
    .innerJoin('pipelines', 'pipelines.id', 'builds.pipeline_id')
    .innerJoin('projects', 'projects.id', 'pipelines.project_id')
    .select(BUILD_COLUMNS)
    .select(['pipelines.name as pipeline_name', 'projects.name as project_name'])
    .select(INITIATOR_NAME.as('initiator_user_name'))
    .select(COMMIT.as('commit_facts'))
    .select(STEPS.as('steps'))
    .where('builds.account_id', '=', accountId);
}

/** What `toBuild` shows: not the facts, the sealed secrets or the engine's bookkeeping. */
const BUILD_COLUMNS = [
  'builds.id',
  'builds.number',
  'builds.pipeline_id',
  'builds.status',
  'builds.trigger',
  'builds.initiator',
  'builds.branch',
  'builds.revision',
  'builds.variables',
  'builds.secret_names',
  'builds.runtime_environment',
  'builds.agent_id',
  'builds.reason',
  'builds.retry_of',
  'builds.timing',
  'builds.cache',
  'builds.annotations',
  'builds.image_annotations',
  'builds.stages',
  'builds.spec_template',
  'builds.yaml_revision',
  'builds.created_at',
  'builds.finished_at',
] as const;

/** The rows as API builds, in their order. */
export function toBuilds(rows: readonly BuildJoinRow[]): Build[] {
  return rows.map(toBuild);
}

/**
 * A build's steps as one JSON array, in the row (an index lookup per build): a page of builds
 * is one query. Timestamps come as text and are read as the driver reads timestamptz.
 */
const STEPS = sql<StepJson[]>`(
  select coalesce(json_agg(json_build_object(
    'name', s.name, 'position', s.position, 'parent', s.parent, 'stage', s.stage,
    'attempt', s.attempt,
    'status', s.status, 'exit_code', s.exit_code, 'reason', s.reason,
    'started_at', s.started_at, 'finished_at', s.finished_at, 'answered_by', s.answered_by,
    'title', s.title, 'needs', s.needs, 'block', s.block,
    'answered_at', (select max(c.created_at) from build_control c
      where c.build_id = s.build_id and c.step = s.name and c.kind in ('approve', 'deny'))
  ) order by s.position), '[]'::json)
  from build_steps s where s.build_id = builds.id)`;

/** The name of the user who started it (null for a webhook's sender, who is no user). */
const INITIATOR_NAME = sql<
  string | null
>`(select u.name from users u where u.id = builds.initiator)`;

/** What a webhook said of the commit: its facts' message, author and link (the rest stays in). */
const COMMIT = sql<CommitFacts>`json_build_object(
  'message', builds.facts->>'commitMessage', 'author', builds.facts->>'commitAuthor',
  'url', builds.facts->>'commitUrl')`;

interface CommitFacts {
  message: string | null;
  author: string | null;
  url: string | null;
}

interface StepJson {
  name: string;
  position: number;
  parent: string | null;
  stage: string | null;
  attempt: number;
  status: string;
  exit_code: number | null;
  reason: string | null;
  started_at: string | null;
  finished_at: string | null;
  answered_by: string | null;
  answered_at: string | null;
  title: string | null;
  needs: { step: string; on: string[] }[];
  block: 'parallel' | 'sequential' | null;
}

function jsonTime(value: string | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}

function toBuild(row: BuildJoinRow): Build {
  return {
    id: row.id,
    number: row.number,
    pipelineId: row.pipeline_id,
    project: row.project_name,
    pipeline: row.pipeline_name,
    status: row.status,
    trigger: row.trigger as Build['trigger'],
    initiator: row.initiator,
    initiatorName: row.initiator_user_name ?? (row.trigger === 'webhook' ? row.initiator : null),
    commit: commitOf(row),
    branch: row.branch,
    revision: row.revision,
    variables: row.variables,
    secretNames: row.secret_names,
    runtimeEnvironment: row.runtime_environment,
    agentId: row.agent_id,
    reason: row.reason,
    retryOf: row.retry_of,
    stages: row.stages,
    steps: row.steps.map((s) => ({
      name: s.name,
      position: s.position,
      parent: s.parent,
      stage: s.stage,
      attempt: s.attempt,
      status: s.status as Build['steps'][number]['status'],
      exitCode: s.exit_code,
      reason: s.reason,
      startedAt: jsonTime(s.started_at),
      finishedAt: jsonTime(s.finished_at),
      answeredBy: s.answered_by,
      answeredAt: jsonTime(s.answered_at),
      title: s.title,
      needs: s.needs,
      block: s.block,
    })),
    definition: buildDefinition(row),
    timing: row.timing,
    cache: row.cache as Build['cache'],
    annotations: row.annotations as Build['annotations'],
    imageAnnotations: row.image_annotations as Build['imageAnnotations'],
    createdAt: isoTime(row.created_at) ?? '',
    finishedAt: isoTime(row.finished_at),
  };
}

/** The commit built: its sha (the revision, else the definition's) with what the webhook said. */
function commitOf(row: BuildJoinRow): Build['commit'] {
  const sha = row.revision ?? row.yaml_revision;
  if (sha === null || !/^[0-9a-f]{7,64}$/i.test(sha)) return null;
  const { message, author, url } = row.commit_facts;
  return { sha, message, author, url };
}

/** `builds.id` → `id`. */
type BuildColumn<T> = T extends `builds.${infer C extends keyof BuildRow}` ? C : never;

type BuildJoinRow = Pick<BuildRow, BuildColumn<(typeof BUILD_COLUMNS)[number]>> & {
  pipeline_name: string;
  project_name: string;
  initiator_user_name: string | null;
  commit_facts: CommitFacts;
  steps: StepJson[];
};

/** The build's status, its row locked to the end of `trx`: a cancel and an answer take turns. */
export async function lockBuildStatus(trx: Executor, buildId: string): Promise<BuildStatus> {
  const { status } = await trx
    .selectFrom('builds')
    .select('status')
    .where('id', '=', buildId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return status;
}

export const ACTIVE_STATUSES: readonly BuildStatus[] = ['elected', 'running', 'pending-approval'];

/** The build's status, or undefined when there is no such build. */
export async function buildStatus(
  executor: Executor,
  buildId: string,
): Promise<{ status: BuildStatus; reason: string | null } | undefined> {
  return executor
    .selectFrom('builds')
    .select(['status', 'reason'])
    .where('id', '=', buildId)
    .executeTakeFirst();
}

/** The status and reason a stop asked for a limit ends the build with (null: none asked). */
export async function stopIntent(executor: Executor, buildId: string) {
  return executor
    .selectFrom('builds')
    .select(['stop_status', 'stop_reason'])
    .where('id', '=', buildId)
    .executeTakeFirst();
}

/**
 * How a build the engine reports finished ends: as reported, except that an engine which ends
 * `terminated` after the control plane asked it to stop for a workflow limit ends the build
 * with that limit's status and reason instead of its own "cancelled".
 */
export async function reportedEnd(
  executor: Executor,
  buildId: string,
  reported: { status: BuildStatus; reason: string | null },
): Promise<{ status: BuildStatus; reason: string | null }> {
  if (reported.status !== 'terminated') return reported;
  const row = await stopIntent(executor, buildId);
  if (row?.stop_status == null) return reported;
  return { status: row.stop_status, reason: row.stop_reason };
}

/** A build of the account, its row locked to the end of `trx`, for a report about its pods. */
export async function lockReportedBuild(trx: Executor, accountId: string, buildId: string) {
  return trx
    .selectFrom('builds')
    .select(['id', 'account_id', 'status', 'runtime_environment', 'agent_id'])
    .where('id', '=', buildId)
    .where('account_id', '=', accountId)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * The statuses of those of `buildIds` of the account that run on one of `runtimes`, or that were
 * dispatched to `agentId` (whose runtime it may no longer serve), with their runtimes.
 */
export async function statusesOnRuntimes(
  executor: Executor,
  accountId: string,
  options: { runtimes: readonly string[]; agentId: string; buildIds: readonly string[] },
): Promise<{ id: string; status: BuildStatus; runtime: string | null }[]> {
  if (options.buildIds.length === 0) return [];
  return executor
    .selectFrom('builds')
    .select(['id', 'status', 'runtime_environment as runtime'])
    .where('account_id', '=', accountId)
    .where('id', 'in', [...new Set(options.buildIds)])
    .where(agentsBuild(options))
    .execute();
}

/**
 * The condition that a row of `builds` is a build an agent may ask and report about: one of its
 * runtimes, or one dispatched to it (whose runtime may have been taken from it since).
 */
export function agentsBuild(agent: { runtimes: readonly string[]; agentId: string }) {
  const runtimes =
    agent.runtimes.length === 0
      ? sql``
      : sql` or runtime_environment in (${sql.join([...agent.runtimes])})`;
  return sql<boolean>`(agent_id = ${agent.agentId}${runtimes})`;
}

/** The name of a build's project in the account (who may use it: docs/access.md), or undefined. */
export async function buildProjectName(
  executor: Executor,
  accountId: string,
  buildId: string,
): Promise<string | undefined> {
  const row = await executor
    .selectFrom('builds')
    .innerJoin('pipelines', 'pipelines.id', 'builds.pipeline_id')
    .innerJoin('projects', 'projects.id', 'pipelines.project_id')
    .select('projects.name')
    .where('builds.id', '=', buildId)
    .where('builds.account_id', '=', accountId)
    .executeTakeFirst();
  return row?.name;
}

/** What a build's Kubernetes objects are labelled with, besides the account. */
export async function buildLabelFacts(executor: Executor, buildId: string) {
  return executor
    .selectFrom('builds')
    .innerJoin('pipelines', 'pipelines.id', 'builds.pipeline_id')
    .select(['builds.pipeline_id', 'pipelines.project_id', 'builds.branch', 'builds.trigger'])
    .where('builds.id', '=', buildId)
    .executeTakeFirstOrThrow();
}

/** The build's whole row with its pipeline's YAML and names: what its engine is given. */
export async function buildForEngine(executor: Executor, buildId: string) {
  return executor
    .selectFrom('builds')
    .innerJoin('pipelines', 'pipelines.id', 'builds.pipeline_id')
    .innerJoin('projects', 'projects.id', 'pipelines.project_id')
    .selectAll('builds')
    .select([
      'pipelines.yaml as pipeline_yaml',
      'pipelines.spec_template as pipeline_spec_template',
      'pipelines.name as pipeline_name',
      'projects.name as project_name',
    ])
    .where('builds.id', '=', buildId)
    .executeTakeFirst();
}

/** The definition a build of the account ran and where it came from; undefined: no such build. */
export function definitionRow(executor: Executor, accountId: string, buildId: string) {
  return executor
    .selectFrom('builds')
    .select(['yaml', 'spec_template', 'yaml_revision'])
    .where('account_id', '=', accountId)
    .where('id', '=', buildId)
    .executeTakeFirst();
}

/** Where a build's engine reads its definition, as stored on the build (011); null: inline. */
export interface BuildSpecTemplate {
  repo: string;
  path: string;
  /** Empty: the repository's default branch. */
  revision: string;
  context: string | null;
}

export function specTemplateOf(value: JsonObject | null): BuildSpecTemplate | null {
  if (value === null) return null;
  const text = (key: string) => (typeof value[key] === 'string' ? value[key] : '');
  return {
    repo: text('repo'),
    path: text('path') || 'codefresh.yml',
    revision: text('revision'),
    context: text('context') || null,
  };
}

/** The API's view of where a build's definition came from. */
export function buildDefinition(row: {
  spec_template: JsonObject | null;
  yaml_revision: string | null;
}): Build['definition'] {
  const source = specTemplateOf(row.spec_template);
  if (source === null)
    return { location: 'inline', repo: null, path: null, revision: null, sha: null };
  return {
    location: 'git',
    repo: source.repo,
    path: source.path,
    revision: source.revision || null,
    sha: row.yaml_revision,
  };
}

/** What a restart copies that the API does not show: the facts and the sealed secrets. */
export async function restartInputs(executor: Executor, buildId: string) {
  return executor
    .selectFrom('builds')
    .select(['facts', 'secret_variables_encrypted'])
    .where('id', '=', buildId)
    .executeTakeFirstOrThrow();
}

/** A pending build as the scheduler weighs it: its runtimes and its pipeline's limit. */
export interface PendingBuild {
  id: string;
  pipeline_id: string;
  build_runtime: string | null;
  pipeline_runtime: string | null;
  pipeline_limit: number | null;
  reason: string | null;
}

/**
 * What a scheduling pass decides on: the account's limits, pending builds, active counts and
 * runtime environments.
 */
export interface PassInputs {
  account: { default_runtime: string | null; max_concurrent_builds: number | null };
  /** The account's pending builds, oldest first. */
  pending: PendingBuild[];
  /** Only where a limit needs them: all when the account has one, else its limited pipelines'. */
  active: ActiveCounts;
  /** The account's runtime environments at their latest versions (none without pending builds). */
  runtimes: StoredRuntimeSpecs;
}

/**
 * A pass's inputs in one statement (a pass waits on the event loop at each round trip, and
 * every create waits for a pass); undefined when the account does not exist. Run it after the
 * pass's lock: a statement reads from the snapshot it started with. Active builds are counted
 * only where a limit needs them (all of the account's when it has a limit, else those of its
 * limited pipelines): a queue of thousands of elected builds waiting for agents is not counted
 * at every pass.
 */
export async function passInputs(
  trx: Executor,
  accountId: string,
): Promise<PassInputs | undefined> {
  const { rows } = await sql<{
    default_runtime: string | null;
    max_concurrent_builds: number | null;
    pending: PendingBuild[];
    active: { pipeline_id: string; n: number }[];
    runtimes: Record<string, RuntimeSpec> | null;
  }>`select a.default_runtime, a.max_concurrent_builds,
      coalesce((select json_agg(p order by p.id) from (
        select b.id, b.pipeline_id, b.reason, b.runtime_environment as build_runtime,
          pl.runtime_environment as pipeline_runtime, pl.max_concurrent_builds as pipeline_limit
        from builds b join pipelines pl on pl.id = b.pipeline_id
        where b.account_id = a.id and b.status = 'pending') p), '[]'::json) as pending,
      coalesce((select json_agg(c) from (
        select pipeline_id, count(*)::int as n from builds
        where a.max_concurrent_builds is not null and account_id = a.id
          and status in (${sql.join(ACTIVE_STATUSES)})
        group by pipeline_id
        union all
        select b.pipeline_id, count(*)::int from pipelines pl join builds b on b.pipeline_id = pl.id
        where a.max_concurrent_builds is null and pl.account_id = a.id
          and pl.max_concurrent_builds is not null and b.status in (${sql.join(ACTIVE_STATUSES)})
        group by b.pipeline_id) c), '[]'::json) as active,
      (select json_object_agg(r.name, r.spec) from (
        select distinct on (name) name, spec from runtime_environments
        where account_id = a.id order by name, version desc) r
        where exists (select 1 from builds where account_id = a.id and status = 'pending')
      ) as runtimes
    from accounts a where a.id = ${accountId}`.execute(trx);
  const row = rows[0];
  if (row === undefined) return undefined;
  const byPipeline = new Map(row.active.map((r) => [r.pipeline_id, Number(r.n)]));
  return {
    account: {
      default_runtime: row.default_runtime,
      max_concurrent_builds: row.max_concurrent_builds,
    },
    pending: row.pending,
    active: { total: [...byPipeline.values()].reduce((a, b) => a + b, 0), byPipeline },
    runtimes: new Map(Object.entries(row.runtimes ?? {})),
  };
}

/** The accounts with a pending build. */
export async function accountsWithPendingBuilds(executor: Executor): Promise<string[]> {
  const rows = await executor
    .selectFrom('builds')
    .select('account_id')
    .distinct()
    .where('status', '=', 'pending')
    .execute();
  return rows.map((row) => row.account_id);
}

export interface ActiveCounts {
  total: number;
  byPipeline: Map<string, number>;
}

/**
 * The active builds with what the workflow limits decide on (`workflow-limits.ts`): every running
 * or approval-waiting one, and the elected ones created before `electedCreatedBefore` (none when
 * it is undefined); an elected build younger than that cannot be over a limit yet.
 */
export async function activeBuildClocks(executor: Executor, electedCreatedBefore?: Date) {
  return executor
    .selectFrom('builds')
    .select([
      'id',
      'account_id',
      'status',
      'runtime_environment',
      'reason',
      'timing',
      'created_at',
      'updated_at',
      'engine_started_at',
      'engine_heartbeat_at',
      'engine_event_at',
      'post_steps_started_at',
      'stop_requested_at',
      'stop_status',
      'stop_reason',
      // The newest chunk by its key: one index probe per build, however long its log.
      sql<Date | string | null>`(select c.created_at from build_log_chunks c
        where c.build_id = builds.id order by c.seq desc limit 1)`.as('last_log_at'),
    ])
    .where((eb) =>
      eb.or([
        eb(
          'status',
          'in',
          ACTIVE_STATUSES.filter((status) => status !== 'elected'),
        ),
        ...(electedCreatedBefore === undefined
          ? []
          : [eb.and([eb('status', '=', 'elected'), eb('created_at', '<', electedCreatedBefore)])]),
      ]),
    )
    .execute();
}

/** A build's state on its commit (a commit status), by the build's status. */
const COMMIT_STATE = sql<string>`case b.status
  when 'pending' then 'pending' when 'elected' then 'pending'
  when 'running' then 'running' when 'pending-approval' then 'running'
  when 'success' then 'success' when 'failure' then 'failure'
  when 'error' then 'error' else 'cancelled' end`;

/** A commit status to send: its row, and the state its build is in now. */
export type DueCommitStatus = Pick<
  CommitStatusRow,
  'build_id' | 'account_id' | 'integration' | 'repo' | 'sha' | 'context' | 'attempts'
> & { state: 'pending' | 'running' | 'success' | 'failure' | 'error' | 'cancelled' };

/**
 * The commit statuses due whose build's state differs from the one their host last took,
 * claimed in `trx` for `claimSeconds` (`skip locked`: another replica's pass takes others).
 */
export async function claimCommitStatuses(
  trx: Executor,
  options: { batch: number; claimSeconds: number },
): Promise<DueCommitStatus[]> {
  const { rows } = await sql<DueCommitStatus>`select cs.build_id, cs.account_id, cs.integration,
      cs.repo, cs.sha, cs.context, cs.attempts, ${COMMIT_STATE} as state
    from commit_statuses cs join builds b on b.id = cs.build_id
    where cs.next_attempt_at <= now() and cs.sent_state is distinct from ${COMMIT_STATE}
    order by cs.next_attempt_at limit ${options.batch}
    for update of cs skip locked`.execute(trx);
  if (rows.length > 0)
    await trx
      .updateTable('commit_statuses')
      .set({ next_attempt_at: sql`now() + make_interval(secs => ${options.claimSeconds})` })
      .where(
        'build_id',
        'in',
        rows.map((r) => r.build_id),
      )
      .execute();
  return rows;
}

/** The oldest build of `pipelineIds` that has not finished (it keeps them), or undefined. */
export async function unfinishedBuild(executor: Executor, pipelineIds: readonly string[]) {
  const { rows } = await sql<Pick<BuildRow, 'id' | 'number' | 'status' | 'pipeline_id'>>`
    select id, number, status, pipeline_id from builds
    where pipeline_id = any(${[...pipelineIds]}::text[])
      and status not in (${sql.join(FINISHED_STATUSES)})
    order by id limit 1`.execute(executor);
  return rows[0];
}

/** How many builds `pipelineIds` have, and their log's chunks and bytes: what a delete takes. */
export async function buildsVolume(executor: Executor, pipelineIds: readonly string[]) {
  const { rows } = await sql<{ builds: number; log_chunks: number; log_bytes: string }>`
    with b as (select id from builds where pipeline_id = any(${[...pipelineIds]}::text[]))
    select (select count(*)::int from b) as builds, count(*)::int as log_chunks,
      coalesce(sum(c.byte_size), 0)::bigint as log_bytes
    from build_log_chunks c where c.build_id in (select id from b)`.execute(executor);
  const [row] = rows;
  const logBytes = Number(row?.log_bytes ?? 0);
  return { builds: row?.builds ?? 0, logChunks: row?.log_chunks ?? 0, logBytes };
}
