/**
 * `sluice get users`, `create user NAME --role ROLE [--project P]...`, `patch user NAME
 * [--role ROLE] [--project P]... [--all-projects]` and `delete user NAME`: the account's users,
 * their roles and project grants (docs/access.md), through the control plane's API.
 * @module
 */
import { InputError } from '@sluice/errors';
import type { Role, User } from '@sluice/protocol';
import type { Terminal } from '../ui/terminal.js';
import { formatAge } from '../ui/terminal.js';
import { readSecretStdin } from '../read-secret-stdin.js';
import { printResources, serverClient } from './server-resources.js';
import type { OutputFormat, ServerOptions } from './server-resources.js';

const TABLE = {
  header: ['NAME', 'ROLE', 'PROJECTS', 'AGE'],
  row: (u: User) => [u.name, u.role, grantsText(u), formatAge(u.createdAt)],
};

function grantsText(user: User): string {
  if (user.role === 'admin' || user.projects === null) return '*';
  return user.projects.length === 0 ? '(none)' : user.projects.join(',');
}

export async function getUsers(
  term: Terminal,
  options: ServerOptions & { output: OutputFormat },
): Promise<number> {
  const { items } = await serverClient(options).call('listUsers');
  printResources(term, items, options.output, TABLE);
  return 0;
}

export interface UserFlags {
  role?: Role;
  project?: string[];
  allProjects?: boolean;
  /** Read a password for the web UI's sign-in from standard input. */
  passwordStdin?: boolean;
}

function passwordOf(options: UserFlags): string | undefined {
  return options.passwordStdin ? readSecretStdin('--password-stdin') : undefined;
}

export async function createUser(
  term: Terminal,
  name: string,
  options: ServerOptions & UserFlags & { role: Role },
): Promise<number> {
  const user = await serverClient(options).call('createUser', {
    body: { name, role: options.role, projects: grants(options), password: passwordOf(options) },
  });
  term.out(
    `user/${user.name} created (${user.role}, projects: ${grantsText(user)}${user.hasPassword ? ', with a password' : ''})`,
  );
  term.err(term.paint('dim', `Give them a token: sluice create token --user ${user.name}`));
  return 0;
}

export async function patchUser(
  term: Terminal,
  name: string,
  options: ServerOptions & UserFlags,
): Promise<number> {
  const projects = grants(options);
  if (options.role === undefined && projects === undefined && options.passwordStdin !== true)
    throw new InputError('SLUICE_CLI_PATCH_EMPTY', `Nothing to change for user "${name}"`, {
      hint: 'Pass --role, --project (repeatable), --all-projects or --password-stdin',
    });
  const user = await serverClient(options).call('updateUser', {
    params: { name },
    body: { role: options.role, projects, password: passwordOf(options) },
  });
  term.out(`user/${user.name} changed (${user.role}, projects: ${grantsText(user)})`);
  return 0;
}

export async function deleteUser(
  term: Terminal,
  name: string,
  options: ServerOptions,
): Promise<number> {
  await serverClient(options).call('deleteUser', { params: { name } });
  term.out(`user/${name} deleted; their tokens no longer work`);
  return 0;
}

/** `--project` (repeatable) limits to those; `--all-projects` lifts the limit; neither: unchanged. */
function grants(options: UserFlags): string[] | null | undefined {
  const projects = options.project ?? [];
  if (options.allProjects && projects.length > 0)
    throw new InputError(
      'SLUICE_CLI_CONFLICTING_FLAGS',
      `--all-projects and --project ${projects.join(', ')} contradict each other`,
      { hint: 'Pass one of them' },
    );
  if (options.allProjects) return null;
  return projects.length > 0 ? projects : undefined;
}
