/**
 * The command-line shape of the account settings commands (`get|patch re`, `get registries`,
 * `create registry`, `delete registry`, `create step-type`, `get|describe step-types`; `get volumes`, read
 * from the cluster); each action's module is imported only when it runs, like every command of
 * main.ts.
 * @module
 */
import type { Command } from 'commander';
import type { OutputFormat, ServerOptions } from './commands/server-resources.js';
import { examples } from './cli-help.js';
import type { Terminal } from './ui/terminal.js';

interface ServerFlags {
  server?: string;
  token?: string;
  context?: string;
}

export interface SettingsCommandsContext {
  term: Terminal;
  /** `get`, `create`, `delete`, `patch` and `describe`. */
  verbs: { get: Command; create: Command; delete: Command; patch: Command; describe: Command };
  /** Adds --server and --token. */
  withServer: (cmd: Command) => Command;
  parseFormat: (value: string) => OutputFormat;
  server: (flags: ServerFlags) => ServerOptions;
  setExitCode: (code: number) => void;
}

export function addSettingsCommands(ctx: SettingsCommandsContext): void {
  const { term, verbs, withServer } = ctx;
  examples(
    verbs.get
      .command('volumes')
      .alias('volume')
      .description("Warm volumes of the runtimes' volume provisioners, read from the cluster")
      .argument('[name]', 'volume (PersistentVolume) name')
      .option('--runtime <name>', "only this runtime's volumes")
      .option('--kubeconfig <file>', 'the kubeconfig (default: KUBECONFIG, else ~/.kube/config)')
      .option('--kube-context <name>', "the kubeconfig context (default: the file's current one)")
      .option('-o, --output <format>', 'table, wide, yaml or json', ctx.parseFormat, 'table'),
    'sluice get volumes --runtime prod',
    'sluice get volumes -o wide --kube-context build-cluster',
  ).action(
    async (
      name: string | undefined,
      opts: { runtime?: string; kubeconfig?: string; kubeContext?: string; output: OutputFormat },
    ) => {
      const { getVolumes } = await import('./commands/volumes.js');
      ctx.setExitCode(await getVolumes(term, name, { ...opts, columns: terminalColumns() }));
    },
  );
  examples(
    withServer(verbs.get.command('runtime-environments').alias('re').alias('runtime-environment'))
      .description('Runtime environments: all, or one by name')
      .argument('[name]', 'runtime environment name')
      .option('-o, --output <format>', 'table, yaml or json', ctx.parseFormat, 'table')
      .option('--extend', 'merge its extends parents')
      .option('--version <n>', 'a past version', (v) => Number(v)),
    'sluice get re',
    'sluice get re local -o yaml --extend',
  ).action(
    async (
      name: string | undefined,
      opts: ServerFlags & { output: OutputFormat; extend?: boolean; version?: number },
    ) => {
      const { getRuntimeEnvironments } = await import('./commands/runtime-environments.js');
      ctx.setExitCode(await getRuntimeEnvironments(term, name, { ...opts, ...ctx.server(opts) }));
    },
  );
  examples(
    withServer(verbs.patch.command('runtime-environment').alias('re').alias('runtime-environments'))
      .description(
        "Apply a merge patch (YAML or JSON) to a runtime environment (a new version), or make it the account's default",
      )
      .argument('<name>', 'runtime environment name')
      .option('-f, --filename <file>', 'the patch file, or - for standard input')
      .option(
        '--default',
        "make it the account's default runtime (builds that name none run there)",
      ),
    'sluice patch re local -f patch.yml',
    'sluice patch re prod/ci --default',
  ).action(async (name: string, opts: ServerFlags & { filename?: string; default?: boolean }) => {
    const { patchRuntimeEnvironment } = await import('./commands/runtime-environments.js');
    ctx.setExitCode(await patchRuntimeEnvironment(term, name, opts, ctx.server(opts)));
  });
  examples(
    withServer(verbs.get.command('registries').alias('registry'))
      .description("The account's Docker registries (never their passwords)")
      .option('-o, --output <format>', 'table, yaml or json', ctx.parseFormat, 'table'),
    'sluice get registries',
  ).action(async (opts: ServerFlags & { output: OutputFormat }) => {
    const { getRegistries } = await import('./commands/registries.js');
    ctx.setExitCode(await getRegistries(term, { ...opts, ...ctx.server(opts) }));
  });
  examples(
    withServer(verbs.create.command('registry'))
      .description('Create or replace a Docker registry of the account')
      .argument('<name>', 'what build and push steps name in registry:')
      .requiredOption('--domain <host[:port]>', 'the registry, e.g. registry.example.com:5000')
      .option('--username <user>', 'the user to log in as')
      .option('--password-stdin', 'read the password from standard input (stored encrypted)')
      .option('--default', 'the registry of steps that name none'),
    'echo "$PASS" | sluice create registry hub --domain registry.example.com --username ci --password-stdin --default',
  ).action(
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
  examples(
    withServer(verbs.delete.command('registry').alias('registries'))
      .description('Delete a Docker registry of the account')
      .argument('<name>', 'registry name'),
    'sluice delete registry hub',
  ).action(async (name: string, opts: ServerFlags) => {
    const { deleteRegistry } = await import('./commands/registries.js');
    ctx.setExitCode(await deleteRegistry(term, name, ctx.server(opts)));
  });

  examples(
    withServer(verbs.create.command('step-type'))
      .description('Register a step-type document in the control plane (a new name or version)')
      .requiredOption('-f, --filename <file>', 'the step-type YAML, or - for standard input'),
    'sluice create step-type -f step-types/webhook-notify.yml',
  ).action(async (opts: ServerFlags & { filename: string }) => {
    const { createStepType } = await import('./commands/step-types.js');
    ctx.setExitCode(await createStepType(term, opts.filename, ctx.server(opts)));
  });
  examples(
    withServer(verbs.get.command('step-types').alias('step-type'))
      .description(
        "The account's step types and the built-in ones it has not replaced (ORIGIN), or one by name",
      )
      .argument('[name]', 'NAME (every version) or NAME:VERSION')
      .option('-o, --output <format>', 'table, wide, yaml or json', ctx.parseFormat, 'table'),
    'sluice get step-types',
    'sluice get step-type git-commit:1.0.0 -o yaml',
  ).action(async (name: string | undefined, opts: ServerFlags & { output: OutputFormat }) => {
    const { getStepTypes } = await import('./commands/step-types.js');
    ctx.setExitCode(
      await getStepTypes(term, name, { ...opts, ...ctx.server(opts), columns: terminalColumns() }),
    );
  });
  examples(
    withServer(verbs.describe.command('step-type').alias('step-types'))
      .description('A step type: its origin, arguments (type, default, required) and steps')
      .argument('<name>', 'NAME (every version) or NAME:VERSION'),
    'sluice describe step-type helm',
  ).action(async (name: string, opts: ServerFlags) => {
    const { describeStepType } = await import('./commands/step-types.js');
    ctx.setExitCode(
      await describeStepType(term, name, { ...ctx.server(opts), columns: terminalColumns() }),
    );
  });
}

/** The terminal's width for tables, 100 when it is not a terminal. */
export function terminalColumns(): number {
  return process.stdout.isTTY ? Math.max(40, process.stdout.columns || 100) : 100;
}
