/**
 * Refuses a command line whose command words are not commands, before anything runs and
 * whatever flags follow (`--help` included): `sluice gt builds` is exit 2 with "Did you mean
 * get?", never the top-level help and exit 0. A group given no command (`sluice get`) is also
 * an error that lists its commands.
 * @module
 */
import type { Command } from 'commander';
import { closest, InputError } from '@sluice/errors';

export function checkCommandWords(program: Command, argv: readonly string[]): void {
  let cmd = program;
  let path = 'sluice';
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] ?? '';
    if (word === '--') return;
    if (word.startsWith('-')) {
      if (!word.includes('=') && takesValue(cmd, word)) i++;
      continue;
    }
    if (cmd.commands.length === 0) return;
    if (word === 'help') return;
    const next = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (next === undefined) throw unknown(cmd, path, word);
    cmd = next;
    path = `${path} ${next.name()}`;
  }
  const asksHelp = argv.includes('--help') || argv.includes('-h');
  if (cmd !== program && cmd.commands.length > 0 && !asksHelp) {
    throw new InputError(
      'SLUICE_CLI_NO_COMMAND',
      `${path} needs one of: ${names(cmd).join(', ')}`,
      {
        hint: `See ${path} --help`,
      },
    );
  }
}

function takesValue(cmd: Command, flag: string): boolean {
  const option = [cmd, ...ancestors(cmd)]
    .flatMap((c) => c.options)
    .find((o) => o.long === flag || o.short === flag);
  return option !== undefined && (option.required || option.optional);
}

function ancestors(cmd: Command): Command[] {
  const out: Command[] = [];
  for (let c = cmd.parent; c !== null; c = c.parent) out.push(c);
  return out;
}

function names(cmd: Command): string[] {
  return cmd.commands.map((c) => c.name());
}

function unknown(cmd: Command, path: string, word: string): InputError {
  const known = cmd.commands.flatMap((c) => [c.name(), ...c.aliases()]);
  const near = closest(word, known);
  return new InputError('SLUICE_CLI_UNKNOWN_COMMAND', `Unknown command "${word}" for "${path}"`, {
    hint: near
      ? `Did you mean "${path} ${near}"? See ${path} --help`
      : `${path} has: ${names(cmd).join(', ')}`,
  });
}
