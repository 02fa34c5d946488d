/**
 * What every entry point of the command tree shares: `sluice` itself (its global options, and
 * Commander's output through the terminal) and running a command line, with errors translated
 * to exit codes and messages in one place. main.ts runs the whole tree through it, and
 * agent-entry.ts (the agent bundle's entry) the commands of this machine only.
 * @module
 */
import { Command, CommanderError } from 'commander';
import { checkCommandWords } from './command-words.js';
import { reportCommandError } from './ui/command-error.js';
import type { Terminal } from './ui/terminal.js';

/** `sluice` itself: its global options, and Commander's output through the terminal. */
export function createRootCommand(term: Terminal): Command {
  const program = new Command('sluice')
    .description('Self-hosted CI/CD for codefresh.yml pipelines')
    .usage('<command> [options]   (sluice --version prints the version)')
    .option('-v, --verbose', 'print the cause of errors')
    .option('--no-color', 'plain text, no colours (also NO_COLOR=1, or when not a terminal)')
    .exitOverride()
    .configureOutput({
      writeErr: (s) => term.err(s.trimEnd()),
      writeOut: (s) => term.out(s.trimEnd()),
    });
  program.addHelpText(
    'after',
    '\nStart with: sluice up --demo, then sluice auth create-context (see sluice auth --help).\nEach command has examples: sluice <command> --help',
  );
  return program;
}

export interface RunCommandLineOptions {
  term: Terminal;
  argv: readonly string[];
  /** The exit code the action set, read once it is done. */
  exitCode: () => number;
  /** Runs after the command words were checked; false ends with 0 without parsing. */
  prepare?: () => Promise<boolean>;
}

/** Parses `argv` and runs its action; the exit code, or that of the error it threw. */
export async function runCommandLine(
  program: Command,
  options: RunCommandLineOptions,
): Promise<number> {
  const { term, argv } = options;
  try {
    checkCommandWords(program, argv);
    if (options.prepare !== undefined && !(await options.prepare())) return 0;
    await program.parseAsync(argv, { from: 'user' });
    return options.exitCode();
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    const verbose = argv.includes('-v') || argv.includes('--verbose');
    return reportCommandError(term, err, verbose);
  }
}
