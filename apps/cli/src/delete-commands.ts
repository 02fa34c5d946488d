/**
 * The command-line shape of `delete pipeline|project|build`: what has run, with its builds and
 * logs (docs/retention.md). A pipeline or project is shown with what would go and asked about
 * (default no) unless `--yes`; the action's module is imported only when it runs.
 * @module
 */
import { examples } from './cli-help.js';
import type { ServerCommandsContext, ServerFlags } from './server-commands-context.js';

/** `delete pipeline|project|build`: what has run, with its builds and logs. */
export function addDeleteCommands(ctx: ServerCommandsContext): void {
  const { term, config, verbs, withServer, server, setExitCode } = ctx;
  const confirm = config.interactive
    ? async (message: string) =>
        (await import('@inquirer/prompts')).confirm({ message, default: false })
    : undefined;
  type Flags = ServerFlags & { yes?: boolean };
  examples(
    withServer(verbs.delete.command('pipeline'))
      .description(
        'Delete a pipeline with its builds, steps and logs: shows how many, asks (default no)',
      )
      .argument('<pipeline>', 'project/pipeline, a pipeline id, or a name only one project has')
      .option('-y, --yes', 'delete without asking'),
    'sluice delete pipeline web/build',
    'sluice delete pipeline web/build --yes',
  ).action(async (ref: string, opts: Flags) => {
    const { deletePipeline } = await import('./commands/delete-data.js');
    setExitCode(await deletePipeline(term, ref, { ...opts, ...server(opts), confirm }));
  });
  examples(
    withServer(verbs.delete.command('project'))
      .description(
        'Delete a project with its pipelines and their builds and logs: shows how many, asks',
      )
      .argument('<name>', 'project name')
      .option('-y, --yes', 'delete without asking'),
    'sluice delete project web',
  ).action(async (name: string, opts: Flags) => {
    const { deleteProject } = await import('./commands/delete-data.js');
    setExitCode(await deleteProject(term, name, { ...opts, ...server(opts), confirm }));
  });
  examples(
    withServer(verbs.delete.command('build'))
      .description('Delete a finished build with its steps and log (cancel a running one first)')
      .argument('<id>', 'build id'),
    'sluice delete build bld_0mf3...',
  ).action(async (id: string, opts: ServerFlags) => {
    const { deleteBuild } = await import('./commands/delete-data.js');
    setExitCode(await deleteBuild(term, id, server(opts)));
  });
}
