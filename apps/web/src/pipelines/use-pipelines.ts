/**
 * Every pipeline of the account, project by project (the API lists them per project), kept
 * current like any other polled data.
 * @module
 */
import type { Pipeline, Project } from '@sluice/protocol';
import type { Api } from '../api/api-context.js';
import { usePoll } from '../api/use-poll.js';

export interface ProjectPipelines {
  project: Project;
  pipelines: Pipeline[];
}

export function usePipelines(api: Api, intervalMs = 10_000) {
  return usePoll(
    async (signal): Promise<ProjectPipelines[]> => {
      const { items } = await api.call('listProjects', { signal });
      return Promise.all(
        items.map(async (project) => ({
          project,
          pipelines: (
            await api.call('listPipelines', { params: { project: project.name }, signal })
          ).items,
        })),
      );
    },
    { intervalMs, key: 'pipelines' },
  );
}
