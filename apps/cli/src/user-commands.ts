/**
 * The command-line shape of the access commands (docs/access.md): `get|create|patch|delete
 * user`, `get|create|delete token` and `get audit`; each action's module is imported only when
 * it runs, like every command of main.ts.
 * @module
 */
import { InputError } from '@sluice/errors';
import type { Role, TokenScope } from '@sluice/protocol';
import type { OutputFormat } from './commands/server-resources.js';
import type { CreateTokenFlags } from './commands/tokens.js';
import type { UserFlags } from './commands/users.js';
import { examples } from './cli-help.js';
import { terminalColumns } from './settings-commands.js';
import type { SettingsCommandsContext } from './settings-commands.js';

interface ServerFlags {
  server?: string;
  token?: string;
  context?: string;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function oneOf<T extends string>(flag: string, allowed: readonly T[]) {
  return (value: string): T => {
    const found = allowed.find((a) => a === value);
    if (found === undefined)
      throw new InputError(
        'SLUICE_CLI_BAD_CHOICE',
        `${flag} must be one of ${allowed.join(', ')}, got "${value}"`,
      );
    return found;
  };
}

const parseRole = oneOf<Role>('--role', ['admin', 'member', 'viewer']);
const parseScope = oneOf<TokenScope>('--scope', ['read', 'run', 'admin']);

export function addUserCommands(ctx: SettingsCommandsContext): void {
  addUsers(ctx);
  addTokens(ctx);
  const { term, verbs, withServer } = ctx;
  examples(
    withServer(verbs.get.command('events').aliases(['audit', 'audit-events']))
      .description(
        'The audit log: who did what, newest first: changes, refusals, sign-ins (administrators)',
      )
      .option('--since <duration>', 'only events this recent: 90s, 15m, 1h, 30d, 2w')
      .option('--user <name>', "only this user's events")
      .option('--action <kind>', 'only events of this kind: createProject, signIn, …')
      .option('--limit <n>', 'at most this many (1 to 200)', (v) => Number(v), 50)
      .option('-o, --output <format>', 'table, wide, yaml or json', ctx.parseFormat, 'table'),
    'sluice get events --since 1h',
    'sluice get events --user alice --action signIn -o wide',
    'sluice get audit --since 1d   # the same',
  ).action(
    async (
      opts: ServerFlags & {
        since?: string;
        user?: string;
        action?: string;
        limit: number;
        output: OutputFormat;
      },
    ) => {
      const { getAudit } = await import('./commands/audit.js');
      ctx.setExitCode(
        await getAudit(term, { ...opts, ...ctx.server(opts), columns: terminalColumns() }),
      );
    },
  );
}

function addUsers(ctx: SettingsCommandsContext): void {
  const { term, verbs, withServer } = ctx;
  const grantOptions = (cmd: ReturnType<typeof withServer>) =>
    cmd
      .option('--project <name>', 'limit a member or viewer to this project (repeatable)', collect)
      .option('--all-projects', 'lift the limit: every project')
      .option('--password-stdin', "read the user's password for the web UI from standard input");
  examples(
    withServer(verbs.get.command('users').alias('user'))
      .description("The account's users: role and projects (administrators)")
      .option('-o, --output <format>', 'table, yaml or json', ctx.parseFormat, 'table'),
    'sluice get users',
  ).action(async (opts: ServerFlags & { output: OutputFormat }) => {
    const { getUsers } = await import('./commands/users.js');
    ctx.setExitCode(await getUsers(term, { ...opts, ...ctx.server(opts) }));
  });
  examples(
    grantOptions(
      withServer(verbs.create.command('user'))
        .description('Add a user (a colleague, or a robot for automation) with a role')
        .argument('<name>', 'user name: lowercase, may be an e-mail address')
        .requiredOption('--role <role>', 'admin, member or viewer', parseRole),
    ),
    'sluice create user alice --role member',
    'sluice create user deploy-bot --role member --project web',
    'printf %s "$PASSWORD" | sluice create user alice --role member --password-stdin',
  ).action(async (name: string, opts: ServerFlags & UserFlags & { role: Role }) => {
    const { createUser } = await import('./commands/users.js');
    ctx.setExitCode(await createUser(term, name, { ...opts, ...ctx.server(opts) }));
  });
  examples(
    grantOptions(
      withServer(verbs.patch.command('user'))
        .description("Change a user's role or projects; their tokens follow at once")
        .argument('<name>', 'user name')
        .option('--role <role>', 'admin, member or viewer', parseRole),
    ),
    'sluice patch user alice --role viewer',
    'sluice patch user alice --project web --project api',
    'sluice patch user alice --password-stdin < new-password',
  ).action(async (name: string, opts: ServerFlags & UserFlags) => {
    const { patchUser } = await import('./commands/users.js');
    ctx.setExitCode(await patchUser(term, name, { ...opts, ...ctx.server(opts) }));
  });
  examples(
    withServer(verbs.delete.command('user').alias('users'))
      .description('Remove a user; their tokens stop working at once')
      .argument('<name>', 'user name'),
    'sluice delete user alice',
  ).action(async (name: string, opts: ServerFlags) => {
    const { deleteUser } = await import('./commands/users.js');
    ctx.setExitCode(await deleteUser(term, name, ctx.server(opts)));
  });
}

function addTokens(ctx: SettingsCommandsContext): void {
  const { term, verbs, withServer } = ctx;
  examples(
    withServer(verbs.get.command('tokens').alias('token'))
      .description("Your API tokens, or (administrators) another user's; never their values")
      .option('--user <name>', "another user's tokens")
      .option('-o, --output <format>', 'table, yaml or json', ctx.parseFormat, 'table'),
    'sluice get tokens',
    'sluice get tokens --user deploy-bot',
  ).action(async (opts: ServerFlags & { user?: string; output: OutputFormat }) => {
    const { getTokens } = await import('./commands/tokens.js');
    ctx.setExitCode(
      await getTokens(term, { ...opts, ...ctx.server(opts), columns: terminalColumns() }),
    );
  });
  examples(
    withServer(verbs.create.command('token'))
      .description('Create an API token; prints its value once (stdout), nothing else')
      .argument('[name]', 'what it is for', 'cli')
      .option(
        '--scope <scope>',
        "read, run or admin: the most of the user's rights it carries (default: all of them)",
        parseScope,
      )
      .option('--expires <duration>', 'expire after this long: 12h, 30d, 2w (default: never)')
      .option('--user <name>', 'for another user or a robot (administrators)'),
    'sluice create token laptop --expires 30d > token',
    'sluice create token deploys --user deploy-bot --scope run --expires 90d',
  ).action(async (name: string, opts: ServerFlags & CreateTokenFlags) => {
    const { createToken } = await import('./commands/tokens.js');
    ctx.setExitCode(await createToken(term, name, { ...opts, ...ctx.server(opts) }));
  });
  examples(
    withServer(verbs.delete.command('token').alias('tokens'))
      .description('Revoke a token: it stops working at once')
      .argument('<id>', 'token id (sluice get tokens)'),
    'sluice delete token tok_0mf3...',
  ).action(async (id: string, opts: ServerFlags) => {
    const { deleteToken } = await import('./commands/tokens.js');
    ctx.setExitCode(await deleteToken(term, id, ctx.server(opts)));
  });
}
