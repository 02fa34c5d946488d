/**
 * `sluice completion bash|zsh`: a completion script made from the command tree itself, so it
 * never falls behind the commands: command words (aliases too) at each level, and each
 * command's flags after a `-`. zsh runs the bash function through bashcompinit.
 * @module
 */
import type { Command } from 'commander';
import { InputError } from '@sluice/errors';

interface Level {
  path: string;
  words: string[];
  flags: string[];
}

export function completionScript(program: Command, shell: string): string {
  if (shell !== 'bash' && shell !== 'zsh')
    throw new InputError('SLUICE_CLI_BAD_SHELL', `No completion for "${shell}": use bash or zsh`);
  const levels = collect(program, '');
  const cases = (pick: (l: Level) => string[]) =>
    levels.map((l) => `    ${quote(l.path)}) echo ${quote(pick(l).join(' '))} ;;`).join('\n');
  const bash = `# sluice completion for bash: source <(sluice completion bash)
__sluice_words() {
  case "$1" in
${cases((l) => l.words)}
  esac
}
__sluice_flags() {
  case "$1" in
${cases((l) => l.flags)}
  esac
}
_sluice() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" word i
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    [[ $word == -* ]] && continue
    if [[ " $(__sluice_words "$path") " == *" $word "* ]]; then path="\${path:+$path }$word"; fi
  done
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(__sluice_flags "$path")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(__sluice_words "$path")" -- "$cur"))
  fi
}
complete -F _sluice sluice
`;
  if (shell === 'bash') return bash.trimEnd();
  return `#compdef sluice
# sluice completion for zsh: sluice completion zsh > "\${fpath[1]}/_sluice"
autoload -U +X bashcompinit && bashcompinit
${bash}`.trimEnd();
}

/** Every command path (under each of its names) with its command words and flags. */
function collect(cmd: Command, path: string): Level[] {
  const words = cmd.commands.flatMap((c) => [c.name(), ...c.aliases()]);
  const flags = [...cmd.options.flatMap((o) => [o.long, o.short]), '--help'].filter(
    (f): f is string => typeof f === 'string',
  );
  const levels: Level[] = [{ path, words, flags }];
  for (const sub of cmd.commands)
    for (const name of [sub.name(), ...sub.aliases()])
      levels.push(...collect(sub, path === '' ? name : `${path} ${name}`));
  return levels;
}

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
