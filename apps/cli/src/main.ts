/**
 * Composition root of the `sluice` command: parses the command line, loads config once, runs
 * the command, and translates errors to exit codes and messages in one place. Each command's
 * module is imported only when that command runs: the server, the engine, the runner and their
 * dependencies (Fastify, PGlite, dockerode, the Kubernetes client) are heavy, and a long-running
 * `sluice agent` or a `sluice engine` started for every build should not hold the others.
 * @module
 */
import { Command, CommanderError } from 'commander';
import { describeError, exitCodeFor, InputError, isSluiceError } from '@sluice/errors';
import type { RunnerConfigInput } from '@sluice/runner';
import { loadConfig, serverContext } from './config.js';
import type { RunOptions } from './commands/run.js';
import type { UpOptions } from './commands/up.js';
import type { OutputFormat } from './commands/server-resources.js';
import { createTerminal, printError } from './ui/terminal.js';
import { addSettingsCommands } from './settings-commands.js';

const collect = (value: string, previous: string[]) => [...previous, value];

function parseOutput(value: string): 'text' | 'json' {
  if (value === 'text' || value === 'json') return value;
  throw new InputError('SLUICE_CLI_BAD_OUTPUT', `--output must be text or json, got "${value}"`);
}

function parseFormat(value: string): OutputFormat {
  if (value === 'table' || value === 'yaml' || value === 'json') return value;
  throw new InputError(
    'SLUICE_CLI_BAD_OUTPUT',
    `--output must be table, yaml or json, got "${value}"`,
  );
}

