/**
 * The command-line shape of `sluice runner init|delete|upgrade`: every wizard question has a
 * flag, so CI needs no terminal. The actions' modules (and @inquirer/prompts, and the
 * Kubernetes client) are imported only when the command runs.
 * @module
 */
import type { Command } from 'commander';
import { InputError } from '@sluice/errors';
import { examples } from '../cli-help.js';
import type { ServerCommandsContext } from '../server-commands-context.js';
import type { RunnerFlags } from './runner-settings.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 3600)
    throw new InputError(
      'SLUICE_CLI_BAD_TIMEOUT',
      `--timeout must be whole seconds from 1 to 3600, got "${value}"`,
    );
  return n;
}

/** Where the install is: the flags init, delete and upgrade share. */
function withInstall(cmd: Command): Command {
  return cmd
    .option('--kubeconfig <file>', 'the kubeconfig (default: KUBECONFIG, else ~/.kube/config)')
    .option('--kube-context <name>', "the kubeconfig context (default: the file's current one)")
    .option('-n, --namespace <name>', 'where the agent runs (default: sluice)')
    .option(
      '--release <name>',
      'the install name: its objects are <release>-agent (default: sluice)',
    )
    .option(
      '--agent-name <name>',
      'the agent as the control plane knows it (default: <context>-<build namespace>)',
    );
}

/** How the runtime's builds are placed and reach the control plane: init's and attach's. */
function withRuntime(cmd: Command): Command {
  return cmd
    .option('--control-plane-url <url>', 'the Sluice server as pods reach it (default: --server)')
    .option('--storage-class <name>', "StorageClass of the builds' cache volumes")
    .option('--build-node-selector <k=v,...>', 'node labels build pods must land on')
    .option(
      '--build-toleration <key[=value][:effect]>',
      'a taint build pods tolerate (repeatable)',
      collect,
    )
    .option('--runtime-spec <file>', 'a partial runtime spec merged over the one registered');
}

interface ServerFlags {
  server?: string;
  token?: string;
  context?: string;
}

type InitFlags = RunnerFlags &
  ServerFlags & {
    yes?: boolean;
    dryRun?: string;
    generateHelmValuesFile?: string;
    testImage: string;
    timeout: number;
  };

