/**
 * `sluice get git-integrations [NAME] [-o yaml|json]`, `sluice create git-integration NAME
 * --kind K (--token T | --token-stdin | --ssh-key-file F) [--url U] [--username U] [--default]`
 * and `sluice delete git-integration NAME`, kubectl style, through the control plane's API.
 * Tokens and keys go in and never come back.
 * @module
 */
import { readFileSync } from 'node:fs';
import { InputError } from '@sluice/errors';
import type { GitIntegration, GitIntegrationKind } from '@sluice/protocol';
import { readSecretStdin } from '../read-secret-stdin.js';
import type { Terminal } from '../ui/terminal.js';
import { printResources, serverClient } from './server-resources.js';
import type { OutputFormat, ServerOptions } from './server-resources.js';

const TABLE = {
  header: ['NAME', 'KIND', 'URL', 'USERNAME', 'AUTH', 'DEFAULT'],
  row: (i: GitIntegration) => [
    i.name,
    i.kind,
    i.url,
    i.username ?? '',
    i.auth,
    i.default ? 'yes' : '',
  ],
};

export async function getGitIntegrations(
  term: Terminal,
  name: string | undefined,
  options: ServerOptions & { output: OutputFormat },
): Promise<number> {
  const client = serverClient(options);
  const value =
    name === undefined
      ? (await client.call('listGitIntegrations')).items
      : await client.call('getGitIntegration', { params: { name } });
  printResources(term, value, options.output, TABLE);
  return 0;
}

export interface CreateGitIntegrationOptions extends ServerOptions {
  kind: GitIntegrationKind;
  url?: string;
  username?: string;
  /** `--git-token`: `--token` is the user token every server command takes. */
  gitToken?: string;
  tokenStdin?: boolean;
  sshKeyFile?: string;
  default?: boolean;
}

export async function createGitIntegration(
  term: Terminal,
  name: string,
  options: CreateGitIntegrationOptions,
  readStdin?: () => string,
): Promise<number> {
  const given = [options.gitToken, options.tokenStdin, options.sshKeyFile].filter(
    (v) => v !== undefined && v !== false,
  );
  if (given.length !== 1)
    throw new InputError(
      'SLUICE_CLI_BAD_GIT_INTEGRATION',
      'Give exactly one of --git-token, --token-stdin and --ssh-key-file',
      {
        hint: `printf %s "$TOKEN" | sluice create git-integration ${name} --kind github --token-stdin`,
      },
    );
  const token = options.tokenStdin ? readSecretStdin('--token-stdin', readStdin) : options.gitToken;
  const sshKey = options.sshKeyFile === undefined ? undefined : readKey(options.sshKeyFile);
  const created = await serverClient(options).call('createGitIntegration', {
    body: {
      name,
      kind: options.kind,
      url: options.url,
      username: options.username,
      token,
      sshKey,
      default: options.default ? true : undefined,
    },
  });
  term.out(`git-integration/${created.name} created${created.default ? ' (default)' : ''}`);
  return 0;
}

export async function deleteGitIntegration(
  term: Terminal,
  name: string,
  options: ServerOptions,
): Promise<number> {
  await serverClient(options).call('deleteGitIntegration', { params: { name } });
  term.out(`git-integration/${name} deleted`);
  return 0;
}

function readKey(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new InputError(
      'SLUICE_CLI_BAD_GIT_INTEGRATION',
      `--ssh-key-file: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
      { cause: err },
    );
  }
}
