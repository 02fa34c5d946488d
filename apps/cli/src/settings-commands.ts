/**
 * The command-line shape of the account settings commands (`get registries`, `create registry`,
 * `delete registry`, `create step-type`, `get step-types`); each action's module is imported
 * only when it runs, like every command of main.ts.
 * @module
 */
import type { Command } from 'commander';
import type { OutputFormat, ServerOptions } from './commands/server-resources.js';
import type { Terminal } from './ui/terminal.js';

interface ServerFlags {
  server?: string;
  token?: string;
}

export interface SettingsCommandsContext {
  term: Terminal;
  /** `get`, `create` and `delete`. */
  verbs: { get: Command; create: Command; delete: Command };
  /** Adds --server and --token. */
  withServer: (cmd: Command) => Command;
  parseFormat: (value: string) => OutputFormat;
  server: (flags: ServerFlags) => ServerOptions;
  setExitCode: (code: number) => void;
}

export function addSettingsCommands(ctx: SettingsCommandsContext): void {
  const { term, verbs, withServer } = ctx;
  withServer(verbs.get.command('registries').alias('registry'))
    .description("The account's Docker registries (never their passwords)")
    .option('-o, --output <format>', 'table, yaml or json', ctx.parseFormat, 'table')
    .action(async (opts: ServerFlags & { output: OutputFormat }) => {
      const { getRegistries } = await import('./commands/registries.js');
      ctx.setExitCode(await getRegistries(term, { ...opts, ...ctx.server(opts) }));
    });
  withServer(verbs.create.command('registry'))
    .description('Create or replace a Docker registry of the account')
    .argument('<name>', 'what build and push steps name in registry:')
    .requiredOption('--domain <host[:port]>', 'the registry, e.g. registry.example.com:5000')
    .option('--username <user>', 'the user to log in as')
    .option('--password-stdin', 'read the password from standard input (stored encrypted)')
    .option('--default', 'the registry of steps that name none')
    .action(
      async (
        name: string,
        opts: ServerFlags & {
          domain: string;
          username?: string;
          passwordStdin?: boolean;
          default?: boolean;
        },
      ) => {
        const { createRegistry } = await import('./commands/registries.js');
        ctx.setExitCode(await createRegistry(term, name, { ...opts, ...ctx.server(opts) }));
      },
    );
  withServer(verbs.delete.command('registry').alias('registries'))
    .description('Delete a Docker registry of the account')
    .argument('<name>', 'registry name')
    .action(async (name: string, opts: ServerFlags) => {
      const { deleteRegistry } = await import('./commands/registries.js');
      ctx.setExitCode(await deleteRegistry(term, name, ctx.server(opts)));
    });

  withServer(verbs.create.command('step-type'))
    .description('Register a step-type document in the control plane (a new name or version)')
    .requiredOption('-f, --filename <file>', 'the step-type YAML, or - for standard input')
    .action(async (opts: ServerFlags & { filename: string }) => {
      const { createStepType } = await import('./commands/step-types.js');
      ctx.setExitCode(await createStepType(term, opts.filename, ctx.server(opts)));
    });
  withServer(verbs.get.command('step-types').alias('step-type'))
    .description('Step types registered in the control plane')
    .option('-o, --output <format>', 'table, yaml or json', ctx.parseFormat, 'table')
    .action(async (opts: ServerFlags & { output: OutputFormat }) => {
      const { getStepTypes } = await import('./commands/step-types.js');
      ctx.setExitCode(await getStepTypes(term, { ...opts, ...ctx.server(opts) }));
    });
}
