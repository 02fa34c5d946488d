/**
 * How `sluice --help` is laid out: commands grouped by task, and an `Examples:` block under
 * every command's own help.
 * @module
 */
import type { Command } from 'commander';

export const HELP_GROUPS = {
  run: 'Run builds:',
  manage: 'Manage pipelines and settings:',
  local: 'Local use:',
  services: 'Run the control plane and runners:',
  setup: 'Set up:',
} as const;

/** `Examples:` followed by one `$ sluice …` line each. */
export function exampleText(lines: readonly string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}`;
}

export function examples(cmd: Command, ...lines: string[]): Command {
  return cmd.addHelpText('after', exampleText(lines));
}
