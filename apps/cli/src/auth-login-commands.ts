/**
 * The command-line shape of `sluice auth login`, `auth status` and `auth logout` (signing the
 * CLI in through the browser: docs/cli.md); the action's module is imported only when it runs.
 * @module
 */
import { InputError } from '@sluice/errors';
import type { TokenScope } from '@sluice/protocol';
import type { Command } from 'commander';
import { examples } from './cli-help.js';
import type { ServerCommandsContext, ServerFlags } from './server-commands-context.js';

function parseScope(value: string): TokenScope {
  if (value === 'read' || value === 'run' || value === 'admin') return value;
  throw new InputError(
    'SLUICE_CLI_BAD_CHOICE',
    `--scope must be one of read, run, admin, got "${value}"`,
  );
}

export function addAuthLoginCommands(auth: Command, ctx: ServerCommandsContext): void {
  const { term, config, setExitCode, withServer, server } = ctx;
  const files = { file: config.contextFile, ownDirectory: config.contextDirOwned };
  examples(
    auth
      .command('login')
      .description(
        'Sign in through the browser (single sign-on or the password page) and store a token in a context',
      )
      .argument('[url]', "the Sluice server; the current context's when left out")
      .option('--context <name>', 'the context to store it in (default: the server host)')
      .option('--no-browser', 'only print the link, for a machine without a browser')
      .option('--scope <scope>', "read, run or admin (default: the user's role)", parseScope)
      .option('--expires <duration>', 'how long the token lives: 12h, 30d, 2w (default 30d)'),
    'sluice auth login https://ci.example.com',
    'sluice auth login https://ci.example.com --no-browser --scope read',
  ).action(
    async (
      url: string | undefined,
      opts: { context?: string; browser: boolean; scope?: TokenScope; expires?: string },
    ) => {
      const { login } = await import('./commands/auth-login.js');
      setExitCode(await login(term, { ...files, ...opts, url, noBrowser: !opts.browser }));
    },
  );
  examples(
    withServer(auth.command('status').description('Who the CLI is signed in as, and where')),
    'sluice auth status',
  ).action(async (opts: ServerFlags) => {
    const { authStatus } = await import('./commands/auth-login.js');
    setExitCode(await authStatus(term, server(opts)));
  });
  examples(
    withServer(
      auth.command('logout').description("Revoke the context's token and forget the context"),
    ),
    'sluice auth logout',
  ).action(async (opts: ServerFlags) => {
    const { logout } = await import('./commands/auth-login.js');
    setExitCode(await logout(term, server(opts), files));
  });
}
