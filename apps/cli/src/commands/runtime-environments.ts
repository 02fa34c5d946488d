/**
 * `sluice get re [NAME] -o yaml|json` and `sluice patch re NAME -f FILE|--default`, kubectl
 * style, through the control plane's API. A patch file is a JSON merge patch written in YAML or
 * JSON; a YAML mistake is reported with file:line:column before anything is sent.
 * @module
 */
import { readFileSync } from 'node:fs';
import { InputError } from '@sluice/errors';
import type { RuntimeEnvironment } from '@sluice/protocol';
import type { Terminal } from '../ui/terminal.js';
import { readYamlDocument } from '../yaml-file.js';
import { printResources, serverClient } from './server-resources.js';
import type { OutputFormat, ServerOptions } from './server-resources.js';

export interface GetRuntimeOptions extends ServerOptions {
  output: OutputFormat;
  extend?: boolean;
  version?: number;
}

export async function getRuntimeEnvironments(
  term: Terminal,
  name: string | undefined,
  options: GetRuntimeOptions,
): Promise<number> {
  const client = serverClient(options);
  if (name === undefined) {
    const { items } = await client.call('listRuntimeEnvironments');
    print(term, items, options.output);
    return 0;
  }
  const query = {
    extend: options.extend ? ('true' as const) : undefined,
    version: options.version,
  };
  print(
    term,
    await client.call('getRuntimeEnvironment', { params: { name }, query }),
    options.output,
  );
  return 0;
}

function print(
  term: Terminal,
  value: RuntimeEnvironment | RuntimeEnvironment[],
  output: OutputFormat,
): void {
  printResources(term, value, output, {
    header: ['NAME', 'VERSION', 'DEFAULT', 'DESCRIPTION'],
    row: (re) => [re.name, String(re.version), re.isDefault ? 'yes' : '', re.description ?? ''],
  });
}

/** `patch re NAME`: a merge patch from `-f FILE`, then `--default`; at least one of them. */
export async function patchRuntimeEnvironment(
  term: Terminal,
  name: string,
  change: { filename?: string; default?: boolean },
  options: ServerOptions,
): Promise<number> {
  if (change.filename === undefined && !change.default)
    throw new InputError('SLUICE_CLI_PATCH_EMPTY', 'Nothing to patch: pass -f FILE or --default', {
      hint: `e.g. sluice patch re ${name} -f patch.yml, or sluice patch re ${name} --default`,
    });
  // The file is read and checked before anything is sent.
  const patch = change.filename === undefined ? undefined : readPatchFile(change.filename);
  const client = serverClient(options);
  if (patch !== undefined) {
    const updated = await client.call('patchRuntimeEnvironment', {
      params: { name },
      body: { patch },
    });
    term.out(`runtime-environment/${updated.name} patched (version ${updated.version})`);
  }
  if (change.default) {
    await client.call('setDefaultRuntimeEnvironment', { params: { name } });
    term.out(`runtime-environment/${name} is the account's default`);
  }
  return 0;
}

function readPatchFile(file: string): Record<string, unknown> {
  const text = file === '-' ? readFileSync(0, 'utf8') : readFileSync(file, 'utf8');
  const read = readYamlDocument(text, file);
  if (!read.ok) throw new InputError('SLUICE_CLI_PATCH_INVALID', read.problem);
  const value = read.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InputError(
      'SLUICE_CLI_PATCH_INVALID',
      `${file}: a patch must be a map of the fields to change`,
    );
  }
  return value as Record<string, unknown>;
}
