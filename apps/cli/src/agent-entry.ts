/**
 * `sluice agent` without the server commands: the entry point of the agent bundle
 * (scripts/bundle-engine.mjs) that bin/sluice-agent.js runs when it is fresh. The agent is the
 * one `sluice` process that stays resident, so what it loads is memory it holds: the bundle is
 * one minified file with the agent's code (the local backend's in a chunk of its own, loaded for
 * a local runtime only), and the command tree is the commands of this machine, not the
 * kubectl-style verbs and their modules: about 3 MiB less resident than through main.ts
 * (bench/agent). The flags, the help, the output and the exit codes are those of `sluice agent`
 * through main.ts.
 * @module
 */
import { createRootCommand, runCommandLine } from './cli-root.js';
import { addAgentOptions } from './commands/agent.js';
import { loadConfig } from './config.js';
import { addLocalCommands } from './local-commands.js';
import { createTerminal } from './ui/terminal.js';

/** Runs `sluice agent` with `args`, the words after `agent`. */
export async function agentEntry(args: readonly string[]): Promise<number> {
  const argv = ['agent', ...args];
  const config = loadConfig();
  const term = createTerminal({ color: config.color && !argv.includes('--no-color') });
  let exitCode = 0;
  const program = createRootCommand(term);
  const setExitCode = (code: number) => void (exitCode = code);
  const agent = addLocalCommands({ program, term, config, setExitCode });
  addAgentOptions(agent);
  return runCommandLine(program, { term, argv, exitCode: () => exitCode });
}
