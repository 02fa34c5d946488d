/**
 * `sluice engine` without the command tree: the entry point of the engine bundle
 * (scripts/bundle-engine.mjs) that bin/sluice.js runs for a bare `sluice engine`, which is how
 * the local runtime starts the engine of every build. One file, with none of the other
 * commands' modules and none of the Docker client's unused transports (SSH, BuildKit
 * sessions), starts in about a third of the time the command tree takes to load
 * (bench/local-start). The configuration, the output and the exit codes are those of
 * `sluice engine` through main.ts. Started by an agent as a standby (with an IPC channel), it
 * loads first and then waits for its build's environment (engine-handover.ts).
 * @module
 */
import { engineCommand } from './commands/engine.js';
import { loadConfig } from './config.js';
import { awaitEngineHandover } from './engine-handover.js';
import { warmUpEngine } from './engine-warm-up.js';
import { reportCommandError } from './ui/command-error.js';
import { createTerminal } from './ui/terminal.js';

export async function engineMain(): Promise<number> {
  // A standby engine of the local runtime: loaded, it waits here for its build.
  if (!(await awaitEngineHandover(warmUpEngine))) return 0;
  const config = loadConfig();
  const term = createTerminal({ color: config.color });
  try {
    return await engineCommand(term, config, {});
  } catch (err) {
    return reportCommandError(term, err, false);
  }
}
