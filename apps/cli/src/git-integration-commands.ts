/**
 * The command-line shape of the git integration commands (`get git-integrations [NAME]`,
 * `create git-integration`, `delete git-integration`), of the cluster commands (`get|describe|
 * create|delete cluster`) and of `get triggers PIPELINE`, which
 * shows the integration each git trigger names; the action's module is imported only when it
 * runs, like every command of main.ts.
 * @module
 */
import { InputError } from '@sluice/errors';
import type { GitIntegrationKind } from '@sluice/protocol';
import type { OutputFormat, ServerOptions } from './commands/server-resources.js';
import type { CreateClusterOptions } from './commands/clusters.js';
import type { CreateGitIntegrationOptions } from './commands/git-integrations.js';
import { examples } from './cli-help.js';
import type { SettingsCommandsContext } from './settings-commands.js';

interface ServerFlags {
  server?: string;
  token?: string;
  context?: string;
}

const KINDS: readonly GitIntegrationKind[] = ['github', 'gitlab', 'bitbucket', 'gitea', 'git'];

function parseKind(value: string): GitIntegrationKind {
  const kind = KINDS.find((k) => k === value);
  if (kind === undefined)
    throw new InputError(
      'SLUICE_CLI_BAD_GIT_INTEGRATION',
      `--kind must be one of ${KINDS.join(', ')}, got "${value}"`,
    );
  return kind;
}

export function addGitIntegrationCommands(ctx: SettingsCommandsContext): void {
  const { term, verbs, withServer } = ctx;
  examples(
    withServer(verbs.get.command('git-integrations').alias('git-integration'))
      .description("The account's git integrations: all, or one by name (never their tokens)")
      .argument('[name]', 'git integration name')
      .option('-o, --output <format>', 'table, yaml or json', ctx.parseFormat, 'table'),
    'sluice get git-integrations',
    'sluice get git-integration github-main -o yaml',
  ).action(async (name: string | undefined, opts: ServerFlags & { output: OutputFormat }) => {
    const { getGitIntegrations } = await import('./commands/git-integrations.js');
    ctx.setExitCode(await getGitIntegrations(term, name, { ...opts, ...ctx.server(opts) }));
  });
  examples(
    withServer(verbs.create.command('git-integration'))
      .description('Create a git integration: credentials git-clone steps and triggers name (git:)')
      .argument('<name>', 'what git: in a git-clone step names')
      .requiredOption('--kind <kind>', 'github, gitlab, bitbucket, gitea or git', parseKind)
      .option('--url <url>', "the host's URL (required for gitea and git)")
      .option('--username <user>', 'the user to log in as (default: what the provider takes)')
      .option('--git-token <token>', 'the token (stored encrypted; prefer --token-stdin)')
      .option('--token-stdin', 'read the token from standard input')
      .option('--ssh-key-file <file>', 'an SSH private key to clone with instead of a token')
      .option('--default', "the account's default git integration"),
    'printf %s "$GITHUB_TOKEN" | sluice create git-integration github-main --kind github --token-stdin --default',
    'sluice create git-integration gitea --kind gitea --url https://git.example.com --ssh-key-file ~/.ssh/id_ed25519',
  ).action(
    async (
      name: string,
      opts: ServerFlags & Omit<CreateGitIntegrationOptions, keyof ServerOptions>,
    ) => {
      const { createGitIntegration } = await import('./commands/git-integrations.js');
      ctx.setExitCode(await createGitIntegration(term, name, { ...opts, ...ctx.server(opts) }));
    },
  );
  examples(
    withServer(verbs.delete.command('git-integration').alias('git-integrations'))
      .description('Delete a git integration of the account')
      .argument('<name>', 'git integration name'),
    'sluice delete git-integration github-main',
  ).action(async (name: string, opts: ServerFlags) => {
    const { deleteGitIntegration } = await import('./commands/git-integrations.js');
    ctx.setExitCode(await deleteGitIntegration(term, name, ctx.server(opts)));
  });
  addClusterCommands(ctx);
  examples(
    withServer(verbs.get.command('triggers').alias('trigger'))
      .description("A pipeline's git and cron triggers, with the git integration each names")
      .argument('<pipeline>', 'project/pipeline, a pipeline id, or a name one project has')
      .option('-o, --output <format>', 'table, yaml or json', ctx.parseFormat, 'table'),
    'sluice get triggers web/build',
    'sluice get triggers web/build -o yaml',
  ).action(async (pipeline: string, opts: ServerFlags & { output: OutputFormat }) => {
    const { getTriggers } = await import('./commands/triggers.js');
    ctx.setExitCode(await getTriggers(term, pipeline, { ...opts, ...ctx.server(opts) }));
  });
}

