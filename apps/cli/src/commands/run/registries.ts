/**
 * The registries of a local run from `sluice run --registry NAME=HOST[:PORT]` (repeatable): the
 * first is the default unless `--default-registry NAME` names another; every registry shares the
 * credentials given by flag or environment. Passwords are masked in the build's output.
 * @module
 */
import { InputError } from '@sluice/errors';
import type { RegistrySetting } from '@sluice/engine';
import { RegistryDomain } from '@sluice/protocol';

export type { RegistrySetting };

export interface RegistryFlags {
  /** `NAME=HOST[:PORT]` values of `--registry`. */
  registry: readonly string[];
  defaultRegistry?: string;
  username?: string;
  password?: string;
}

const NAME = /^[A-Za-z0-9][\w.-]*$/;

export function parseRegistryFlags(flags: RegistryFlags): RegistrySetting[] {
  const registries: RegistrySetting[] = [];
  for (const value of flags.registry) {
    const eq = value.indexOf('=');
    const name = eq > 0 ? value.slice(0, eq) : '';
    const domain = eq > 0 ? value.slice(eq + 1) : '';
    if (!NAME.test(name) || !RegistryDomain.safeParse(domain).success)
      throw new InputError(
        'SLUICE_CLI_BAD_REGISTRY',
        `--registry expects NAME=HOST[:PORT], got "${value}"`,
        { hint: 'Write --registry local=localhost:5000 (no scheme, no path)' },
      );
    if (registries.some((r) => r.name === name))
      throw new InputError('SLUICE_CLI_BAD_REGISTRY', `--registry names "${name}" twice`);
    registries.push({
      name,
      domain,
      ...(flags.username === undefined ? {} : { username: flags.username }),
      ...(flags.password === undefined ? {} : { password: flags.password }),
    });
  }
  const wanted = flags.defaultRegistry ?? registries[0]?.name;
  if (wanted !== undefined && !registries.some((r) => r.name === wanted))
    throw new InputError(
      'SLUICE_CLI_UNKNOWN_REGISTRY',
      `--default-registry names "${wanted}", which no --registry defines`,
      { hint: `Add --registry ${wanted}=HOST[:PORT]` },
    );
  return registries.map((r) => ({ ...r, default: r.name === wanted }));
}
