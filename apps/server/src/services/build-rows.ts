/**
 * Reading builds: the row-to-API mapping shared by every service that returns a build.
 * @module
 */
import { NotFoundError } from '@sluice/errors';
import type { BuildRow, BuildStepRow, Executor } from '@sluice/db';
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

/** The builds of `buildIds` in the account, in that order, in two queries however many. */
export async function loadBuilds(
  executor: Executor,
  accountId: string,
  buildIds: readonly string[],
): Promise<Build[]> {
  if (buildIds.length === 0) return [];
  const rows = await selectBuilds(executor, accountId).where('builds.id', 'in', buildIds).execute();
  const byId = new Map(rows.map((row) => [row.id, row]));
  return withSteps(
    executor,
    buildIds.flatMap((id) => byId.get(id) ?? []),
  );
}

/** Builds of the account with their pipeline's and project's names, for `toBuild`. */
export function selectBuilds(executor: Executor, accountId: string) {
  return executor
    .selectFrom('builds')
    .innerJoin('pipelines', 'pipelines.id', 'builds.pipeline_id')
    .innerJoin('projects', 'projects.id', 'pipelines.project_id')
    .selectAll('builds')
    .select(['pipelines.name as pipeline_name', 'projects.name as project_name'])
    .where('builds.account_id', '=', accountId);
}

/** The rows as API builds, in their order, with their steps read in one query. */
export async function withSteps(
  executor: Executor,
  rows: readonly BuildJoinRow[],
): Promise<Build[]> {
  if (rows.length === 0) return [];
  const steps = await executor
    .selectFrom('build_steps')
    .selectAll()
    .where(
      'build_id',
      'in',
      rows.map((row) => row.id),
    )
    .orderBy('position')
    .execute();
  const stepsOf = new Map<string, BuildStepRow[]>();
  for (const step of steps) {
    const list = stepsOf.get(step.build_id);
    if (list === undefined) stepsOf.set(step.build_id, [step]);
    else list.push(step);
  }
  return rows.map((row) => toBuild(row, stepsOf.get(row.id) ?? []));
}

function toBuild(row: BuildJoinRow, steps: readonly BuildStepRow[]): Build {
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
    steps: steps.map((s) => ({
      name: s.name,
      position: s.position,
      parent: s.parent,
      attempt: s.attempt,
      status: s.status as Build['steps'][number]['status'],
      exitCode: s.exit_code,
      reason: s.reason,
      startedAt: isoTime(s.started_at),
      finishedAt: isoTime(s.finished_at),
      answeredBy: s.answered_by,
    })),
    timing: row.timing,
    createdAt: isoTime(row.created_at) ?? '',
    finishedAt: isoTime(row.finished_at),
  };
}

type BuildJoinRow = BuildRow & { pipeline_name: string; project_name: string };

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
