/**
 * Composition root of the `sluice` command: parses the command line, loads config once, runs
 * the command, and translates errors to exit codes and messages in one place.
 * @module
 */
import { Command, CommanderError } from 'commander';
import { describeError, exitCodeFor, isSluiceError } from '@sluice/errors';
import { loadConfig } from './config.js';
import { parseOutput, runCommand } from './commands/run.js';
import { validateCommand } from './commands/validate.js';
import { serverCommand } from './commands/server.js';
import { printError } from './ui/print-issues.js';
import { createTerminal } from './ui/terminal.js';
import type { RunOptions } from './commands/run.js';

const collect = (value: string, previous: string[]) => [...previous, value];

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
