/**
 * The flags of `sluice provisioner` and `sluice volume-agent`: one per variable of their
 * `@sluice/config` schema, its help naming the variable. Apart from `provisioner.ts` so adding
 * them loads no Kubernetes client.
 * @module
 */
import type { Command } from 'commander';
import { variableMeta } from '@sluice/config';
import type { EnvShape } from '@sluice/config';

/** `--storage-class` → the key commander gives its value: `storageClass`. */
function optionKey(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

export function addEnvOptions(command: Command, shape: EnvShape): Command {
  for (const [name, schema] of Object.entries(shape)) {
    const meta = variableMeta(schema);
    if (meta.flag !== undefined)
      command.option(`--${meta.flag} <value>`, `${schema.description ?? ''} [${name}]`);
  }
  return command;
}

/** The flags given, under their variables' names. */
export function flagsByVariable(
  shape: EnvShape,
  opts: Record<string, string | undefined>,
): Record<string, string> {
  const flags: Record<string, string> = {};
  for (const [name, schema] of Object.entries(shape)) {
    const flag = variableMeta(schema).flag;
    const value = flag === undefined ? undefined : opts[optionKey(flag)];
    if (value !== undefined) flags[name] = value;
  }
  return flags;
}
