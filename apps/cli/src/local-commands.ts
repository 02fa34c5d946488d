/**
 * The command-line shape of the commands that run on this machine: `run` and `validate` (a
 * pipeline without a server), and the services `server`, `engine`, `agent` and `up`. Each
 * action's module is imported only when it runs: the server, the engine, the runner and their
 * dependencies (Fastify, PGlite, dockerode, the Kubernetes client) are heavy.
 * @module
 */
import type { Command } from 'commander';
import { InputError } from '@sluice/errors';
import type { RunnerConfigInput } from '@sluice/runner/main';
import { exampleText, HELP_GROUPS } from './cli-help.js';
import { processEnvironment } from './config.js';
import type { CliConfig } from './config.js';
import type { RunOptions } from './commands/run/run.js';
import type { ServerFlags } from '@sluice/server/main';
import type { UpOptions } from './commands/up.js';
import { processOutput } from './ui/terminal.js';
import type { Terminal } from './ui/terminal.js';
import { CLI_VERSION } from './version.js';
import { provisionerEnv, volumeAgentEnv } from '@sluice/config';
import { addEnvOptions, flagsByVariable } from './commands/provisioner-options.js';

const LOCAL = HELP_GROUPS.local;
const SERVICES = HELP_GROUPS.services;
const collect = (value: string, previous: string[]) => [...previous, value];

function parseOutput(value: string): 'text' | 'json' {
  if (value === 'text' || value === 'json') return value;
  throw new InputError('SLUICE_CLI_BAD_OUTPUT', `--output must be text or json, got "${value}"`);
}

export interface LocalCommandsContext {
  program: Command;
  term: Terminal;
  config: Readonly<CliConfig>;
  setExitCode: (code: number) => void;
}