export function addRunnerInstallCommands(ctx: ServerCommandsContext, runner: Command): void {
  const { term, config, withServer, server, setExitCode } = ctx;
  examples(
    withRuntime(withInstall(withServer(runner.command('init'))))
      .description(
        'Install a runner in a Kubernetes cluster: preflight, plan, then each step (rerun to resume)',
      )
      .option(
        '--runtime <name>',
        'the runtime environment to register (default: <context>/<build namespace>)',
      )
      .option('--build-namespace <name>', "the builds' namespace (default: the agent's)")
      .option('--http-proxy <url>', 'HTTP_PROXY for the agent (default: from this shell)')
      .option('--https-proxy <url>', 'HTTPS_PROXY for the agent (default: from this shell)')
      .option(
        '--noproxy <hosts>',
        'NO_PROXY for the agent, as curl names it (default: from this shell)',
      )
      .option('--image-repository <name>', "the agent's image (default: sluice/engine)")
      .option('--image-tag <tag>', "the agent image's tag")
      .option(
        '--dind-image <image>',
        "the builds' Docker daemon image (default: the agent image's registry and tag, sluice/dind)",
      )
      .option(
        '--registry-mirror <url>',
        "a registry the builds' Docker daemons pull Docker Hub images through (repeatable)",
        collect,
      )
      .option(
        '--insecure-registry <host>',
        "a registry the builds' Docker daemons may reach over plain HTTP (repeatable)",
        collect,
      )
      .option('--set-default', "make the runtime the account's default")
      .option('--no-set-default', 'leave the default runtime as it is')
      .option('--test-pipeline', 'run a test pipeline when the agent is healthy (default)')
      .option('--no-test-pipeline', 'skip the test pipeline')
      .option(
        '--test-image <image>',
        "the test pipeline's image (sluice/busybox:1 is carried by the engine: no registry needed)",
        'sluice/busybox:1',
      )
      .option(
        '--warm-volumes',
        "run the volume provisioner: each build's Docker daemon gets a volume a matching build warmed",
      )
      .option(
        '--volume-backend <backend>',
        "with warm volumes, where new ones come from: local (each node's disk) or delegate (a cluster StorageClass, e.g. a cloud's CSI driver)",
      )
      .option(
        '--storage-class-delegate <name>',
        "the cluster's StorageClass that makes new warm volumes (implies --warm-volumes --volume-backend delegate)",
      )
      .option(
        '--warm-pool <n>',
        'keep N build pods (a Docker daemon on a warm volume and a loaded engine) running ahead of builds; 0 for none',
      )
      .option('-f, --values <file>', 'chart values (as --generate-helm-values-file writes them)')
      .option(
        '--set-value <key=value>',
        'one chart value, e.g. agent.replicas=2 (repeatable)',
        collect,
      )
      .option('-y, --yes', 'ask nothing: flags, files and defaults only')
      .option('--dry-run <dir>', 'check everything and write every manifest to DIR; change nothing')
      .option(
        '--generate-helm-values-file <file>',
        'register the runtime and the agent, write chart values for helm install; apply nothing',
      )
      .option(
        '--timeout <seconds>',
        'how long to wait for the agent to report healthy',
        seconds,
        300,
      ),
    'sluice runner init',
    'sluice runner init --yes --kube-context prod --control-plane-url https://ci.example.com',
    'sluice runner init --yes --dry-run ./manifests',
    'sluice runner init --yes --image-repository registry.internal:5000/sluice/engine',
    'sluice runner init --yes --generate-helm-values-file values.yaml',
  ).action(async (opts: InitFlags) => {
    const { runnerInit } = await import('./runner-init.js');
    const interactive = !opts.yes && config.interactive;
    const wizard = interactive ? (await import('./runner-wizard.js')).inquirerWizard() : undefined;
    const { noproxy, ...flags } = opts as InitFlags & { noproxy?: string };
    setExitCode(
      await runnerInit(
        term,
        { ...flags, ...(noproxy === undefined ? {} : { noProxy: noproxy }), ...server(opts) },
        wizard,
      ),
    );
  });
  examples(
    withRuntime(withInstall(withServer(runner.command('attach'))))
      .description('Let an installed agent also serve a runtime in another cluster (kube context)')
      .requiredOption('--build-namespace <name>', "its namespace for the runtime's builds")
      .option('--agent-kube-context <name>', "the agent's cluster (default: the current context)")
      .option(
        '--runtime <name>',
        'the runtime environment to register (default: <context>/<namespace>)',
      )
      .option(
        '--api-server-url <url>',
        "the other cluster's API server as the agent's pods reach it",
      )
      .option(
        '--warm-pool <n>',
        "keep N of the runtime's build pods running ahead of builds (the agent must reach its pod IPs); 0 for none",
      )
      .option(
        '--timeout <seconds>',
        'how long to wait for the runtime to report healthy',
        seconds,
        300,
      ),
    'sluice runner attach --kube-context staging --build-namespace ci --runtime staging/ci',
  ).action(async (opts: RunnerFlags & ServerFlags & { timeout: number }) => {
    const { runnerAttach } = await import('./runner-attach.js');
    setExitCode(await runnerAttach(term, { ...opts, ...server(opts) }));
  });
  examples(
    withInstall(withServer(runner.command('delete')))
      .description(
        'Remove a runner: lists what goes (objects, warm volumes, agent, runtime), asks, removes',
      )
      .option('-y, --yes', 'delete without asking')
      .option(
        '--keep-volumes',
        'keep the warm volumes and their directories, for an install with the same StorageClass',
      ),
    'sluice runner delete',
    'sluice runner delete --yes --kube-context prod --keep-volumes',
  ).action(async (opts: ServerFlags & { yes?: boolean; keepVolumes?: boolean }) => {
    const { runnerDelete } = await import('./runner-delete.js');
    const confirm = config.interactive
      ? async (message: string) =>
          (await import('@inquirer/prompts')).confirm({ message, default: false })
      : undefined;
    setExitCode(await runnerDelete(term, { ...opts, ...server(opts) }, confirm));
  });
  examples(
    withInstall(withServer(runner.command('upgrade')))
      .description(
        "Move the install (agent, volume provisioner, the runtime's engine and dind images) to another image tag",
      )
      .requiredOption('--image-tag <tag>', 'the new tag')
      .option('--image-repository <name>', 'another repository (default: the current one)')
      .option('--timeout <seconds>', 'how long to wait for the rollout', seconds, 300),
    'sluice runner upgrade --image-tag 0.2.0',
  ).action(async (opts: ServerFlags & { imageTag: string; timeout: number }) => {
    const { runnerUpgrade } = await import('./runner-manage.js');
    setExitCode(await runnerUpgrade(term, { ...opts, ...server(opts) }));
  });
}
