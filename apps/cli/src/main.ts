/**
 * Composition root of the `sluice` command: builds the command tree, loads config once, runs
 * the command, and translates errors to exit codes and messages in one place. Each command's
 * module is imported only when that command runs: the server, the engine, the runner and their
 * dependencies (Fastify, PGlite, dockerode, the Kubernetes client) are heavy, and a long-running
 * `sluice agent`, a `sluice engine` started for every build or a quick `sluice get builds`
 * should not hold the others.
 * @module
 */
import type { Command } from 'commander';
import { addServerCommands, parseFormat } from './server-commands.js';
import { examples, HELP_GROUPS } from './cli-help.js';
import { createRootCommand, runCommandLine } from './cli-root.js';
import { loadConfig, serverContext } from './config.js';
import { addLocalCommands } from './local-commands.js';
import { addSettingsCommands } from './settings-commands.js';
import { addGitIntegrationCommands } from './git-integration-commands.js';
import { addUserCommands } from './user-commands.js';
import { createTerminal } from './ui/terminal.js';
import type { Terminal } from './ui/terminal.js';
import { CLI_VERSION } from './version.js';

type SetExitCode = (code: number) => void;
type Config = ReturnType<typeof loadConfig>;

/** The whole command tree; `setExitCode` receives each action's exit code. */
export function buildProgram(
  term: Terminal,
  config: Config,
  setExitCode: SetExitCode,
): { program: Command; agent: Command } {
  const program = createRootCommand(term);
  const agent = addLocalCommands({ program, term, config, setExitCode });
  addServerCommandGroups(program, term, config, setExitCode);
  addSetupCommands(program, term);
  orderHelpGroups(program);
  return { program, agent };
}

/** The commands against a server: server-commands.ts, settings, git integrations, users. */
function addServerCommandGroups(
  program: Command,
  term: Terminal,
  config: Config,
  setExitCode: SetExitCode,
): void {
  const withServer = (cmd: Command) =>
    cmd
      .option('--context <name>', 'use this context (default: SLUICE_CONTEXT, or the one in use)')
      .option('--server <url>', 'the Sluice server (default: SLUICE_SERVER, or the context)')
      .option('--token <token>', 'a user token (default: SLUICE_TOKEN, or the context)');
  const verbs = addManagementVerbs(program);
  const server = (flags: { server?: string; token?: string; context?: string }) =>
    serverContext(config, flags);
  addServerCommands({ program, term, config, verbs, withServer, server, setExitCode });
  addSettingsCommands({ term, verbs, withServer, parseFormat, server, setExitCode });
  addGitIntegrationCommands({ term, verbs, withServer, parseFormat, server, setExitCode });
  addUserCommands({ term, verbs, withServer, parseFormat, server, setExitCode });
}

/** `get`, `create`, `delete`, `patch` and `describe`: the build and settings commands add resources. */
function addManagementVerbs(program: Command) {
  const verb = (name: string, description: string, ...lines: string[]) =>
    examples(
      program.command(name).description(description).helpGroup(HELP_GROUPS.manage),
      ...lines,
    );
  return {
    get: verb(
      'get',
      'List resources, or show one (-o wide|yaml|json)',
      'sluice get builds',
      'sluice get pipelines -o yaml',
    ),
    create: verb(
      'create',
      'Create resources',
      'sluice create project web',
      'sluice create pipeline -f build.yaml',
    ),
    delete: verb('delete', 'Delete resources', 'sluice delete registry hub'),
    patch: verb('patch', 'Change resources from a file', 'sluice patch re local -f patch.yml'),
    describe: verb(
      'describe',
      'Show one resource in detail',
      'sluice describe build bld_0mf3...',
      'sluice describe step-type helm',
    ),
  };
}

/** `completion`, `version` and `help`. */
function addSetupCommands(program: Command, term: Terminal): void {
  examples(
    program
      .command('completion')
      .description('Print a shell completion script (bash or zsh)')
      .helpGroup(HELP_GROUPS.setup)
      .argument('<shell>', 'bash or zsh'),
    'source <(sluice completion bash)          # in ~/.bashrc',
    'sluice completion zsh > "${fpath[1]}/_sluice"',
  ).action(async (shell: string) => {
    const { completionScript } = await import('./commands/completion.js');
    term.out(completionScript(program, shell));
  });
  examples(
    program
      .command('version')
      .description('Print the version of this sluice')
      .helpGroup(HELP_GROUPS.setup),
    'sluice version',
  ).action(() => term.out(CLI_VERSION));
  // `help [command]` goes with the set-up commands.
  program
    .commandsGroup(HELP_GROUPS.setup)
    .helpCommand('help [command]', 'Show the help of a command');
}

/** The help lists the groups in task order. */
function orderHelpGroups(program: Command): void {
  const order: string[] = Object.values(HELP_GROUPS);
  (program.commands as Command[]).sort(
    (a, b) => order.indexOf(a.helpGroup()) - order.indexOf(b.helpGroup()),
  );
}

/**
 * The agent's flags come from @sluice/runner (their variables and defaults), which loads the
 * Kubernetes client: only `sluice agent` pays for them.
 */
async function addAgentOptionsWhenRun(agent: Command, argv: readonly string[]): Promise<void> {
  if (argv.find((word) => !word.startsWith('-')) !== agent.name()) return;
  const { addAgentOptions } = await import('./commands/agent.js');
  addAgentOptions(agent);
}

export async function main(argv: readonly string[]): Promise<number> {
  if (argv.length === 1 && argv[0] === 'engine') {
    // A standby engine while the engine bundle is stale: the engine loads and warms up, then
    // waits for its build (engine-entry.ts does the same from the bundle).
    const { awaitStandbyHandover } = await import('@sluice/engine/main');
    if (!(await awaitStandbyHandover())) return 0;
  }
  const config = loadConfig();
  const term = createTerminal({ color: config.color && !argv.includes('--no-color') });
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    term.out(CLI_VERSION);
    return 0;
  }
  let exitCode = 0;
  const { program, agent } = buildProgram(term, config, (code) => void (exitCode = code));
  return runCommandLine(program, {
    term,
    argv,
    exitCode: () => exitCode,
    prepare: async () => {
      if (argv.length === 0) {
        program.outputHelp();
        return false;
      }
      await addAgentOptionsWhenRun(agent, argv);
      return true;
    },
  });
}

process.exitCode = await main(process.argv.slice(2));
