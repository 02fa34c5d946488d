/**
 * Reading builds: the row-to-API mapping shared by every service that returns a build.
 * @module
 */
import { NotFoundError } from '@sluice/errors';
import type { Executor } from '@sluice/db';
import type { Build, BuildStatus } from '@sluice/protocol';
import { isoTime } from './server-context.js';

export async function loadBuild(
  executor: Executor,
  accountId: string,
  buildId: string,
): Promise<Build> {
  const row = await executor
    .selectFrom('builds')
    .innerJoin('pipelines', 'pipelines.id', 'builds.pipeline_id')
    .innerJoin('projects', 'projects.id', 'pipelines.project_id')
    .selectAll('builds')
    .select(['pipelines.name as pipeline_name', 'projects.name as project_name'])
    .where('builds.id', '=', buildId)
    .where('builds.account_id', '=', accountId)
    .executeTakeFirst();
  if (row === undefined)
    throw new NotFoundError('SLUICE_BUILD_NOT_FOUND', `Build ${buildId} does not exist`);
  const steps = await executor
    .selectFrom('build_steps')
    .selectAll()
    .where('build_id', '=', buildId)
    .orderBy('position')
    .execute();
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
      status: s.status as Build['steps'][number]['status'],
      exitCode: s.exit_code,
      reason: s.reason,
      startedAt: isoTime(s.started_at),
      finishedAt: isoTime(s.finished_at),
    })),
    timing: row.timing,
    createdAt: isoTime(row.created_at) ?? '',
    finishedAt: isoTime(row.finished_at),
  };
}

export const ACTIVE_STATUSES: readonly BuildStatus[] = ['elected', 'running', 'pending-approval'];
export const FINISHED: readonly BuildStatus[] = ['success', 'failure', 'terminated', 'error'];
