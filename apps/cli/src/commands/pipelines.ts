/**
 * `sluice get projects [NAME]`, `sluice get pipelines [NAME] [--project P]` and `sluice create
 * project NAME`. Pipelines are named `project/pipeline` (as Codefresh names them), by id, or by
 * a name alone when only one project has it. `-o yaml|json` prints the manifests `apply -f`
 * takes back.
 * @module
 */
import type { Pipeline, Project } from '@sluice/protocol';
import { pipelineManifest, projectManifest } from '../manifests.js';
import type { Terminal } from '../ui/terminal.js';
import { formatAge } from '../ui/terminal.js';
import { listPipelines, resolvePipeline } from './pipeline-ref.js';
import { printDocument, printResources, serverClient } from './server-resources.js';
import type { OutputFormat, ServerOptions } from './server-resources.js';

export interface GetOptions extends ServerOptions {
  output: OutputFormat;
  columns: number;
}

export async function getProjects(
  term: Terminal,
  name: string | undefined,
  options: GetOptions,
): Promise<number> {
  const client = serverClient(options);
  const projects =
    name === undefined
      ? (await client.call('listProjects')).items
      : [await client.call('getProject', { params: { project: name } })];
  if (options.output === 'json' || options.output === 'yaml') {
    const docs = projects.map(projectManifest);
    printDocument(
      term,
      name === undefined ? { kind: 'List', items: docs } : docs[0],
      options.output,
    );
    return 0;
  }
  const counts = new Map<string, number>();
  if (options.output === 'wide')
    for (const p of projects)
      counts.set(
        p.name,
        (await client.call('listPipelines', { params: { project: p.name } })).items.length,
      );
  printResources<Project>(
    term,
    projects,
    options.output,
    {
      header: ['NAME', 'AGE'],
      row: (p) => [p.name, formatAge(p.createdAt)],
      wide: { header: ['PIPELINES', 'ID'], row: (p) => [String(counts.get(p.name) ?? 0), p.id] },
    },
    options,
  );
  return 0;
}

export interface GetPipelinesOptions extends GetOptions {
  project?: string;
}

export async function getPipelines(
  term: Terminal,
  name: string | undefined,
  options: GetPipelinesOptions,
): Promise<number> {
  const client = serverClient(options);
  const pipelines =
    name === undefined
      ? await listPipelines(client, options.project)
      : [await resolvePipeline(client, options.project ? `${options.project}/${name}` : name)];
  if (options.output === 'json' || options.output === 'yaml') {
    const docs = pipelines.map(pipelineManifest);
    printDocument(
      term,
      name === undefined ? { kind: 'List', items: docs } : docs[0],
      options.output,
    );
    return 0;
  }
  printResources<Pipeline>(
    term,
    pipelines,
    options.output,
    {
      header: ['NAME', 'RUNTIME', 'CONCURRENCY', 'VARIABLES', 'AGE'],
      row: (p) => [
        `${p.project}/${p.name}`,
        p.runtimeEnvironment ?? '(default)',
        p.maxConcurrentBuilds === null ? '-' : String(p.maxConcurrentBuilds),
        String(p.variables.length),
        formatAge(p.createdAt),
      ],
      wide: { header: ['UPDATED', 'ID'], row: (p) => [formatAge(p.updatedAt), p.id] },
    },
    options,
  );
  return 0;
}

export async function createProject(
  term: Terminal,
  name: string,
  options: ServerOptions,
): Promise<number> {
  const project = await serverClient(options).call('createProject', { body: { name } });
  term.out(`project/${project.name} created`);
  return 0;
}
