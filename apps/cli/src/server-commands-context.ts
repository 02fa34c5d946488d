/**
 * What the server commands' builders share (server-commands.ts and the `runner` commands it
 * adds): the program, the terminal, the config, the verbs and the server flags. A module of its
 * own, so those builders need not import each other to name it.
 * @module
 */
import type { Command } from 'commander';
import type { CliConfig } from './config.js';
import type { ServerOptions } from './commands/server-resources.js';
import type { Terminal } from './ui/terminal.js';

export interface ServerFlags {
  server?: string;
  token?: string;
  context?: string;
}

export interface ServerCommandsContext {
  program: Command;
  term: Terminal;
  config: Readonly<CliConfig>;
  verbs: { get: Command; create: Command; delete: Command; describe: Command };
  /** Adds --server, --token and --context. */
  withServer: (cmd: Command) => Command;
  server: (flags: ServerFlags) => ServerOptions;
  setExitCode: (code: number) => void;
}
