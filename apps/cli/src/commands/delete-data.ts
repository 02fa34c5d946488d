/**
 * `sluice delete pipeline|project|build`: deleting what has run. A pipeline or a project is
 * first asked for what would go (`?dryRun=true`: its builds, log chunks and bytes), which is
 * shown, and deleted only once the user says yes (default no), or at once with `--yes`; with no
 * terminal to ask and no `--yes`, nothing is deleted. A build not finished refuses the delete
 * (409) with the command that cancels it. A finished build is deleted without asking, as
 * `kubectl delete` does.
 * @module
 */
import { InputError } from '@sluice/errors';
import { describeDeleted } from '@sluice/protocol';
import type { DeletedData } from '@sluice/protocol';
import type { Terminal } from '../ui/terminal.js';
import { resolvePipeline } from './pipeline-ref.js';
import { serverClient } from './server-resources.js';
import type { ServerOptions } from './server-resources.js';

export interface DeleteDataOptions extends ServerOptions {
  /** Delete without asking. */
  yes?: boolean;
}

/** Asks a yes/no question on the terminal; undefined when there is none. */
export type Confirm = ((question: string) => Promise<boolean>) | undefined;

export async function deletePipeline(
  term: Terminal,
  ref: string,
  options: DeleteDataOptions & { confirm: Confirm },
): Promise<number> {
  const client = serverClient(options);
  const pipeline = await resolvePipeline(client, ref);
  const params = { pipelineId: pipeline.id };
  return deleteAsked(term, `pipeline/${pipeline.project}/${pipeline.name}`, options, (dryRun) =>
    client.call('deletePipeline', { params, query: { dryRun } }),
  );
}

export async function deleteProject(
  term: Terminal,
  project: string,
  options: DeleteDataOptions & { confirm: Confirm },
): Promise<number> {
  const client = serverClient(options);
  return deleteAsked(term, `project/${project}`, options, (dryRun) =>
    client.call('deleteProject', { params: { project }, query: { dryRun } }),
  );
}

/** Asks the server what would go, shows it, asks the user, then deletes: the exit code. */
async function deleteAsked(
  term: Terminal,
  name: string,
  options: DeleteDataOptions & { confirm: Confirm },
  call: (dryRun: 'true' | 'false') => Promise<DeletedData>,
): Promise<number> {
  if (!(await confirmed(term, { name, what: await call('true') }, options))) return 1;
  term.out(`${name} deleted${withWhat(await call('false'))}`);
  return 0;
}

export async function deleteBuild(
  term: Terminal,
  buildId: string,
  options: ServerOptions,
): Promise<number> {
  const deleted = await serverClient(options).call('deleteBuild', { params: { buildId } });
  term.out(`build/${buildId} deleted${withWhat(deleted)}`);
  return 0;
}

/** ` with 3 builds and 1.2 MiB of logs (40 chunks)`: what went, or would go. */
export function withWhat(data: DeletedData): string {
  const what = describeDeleted(data);
  return what === '' ? '' : ` with ${what}`;
}

async function confirmed(
  term: Terminal,
  plan: { name: string; what: DeletedData },
  options: DeleteDataOptions & { confirm: Confirm },
): Promise<boolean> {
  term.err(`Will delete ${plan.name}${withWhat(plan.what)}.`);
  if (options.yes === true) return true;
  if (options.confirm === undefined)
    throw new InputError(
      'SLUICE_DELETE_UNCONFIRMED',
      `Not deleted: ${plan.name} has no terminal to confirm on`,
      { hint: 'Pass --yes to delete without asking' },
    );
  if (await options.confirm(`Delete ${plan.name}${withWhat(plan.what)}?`)) return true;
  term.err('Nothing was deleted.');
  return false;
}