/** Adds the commands; returns `agent`, whose many flags main.ts adds only when it runs. */
export function addLocalCommands({
  program,
  term,
  config,
  setExitCode,
}: LocalCommandsContext): Command {
  program
    .command('run')
    .description('Run a pipeline on the local Docker engine, without a server')
    .helpGroup(LOCAL)
    .addHelpText(
      'after',
      exampleText([
        'sluice run                                   # ./codefresh.yml',
        'sluice run ci/codefresh.yml --branch main --var TARGET=staging',
        'sluice run --secret TOKEN=$TOKEN -o json > events.jsonl',
      ]),
    )
    .argument('[file]', 'pipeline file', undefined)
    .option('--branch <name>', 'CF_BRANCH (default: the current git branch)')
    .option('--revision <sha>', 'CF_REVISION (default: the current git commit)')
    .option('--var <KEY=value>', 'a build variable (repeatable)', collect, [])
    .option(
      '--secret <KEY=value>',
      'a secret variable, masked in all output (repeatable)',
      collect,
      [],
    )
    .option(
      '--volume-key <key>',
      'builds with the same key share /codefresh/volume (default: the pipeline name)',
    )
    .option(
      '--docker-host <url>',
      'Docker engine address (default: DOCKER_HOST or the local socket)',
    )
    .option('--git-image <image>', 'image for git-clone steps', undefined)
    .option('--build-id <id>', 'build id (default: generated)')
    .option('-o, --output <format>', 'text or json (one event per line)', parseOutput, 'text')
    .option(
      '--registry <NAME=HOST[:PORT]>',
      'a registry build and push steps can name (repeatable; the first is the default)',
      collect,
      [],
    )
    .option('--default-registry <name>', 'the registry of steps that name none')
    .option(
      '--registry-username <user>',
      'user of the registries (default: SLUICE_REGISTRY_USERNAME)',
    )
    .option(
      '--registry-password-stdin',
      "read the registries' password from standard input (default: SLUICE_REGISTRY_PASSWORD)",
    )
    .option(
      '--git-integration <NAME=token:VALUE>',
      'credentials git-clone steps with git: NAME clone with (repeatable; also user:U:token:V, ssh-key-file:PATH, ,url=URL, ,kind=gitlab); masked',
      collect,
      [],
    )
    .option(
      '--git-integrations <file>',
      'a YAML map of git integrations: name → kind, url, username, token | tokenFile | sshKeyFile',
    )
    .option('--approve', 'approve every pending-approval step')
    .option('--deny', 'deny every pending-approval step')
    .option(
      '--step-types <dir>',
      'a directory of step types (repeatable; also SLUICE_STEP_TYPES, .sluice/step-types)',
      collect,
      [],
    )
    .action(async (file: string | undefined, opts: Omit<RunOptions, 'cwd'>) => {
      const { runCommand } = await import('./commands/run/run.js');
      setExitCode(await runCommand(term, config, file, { ...opts, cwd: process.cwd() }));
    });

  program
    .command('validate')
    .description('Check pipeline files and print every problem with file:line:column')
    .helpGroup(LOCAL)
    .addHelpText(
      'after',
      exampleText([
        'sluice validate',
        'sluice validate ci/codefresh.yml -o json',
        'sluice validate examples/*/codefresh.yml',
      ]),
    )
    .argument('[files...]', 'pipeline files (default: codefresh.yml here)')
    .option('-o, --output <format>', 'text or json', parseOutput, 'text')
    .option(
      '--step-types <dir>',
      'a directory of step types (repeatable; also SLUICE_STEP_TYPES, .sluice/step-types)',
      collect,
      [],
    )
    .action(async (files: string[], opts: { output: 'text' | 'json'; stepTypes: string[] }) => {
      const { validateCommand } = await import('./commands/validate.js');
      setExitCode(
        validateCommand(term, files, {
          cwd: process.cwd(),
          output: opts.output,
          stepTypes: opts.stepTypes,
          stepTypeDirs: config.stepTypeDirs,
        }),
      );
    });

  program
    .command('server')
    .description('Run the control plane (PGlite in --data-dir, or PostgreSQL with DATABASE_URL)')
    .helpGroup(SERVICES)
    .addHelpText(
      'after',
      exampleText([
        'sluice server --data-dir ./sluice-data',
        'DATABASE_URL=postgres://sluice@db/sluice SLUICE_SECRET_KEY=... sluice server --host 0.0.0.0',
      ]),
    )
    .option('--port <port>', 'port to listen on (default 8080)', (v) => Number(v))
    .option('--host <host>', 'address to listen on (default 127.0.0.1)')
    .option('--data-dir <dir>', 'data directory for the embedded database and the server key')
    .option(
      '--metrics-port <port>',
      'serve Prometheus /metrics on this port, without a token (default: not served)',
      (v) => Number(v),
    )
    .action(async (opts: ServerFlags) => {
      const { serverMain } = await import('@sluice/server/main');
      setExitCode(await serverMain({ output: processOutput(term), ...opts }));
    });

  program
    .command('engine')
    .description('Run one build for the control plane; started by a runner agent')
    .helpGroup(SERVICES)
    .addHelpText(
      'after',
      exampleText(['SLUICE_SERVER_URL=http://... SLUICE_ENGINE_TOKEN=... sluice engine']),
    )
    .option(
      '--docker-host <url>',
      'Docker engine address (default: DOCKER_HOST or the local socket)',
    )
    .action(async (opts: { dockerHost?: string }) => {
      const { engineMain } = await import('@sluice/engine/main');
      setExitCode(await engineMain({ output: processOutput(term), dockerHost: opts.dockerHost }));
    });

  const agent = program
    .command('agent')
    .description('Run the runner agent: carry out builds on Kubernetes or this machine')
    .helpGroup(SERVICES)
    .addHelpText(
      'after',
      exampleText([
        'SLUICE_AGENT_TOKEN=... sluice agent --server-url http://... --local-runtime local',
        'SLUICE_AGENT_TOKEN=... sluice agent --server-url https://ci.example.com --kubeconfig ~/.kube/config',
      ]),
    )
    .action(async (opts: RunnerConfigInput) => {
      const { agentMain } = await import('@sluice/runner/main');
      const { localEngineCommand } = await import('./commands/agent.js');
      const flags = { ...opts, engineCommand: localEngineCommand() };
      setExitCode(await agentMain({ output: term, flags, version: CLI_VERSION }));
    });

  const provisioner = program
    .command('provisioner')
    .description("Run the volume provisioner of a runtime's StorageClass (warm build caches)")
    .helpGroup(SERVICES)
    .addHelpText(
      'after',
      exampleText([
        'sluice provisioner --provisioner-name sluice.io/volumes-ci --storage-class sluice-volumes-ci --namespace ci',
      ]),
    )
    .action(async (opts: Record<string, string | undefined>) => {
      const { provisionerMain } = await import('@sluice/provisioner/main');
      const flags = flagsByVariable(provisionerEnv, opts);
      setExitCode(await provisionerMain({ output: term, flags }));
    });
  addEnvOptions(provisioner, provisionerEnv);
  const volumeAgent = program
    .command('volume-agent')
    .description(
      "Run the volume provisioner's agent on a node: remove deleted volumes, retire one when the disk is full",
    )
    .helpGroup(SERVICES)
    .addHelpText(
      'after',
      exampleText([
        'sluice volume-agent --provisioner-name sluice.io/volumes-ci --node-name $(hostname)',
      ]),
    )
    .action(async (opts: Record<string, string | undefined>) => {
      const { volumeAgentMain } = await import('@sluice/provisioner/main');
      const flags = flagsByVariable(volumeAgentEnv, opts);
      setExitCode(await volumeAgentMain({ output: term, flags }));
    });
  addEnvOptions(volumeAgent, volumeAgentEnv);

  program
    .command('up')
    .description('Run everything on this machine: server, local runtime and agent')
    .helpGroup(LOCAL)
    .addHelpText(
      'after',
      exampleText(['sluice up --demo', 'sluice up --port 0 --data-dir /tmp/sluice']),
    )
    .option('--demo', 'run a demo pipeline and follow its log')
    .option('--port <port>', 'port to listen on, 0 for any free one (default 8080)', (v) =>
      Number(v),
    )
    .option('--data-dir <dir>', 'where everything is kept (default $SLUICE_HOME or ~/.sluice)')
    .action(async (opts: UpOptions) => {
      const { upCommand } = await import('./commands/up.js');
      setExitCode(await upCommand(term, opts, processEnvironment()));
    });

  return agent;
}
