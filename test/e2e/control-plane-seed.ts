/**
 * What the e2e tests make on a control plane through its API before they start: the local
 * runtime environment, a project with its pipelines, and tasks acknowledged as an agent would.
 * @module
 */
import type { SluiceClient, Task } from '@sluice/protocol';

/** The runtime environment `local` (this machine's Docker engine); the account default if asked. */
export async function createLocalRuntime(
  admin: SluiceClient,
  options: { description?: string; isDefault?: boolean } = {},
): Promise<void> {
  const spec = {
    metadata: { name: 'local' },
    runtimeScheduler: { type: 'LocalDocker' },
    dockerDaemonScheduler: { type: 'LocalDocker' },
  };
  const body = { name: 'local', description: options.description, spec };
  await admin.call('createRuntimeEnvironment', { body });
  if (options.isDefault) {
    await admin.call('setDefaultRuntimeEnvironment', { params: { name: 'local' } });
  }
}

/** The project and its pipelines (name → YAML), each with `variables`; their ids by name. */
export async function createPipelines(
  admin: SluiceClient,
  project: string,
  pipelines: Record<string, string>,
  options: { variables?: Record<string, { value: string; secret?: boolean }> } = {},
): Promise<Record<string, string>> {
  await admin.call('createProject', { body: { name: project } });
  const ids: Record<string, string> = {};
  for (const [name, yaml] of Object.entries(pipelines)) {
    const body = { name, yaml, variables: options.variables };
    ids[name] = (await admin.call('createPipeline', { params: { project }, body })).id;
  }
  return ids;
}

/** Reports each task done, as the agent's task runner does. */
export async function acknowledgeTasks(
  agent: SluiceClient,
  tasks: readonly Pick<Task, 'id' | 'statusRevision'>[],
): Promise<void> {
  for (const task of tasks) {
    await agent.call('reportTaskStatus', {
      params: { taskId: task.id },
      body: { status: 'Success', statusRevision: task.statusRevision + 1 },
    });
  }
}
