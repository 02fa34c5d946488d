/**
 * Composition root of the `sluice` command: parses the command line, loads config once, runs
 * the command, and translates errors to exit codes and messages in one place.
 * @module
 */
import { Command, CommanderError } from 'commander';
import { describeError, exitCodeFor, InputError, isSluiceError } from '@sluice/errors';
import { loadConfig, serverContext } from './config.js';
import { parseOutput, runCommand } from './commands/run.js';
import { validateCommand } from './commands/validate.js';
import { serverCommand } from './commands/server.js';
import { engineCommand } from './commands/engine.js';
import { addAgentOptions, agentCommand } from './commands/agent.js';
import { upCommand } from './commands/up.js';
import type { UpOptions } from './commands/up.js';
import type { RunnerConfigInput } from '@sluice/runner';
import {
  getRuntimeEnvironments,
  patchRuntimeEnvironment,
} from './commands/runtime-environments.js';
import type { OutputFormat } from './commands/runtime-environments.js';
import { printError } from './ui/print-issues.js';
import { createTerminal } from './ui/terminal.js';
import type { RunOptions } from './commands/run.js';

const collect = (value: string, previous: string[]) => [...previous, value];

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
    .action(async (file: string | undefined, opts: Omit<RunOptions, 'cwd'>) => {
      exitCode = await runCommand(term, config, file, { ...opts, cwd: process.cwd() });
    });

  program
    .command('validate')
    .description('Check a pipeline file and print every problem with file:line:column')
    .argument('[file]', 'pipeline file', undefined)
    .option('-o, --output <format>', 'text or json', parseOutput, 'text')
    .action((file: string | undefined, opts: { output: 'text' | 'json' }) => {
      exitCode = validateCommand(term, file, { cwd: process.cwd(), output: opts.output });
    });

  program
    .command('server')
    .description('Run the control plane (PGlite in --data-dir, or PostgreSQL with DATABASE_URL)')
    .option('--port <port>', 'port to listen on (default 8080)', (v) => Number(v))
    .option('--host <host>', 'address to listen on (default 127.0.0.1)')
    .option('--data-dir <dir>', 'data directory for the embedded database and the server key')
    .action(async (opts: { port?: number; host?: string; dataDir?: string }) => {
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
      exitCode = await engineCommand(term, config, opts);
    });

  addAgentOptions(
    program
      .command('agent')
      .description(
        'Run the runner agent: take the tasks of its runtimes from the control plane and carry them out on Kubernetes or this machine',
      ),
  ).action(async (opts: RunnerConfigInput) => {
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
      exitCode = await patchRuntimeEnvironment(
        term,
        name,
        opts.filename,
        serverContext(config, opts),
      );
    });

  try {
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
