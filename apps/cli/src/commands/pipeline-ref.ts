/**
 * A pipeline from what a person typed: `project/pipeline` (as Codefresh names them), an id
 * (`pip_…`), or a name only one project has; shared by `get`, `run-pipeline` and `apply`.
 * @module
 */
import { InputError, isSluiceError, NotFoundError } from '@sluice/errors';
import type { Pipeline, SluiceClient } from '@sluice/protocol';

export async function resolvePipeline(client: SluiceClient, ref: string): Promise<Pipeline> {
  const slash = ref.indexOf('/');
  if (slash > 0) {
    const project = ref.slice(0, slash);
    const found = await findPipeline(client, project, ref.slice(slash + 1));
    if (found !== undefined) return found;
    throw notFound(ref, `sluice get pipelines --project ${project}`);
  }
  if (ref.startsWith('pip_')) {
    try {
      return await client.call('getPipeline', { params: { pipelineId: ref } });
    } catch (err) {
      if (!isSluiceError(err) || err.category !== 'not-found') throw err;
    }
  }
  const matches = (await listPipelines(client, undefined)).filter((p) => p.name === ref);
  const [only] = matches;
  if (only !== undefined && matches.length === 1) return only;
  if (matches.length > 1)
    throw new InputError(
      'SLUICE_PIPELINE_AMBIGUOUS',
      `Pipeline name "${ref}" is in ${matches.length} projects (${matches.map((p) => p.project).join(', ')})`,
      { hint: `Name it as project/pipeline, e.g. ${matches[0]?.project}/${ref}` },
    );
  throw notFound(ref, 'sluice get pipelines');
}

function notFound(ref: string, list: string): NotFoundError {
  return new NotFoundError('SLUICE_PIPELINE_NOT_FOUND', `Pipeline "${ref}" does not exist`, {
    hint: `List the pipelines with: ${list}`,
  });
}

export async function listPipelines(
  client: SluiceClient,
  project: string | undefined,
): Promise<Pipeline[]> {
  const projects =
    project === undefined
      ? (await client.call('listProjects')).items.map((p) => p.name)
      : [project];
  const lists = await Promise.all(
    projects.map(
      async (p) => (await client.call('listPipelines', { params: { project: p } })).items,
    ),
  );
  return lists.flat();
}

/** The pipeline, or undefined when its project has none of that name. */
export async function findPipeline(
  client: SluiceClient,
  project: string,
  name: string,
): Promise<Pipeline | undefined> {
  try {
    return await client.call('getPipelineByName', { params: { project, name } });
  } catch (err) {
    if (isSluiceError(err) && err.code === 'SLUICE_PIPELINE_NOT_FOUND') return undefined;
    if (isSluiceError(err) && err.code === 'SLUICE_PROJECT_NOT_FOUND')
      throw new NotFoundError('SLUICE_PROJECT_NOT_FOUND', `Project "${project}" does not exist`, {
        hint: `Create it first (sluice create project ${project}), or put a Project document before the pipeline`,
      });
    throw err;
  }
}
