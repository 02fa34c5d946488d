/**
 * The project a request is about, by name, for the grants of a user limited to some projects
 * (docs/access.md): a project names itself; a pipeline, a build and a trigger are looked up in
 * the account. One indexed query each, and only for such users.
 * @module
 */
import type { Executor } from '@sluice/db';
import { buildProjectName } from './build-rows.js';
import type { ProjectTarget } from '../../http/project-targets.js';

export async function projectOf(
  executor: Executor,
  accountId: string,
  target: ProjectTarget,
): Promise<string | undefined> {
  switch (target.kind) {
    case 'project':
      return target.key;
    case 'build':
      return buildProjectName(executor, accountId, target.key);
    case 'pipeline': {
      const row = await executor
        .selectFrom('pipelines')
        .innerJoin('projects', 'projects.id', 'pipelines.project_id')
        .select('projects.name')
        .where('pipelines.id', '=', target.key)
        .where('pipelines.account_id', '=', accountId)
        .executeTakeFirst();
      return row?.name;
    }
    case 'trigger': {
      const row = await executor
        .selectFrom('triggers')
        .innerJoin('pipelines', 'pipelines.id', 'triggers.pipeline_id')
        .innerJoin('projects', 'projects.id', 'pipelines.project_id')
        .select('projects.name')
        .where('triggers.id', '=', target.key)
        .where('triggers.account_id', '=', accountId)
        .executeTakeFirst();
      return row?.name;
    }
  }
}
