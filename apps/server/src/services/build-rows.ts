/**
 * Reading builds: the row-to-API mapping shared by every service that returns a build.
 * @module
 */
import { NotFoundError } from '@sluice/errors';
import { sql } from '@sluice/db';
import type { BuildRow, Executor } from '@sluice/db';
import type { Build, BuildStatus } from '@sluice/protocol';
import { isoTime } from './server-context.js';

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
  'builds.runtime_environment',
  'builds.agent_id',
  'builds.reason',
  'builds.retry_of',
  'builds.timing',
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
    'name', s.name, 'position', s.position, 'parent', s.parent, 'attempt', s.attempt,
    'status', s.status, 'exit_code', s.exit_code, 'reason', s.reason,
    'started_at', s.started_at, 'finished_at', s.finished_at, 'answered_by', s.answered_by
  ) order by s.position), '[]'::json)
  from build_steps s where s.build_id = builds.id)`;

interface StepJson {
  name: string;
  position: number;
  parent: string | null;
  attempt: number;
  status: string;
  exit_code: number | null;
  reason: string | null;
  started_at: string | null;
  finished_at: string | null;
  answered_by: string | null;
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
    branch: row.branch,
    revision: row.revision,
    variables: row.variables,
    runtimeEnvironment: row.runtime_environment,
    agentId: row.agent_id,
    reason: row.reason,
    retryOf: row.retry_of,
    steps: row.steps.map((s) => ({
      name: s.name,
      position: s.position,
      parent: s.parent,
      attempt: s.attempt,
      status: s.status as Build['steps'][number]['status'],
      exitCode: s.exit_code,
      reason: s.reason,
      startedAt: jsonTime(s.started_at),
      finishedAt: jsonTime(s.finished_at),
      answeredBy: s.answered_by,
    })),
    timing: row.timing,
    createdAt: isoTime(row.created_at) ?? '',
    finishedAt: isoTime(row.finished_at),
  };
}

/** `builds.id` → `id`. */
type BuildColumn<T> = T extends `builds.${infer C extends keyof BuildRow}` ? C : never;

type BuildJoinRow = Pick<BuildRow, BuildColumn<(typeof BUILD_COLUMNS)[number]>> & {
  pipeline_name: string;
  project_name: string;
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
