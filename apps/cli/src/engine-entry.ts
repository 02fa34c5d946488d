/**
 * `sluice engine` without the command tree: the entry point of the engine bundle
 * (scripts/bundle-engine.mjs) that bin/sluice.js runs for a bare `sluice engine`, which is how
 * the local runtime starts the engine of every build. One file, with none of the other
 * commands' modules and none of the Docker client's unused transports (SSH, BuildKit
 * sessions), starts in about a third of the time the command tree takes to load
 * (bench/local-start). The engine's process is `@sluice/engine/main`; this composes it as the
 * `engine` command of main.ts does: a standby first waits for its build, then the terminal, and
 * errors translated to exit codes, so `sluice engine` fails the same way from either.
 * @module
 */
import { awaitStandbyHandover, engineMain } from '@sluice/engine/main';
import { loadConfig } from './config.js';
import { reportCommandError } from './ui/command-error.js';
import { createTerminal, processOutput } from './ui/terminal.js';

export async function engineEntry(): Promise<number> {
  // A standby engine of the local runtime: loaded, it waits here for its build.
  if (!(await awaitStandbyHandover())) return 0;
  const config = loadConfig();
  const term = createTerminal({ color: config.color });
  try {
    return await engineMain({ output: processOutput(term) });
  } catch (err) {
    return reportCommandError(term, err, false);
  }
}