export async function main(argv: readonly string[]): Promise<number> {
  const config = loadConfig();
  const term = createTerminal({ color: config.color });
  let verbose = false;
  let exitCode = 0;
  const program = new Command('sluice')
    .description('Self-hosted CI/CD for codefresh.yml pipelines')
    .option('-v, --verbose', 'print the cause of errors')
    .exitOverride()
    .configureOutput({
      writeErr: (s) => term.err(s.trimEnd()),
      writeOut: (s) => term.out(s.trimEnd()),
    })
    .hook('preAction', (cmd) => void (verbose = Boolean(cmd.opts().verbose)));

  program
    .command('run')
    .description('Run a pipeline on the local Docker engine, without a server')
    .argument('[file]', 'pipeline file', undefined)
    .option('--branch <name>', 'CF_BRANCH (default: the current git branch)')
    .option('--revision <sha>', 'CF_REVISION (default: the current git commit)')
    .option('--var <KEY=value>', 'a build variable (repeatable)', collect, [])
    .option(
      '--secret <KEY=value>',
      'a secret variable, masked in all output (repeatable)',
      collect,
      [],
    )
    .option(
      '--volume-key <key>',
      'builds with the same key share /codefresh/volume (default: the pipeline name)',
    )
    .option(
      '--docker-host <url>',
      'Docker engine address (default: DOCKER_HOST or the local socket)',
    )
    .option('--git-image <image>', 'image for git-clone steps', undefined)
    .option('--build-id <id>', 'build id (default: generated)')
    .option('-o, --output <format>', 'text or json (one event per line)', parseOutput, 'text')
    .option(
      '--registry <NAME=HOST[:PORT]>',
      'a registry build and push steps can name (repeatable; the first is the default)',
      collect,
      [],
    )
    .option('--default-registry <name>', 'the registry of steps that name none')
    .option(
      '--registry-username <user>',
      'user of the registries (default: SLUICE_REGISTRY_USERNAME)',
    )
    .option(
      '--registry-password-stdin',
      "read the registries' password from standard input (default: SLUICE_REGISTRY_PASSWORD)",
    )
    .option('--approve', 'approve every pending-approval step')
    .option('--deny', 'deny every pending-approval step')
    .option(
      '--step-types <dir>',
      'a directory of step types (repeatable; also SLUICE_STEP_TYPES, .sluice/step-types)',
      collect,
      [],
    )
    .action(async (file: string | undefined, opts: Omit<RunOptions, 'cwd'>) => {
      const { runCommand } = await import('./commands/run.js');
      exitCode = await runCommand(term, config, file, { ...opts, cwd: process.cwd() });
    });

  program
    .command('validate')
    .description('Check a pipeline file and print every problem with file:line:column')
    .argument('[file]', 'pipeline file', undefined)
    .option('-o, --output <format>', 'text or json', parseOutput, 'text')
    .option(
      '--step-types <dir>',
      'a directory of step types (repeatable; also SLUICE_STEP_TYPES, .sluice/step-types)',
      collect,
      [],
    )
    .action(
      async (file: string | undefined, opts: { output: 'text' | 'json'; stepTypes: string[] }) => {
        const { validateCommand } = await import('./commands/validate.js');
        exitCode = validateCommand(term, file, {
          cwd: process.cwd(),
          output: opts.output,
          stepTypes: opts.stepTypes,
          stepTypeDirs: config.stepTypeDirs,
        });
      },
    );

  program
    .command('server')
    .description('Run the control plane (PGlite in --data-dir, or PostgreSQL with DATABASE_URL)')
    .option('--port <port>', 'port to listen on (default 8080)', (v) => Number(v))
    .option('--host <host>', 'address to listen on (default 127.0.0.1)')
    .option('--data-dir <dir>', 'data directory for the embedded database and the server key')
    .action(async (opts: { port?: number; host?: string; dataDir?: string }) => {
      const { serverCommand } = await import('./commands/server.js');
      exitCode = await serverCommand(term, opts);
    });

  program
    .command('engine')
    .description(
      'Run one build for the control plane (SLUICE_SERVER_URL, SLUICE_ENGINE_TOKEN); started by a runner agent',
    )
    .option(
      '--docker-host <url>',
      'Docker engine address (default: DOCKER_HOST or the local socket)',
    )
    .action(async (opts: { dockerHost?: string }) => {
      const { engineCommand } = await import('./commands/engine.js');
      exitCode = await engineCommand(term, config, opts);
    });

  const agent = program
    .command('agent')
    .description(
      'Run the runner agent: take the tasks of its runtimes from the control plane and carry them out on Kubernetes or this machine',
    )
    .action(async (opts: RunnerConfigInput) => {
      const { agentCommand } = await import('./commands/agent.js');
      exitCode = await agentCommand(term, opts, process.env);
    });

  program
    .command('up')
    .description(
      'Run everything on this machine: the control plane (embedded database), a local runtime and its agent',
    )
    .option('--demo', 'run a demo pipeline and follow its log')
    .option('--port <port>', 'port to listen on, 0 for any free one (default 8080)', (v) =>
      Number(v),
    )
    .option('--data-dir <dir>', 'where everything is kept (default $SLUICE_HOME or ~/.sluice)')
    .action(async (opts: UpOptions) => {
      const { upCommand } = await import('./commands/up.js');
      exitCode = await upCommand(term, opts, process.env);
    });

  const withServer = (cmd: Command) =>
    cmd
      .option('--server <url>', 'the Sluice server (default: SLUICE_SERVER)')
      .option('--token <token>', 'a user token (default: SLUICE_TOKEN)');
  const get = program.command('get').description('Show resources of a Sluice server');
  withServer(get.command('runtime-environments').alias('re').alias('runtime-environment'))
    .description('Runtime environments: all, or one by name')
    .argument('[name]', 'runtime environment name')
    .option('-o, --output <format>', 'table, yaml or json', parseFormat, 'table')
    .option('--extend', 'merge its extends parents')
    .option('--version <n>', 'a past version', (v) => Number(v))
    .action(
      async (
        name: string | undefined,
        opts: {
          output: OutputFormat;
          extend?: boolean;
          version?: number;
          server?: string;
          token?: string;
        },
      ) => {
        const { getRuntimeEnvironments } = await import('./commands/runtime-environments.js');
        exitCode = await getRuntimeEnvironments(term, name, {
          ...opts,
          ...serverContext(config, opts),
        });
      },
    );
  const patch = program
    .command('patch')
    .description('Change resources of a Sluice server from a file');
  withServer(patch.command('runtime-environment').alias('re').alias('runtime-environments'))
    .description('Apply a merge patch (YAML or JSON) to a runtime environment: a new version')
    .argument('<name>', 'runtime environment name')
    .requiredOption('-f, --filename <file>', 'the patch file, or - for standard input')
    .action(async (name: string, opts: { filename: string; server?: string; token?: string }) => {
      const { patchRuntimeEnvironment } = await import('./commands/runtime-environments.js');
      exitCode = await patchRuntimeEnvironment(
        term,
        name,
        opts.filename,
        serverContext(config, opts),
      );
    });

  addSettingsCommands({
    term,
    verbs: {
      get,
      create: program.command('create').description('Create resources of a Sluice server'),
      delete: program.command('delete').description('Delete resources of a Sluice server'),
    },
    withServer,
    parseFormat,
    server: (flags) => serverContext(config, flags),
    setExitCode: (code) => void (exitCode = code),
  });

  try {
    // The agent's flags come from @sluice/runner (their variables and defaults), which loads
    // the Kubernetes client. A command line whose first word names another command can neither
    // parse nor show them; any other needs them (the top-level help lists `agent [options]`).
    const first = argv[0] ?? '';
    const named = program.commands.find((c) => c.name() === first || c.aliases().includes(first));
    if (named === undefined || named === agent) {
      const { addAgentOptions } = await import('./commands/agent.js');
      addAgentOptions(agent);
    }
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    printError(
      term,
      describeError(err, { verbose }).replace(/\nhint: .*$/s, ''),
      isSluiceError(err) ? err.hint : undefined,
    );
    if (!isSluiceError(err) && !verbose && err instanceof Error && err.stack) term.err(err.stack);
    return exitCodeFor(err);
  }
}

process.exitCode = await main(process.argv.slice(2));
