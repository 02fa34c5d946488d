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
  const rows = await executor
    .selectFrom('builds')
    .innerJoin('pipelines', 'pipelines.id', 'builds.pipeline_id')
    .innerJoin('projects', 'projects.id', 'pipelines.project_id')
    .selectAll('builds')
    .select(['pipelines.name as pipeline_name', 'projects.name as project_name'])
    .where('builds.id', 'in', buildIds)
    .where('builds.account_id', '=', accountId)
    .execute();
  const steps = await executor
    .selectFrom('build_steps')
    .selectAll()
    .where('build_id', 'in', buildIds)
    .orderBy('position')
    .execute();
  const byId = new Map(rows.map((row) => [row.id, row]));
  return buildIds.flatMap((id) => {
    const row = byId.get(id);
    if (row === undefined) return [];
    return [
      toBuild(
        row,
        steps.filter((step) => step.build_id === id),
      ),
    ];
  });
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