/** `get|describe|create|delete cluster`: the Kubernetes clusters builds deploy to. */
function addClusterCommands(ctx: SettingsCommandsContext): void {
  const { term, verbs, withServer } = ctx;
  examples(
    withServer(verbs.get.command('clusters').alias('cluster'))
      .description("The account's Kubernetes clusters: all, or one by name (never credentials)")
      .argument('[name]', 'cluster name')
      .option('-o, --output <format>', 'table, yaml or json', ctx.parseFormat, 'table'),
    'sluice get clusters',
    'sluice get cluster prod -o yaml',
  ).action(async (name: string | undefined, opts: ServerFlags & { output: OutputFormat }) => {
    const { getClusters } = await import('./commands/clusters.js');
    ctx.setExitCode(await getClusters(term, name, { ...opts, ...ctx.server(opts) }));
  });
  examples(
    withServer(verbs.describe.command('cluster'))
      .description('One cluster: its server, namespace and how steps reach it')
      .argument('<name>', 'cluster name'),
    'sluice describe cluster prod',
  ).action(async (name: string, opts: ServerFlags) => {
    const { describeCluster } = await import('./commands/clusters.js');
    ctx.setExitCode(await describeCluster(term, name, ctx.server(opts)));
  });
  examples(
    withServer(verbs.create.command('cluster'))
      .description(
        "Add a cluster builds deploy to: behind a runtime's firewall (--runtime: a service account made there, its token minted per build, never leaving the cluster), or from a kubeconfig; every step then has it in KUBECONFIG as context NAME",
      )
      .argument('<name>', 'what steps name (kubectl --context NAME)')
      .option(
        '--runtime <name>',
        "behind this Kubernetes runtime's firewall: make a service account and its role bindings through the kube context",
      )
      .option(
        '--namespace <names>',
        "the namespaces steps may use, comma-separated; the first is their default (behind the firewall: default the runtime's; from a kubeconfig: one, default the context's)",
      )
      .option(
        '--service-account <name>',
        "behind the firewall: the service account, in the runtime's namespace (default sluice-cluster-NAME)",
      )
      .option(
        '--role <role>',
        'behind the firewall: edit, admin, view (the built-in ClusterRoles) or custom (--role-file)',
      )
      .option('--role-file <file>', 'a Role (or its rules) in YAML, for --role custom')
      .option('--dry-run <dir>', 'behind the firewall: write the manifests to DIR, change nothing')
      .option(
        '--kubeconfig-file <file>',
        'the kubeconfig (default: KUBECONFIG, else ~/.kube/config)',
      )
      .option(
        '--kube-context <name>',
        "from a kubeconfig: the context to keep; behind the firewall: the context to make the objects through (default: the file's current one)",
      )
      .option('--projects <names>', 'only these projects’ builds may use it (comma-separated)'),
    'sluice create cluster prod --runtime k8s --namespace shop,shop-staging --role edit',
    'sluice create cluster prod --runtime k8s --namespace shop --dry-run ./cluster-manifests',
    'sluice create cluster prod --kubeconfig-file prod.kubeconfig --kube-context deployer@prod',
  ).action(
    async (name: string, opts: ServerFlags & Omit<CreateClusterOptions, keyof ServerOptions>) => {
      const { createCluster } = await import('./commands/clusters.js');
      ctx.setExitCode(await createCluster(term, name, { ...opts, ...ctx.server(opts) }));
    },
  );
  examples(
    withServer(verbs.delete.command('cluster').alias('clusters'))
      .description(
        'Remove a cluster from the account; behind the firewall, also the service account and bindings create made (nothing else in the cluster is touched)',
      )
      .argument('<name>', 'cluster name')
      .option('--kubeconfig-file <file>', 'behind the firewall: the kubeconfig')
      .option('--kube-context <name>', 'behind the firewall: the context to remove them through'),
    'sluice delete cluster prod',
  ).action(
    async (name: string, opts: ServerFlags & { kubeconfigFile?: string; kubeContext?: string }) => {
      const { deleteCluster } = await import('./commands/clusters.js');
      ctx.setExitCode(await deleteCluster(term, name, { ...opts, ...ctx.server(opts) }));
    },
  );
}
