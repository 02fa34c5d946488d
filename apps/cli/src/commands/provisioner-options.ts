/**
 * `sluice provisioner`'s flags, one per variable of `provisionerEnv`, its help naming the
 * variable. Apart from `provisioner.ts` so adding them loads no Kubernetes client.
 * @module
 */
import type { Command } from 'commander';
import { provisionerEnv, variableMeta } from '@sluice/config';

/** `--storage-class` → the key commander gives its value: `storageClass`. */
export function optionKey(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

export function addProvisionerOptions(command: Command): Command {
  for (const [name, schema] of Object.entries(provisionerEnv)) {
    const meta = variableMeta(schema);
    if (meta.flag !== undefined)
      command.option(`--${meta.flag} <value>`, `${schema.description ?? ''} [${name}]`);
  }
  return command;
}
