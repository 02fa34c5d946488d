/**
 * `sluice run [FILE]`: runs a pipeline on a Docker engine, no server needed. Live output, a
 * summary table, exit 0 only when the build succeeded. SIGINT/SIGTERM terminate the build
 * cleanly; a second signal exits at once. Registries come from `--registry`, git integrations
 * from `--git-integration` or `--git-integrations FILE`, approvals from
 * `--approve`/`--deny` or the terminal, typed steps from the step-type directories.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { parsePipeline } from '@sluice/pipeline';
import { DockerClient } from '@sluice/docker';
import { runBuild, stepSettingsFrom } from '@sluice/engine';
import type { BuildSummary } from '@sluice/engine';
import { dockerEndpoint, parsePairs } from '../../config.js';
import type { CliConfig } from '../../config.js';
import { readGitFacts } from './git-facts.js';
import { readPipelineFile } from './pipeline-file.js';
import { localStepTypes } from './local-step-types.js';
import { readSecretStdin } from '../../read-secret-stdin.js';
import { approvalGateFor } from './approvals.js';
import { parseRegistryFlags } from './registries.js';
import { gitIntegrationsForRun } from './git-integrations.js';
import { askApproval } from '../../ui/approval-prompt.js';
import { createBuildReporter, printSummary } from '../../ui/build-reporter.js';
import { printIssues } from '../../ui/print-issues.js';
import { safeJson } from '../../ui/safe-text.js';
import type { Terminal } from '../../ui/terminal.js';

export interface RunOptions {
  cwd: string;
  branch?: string;
  revision?: string;
  var: string[];
  secret: string[];
  volumeKey?: string;
  dockerHost?: string;
  gitImage?: string;
  buildId?: string;
  output?: 'text' | 'json';
  /** `NAME=HOST[:PORT]` (repeatable). */
  registry: string[];
  defaultRegistry?: string;
  registryUsername?: string;
  registryPasswordStdin?: boolean;
  approve?: boolean;
  deny?: boolean;
  /** Step-type directories (repeatable). */
  stepTypes: string[];
  /** `NAME=token:VALUE` (repeatable): what `git: NAME` of git-clone steps clones with. */
  gitIntegration?: string[];
  /** A YAML file of git integrations. */
  gitIntegrations?: string;
}

const EXIT = { success: 0, failure: 1, invalid: 2, SIGINT: 130, SIGTERM: 143 } as const;

export async function runCommand(
  term: Terminal,
  config: CliConfig,
  file: string | undefined,
  options: RunOptions,
): Promise<number> {
  const variables = parsePairs('--var', options.var);
  const secrets = parsePairs('--secret', options.secret);
  const approve = approvalGateFor(options, {
    interactive: config.interactive && options.output !== 'json',
    ask: (request, signal) => askApproval(request, signal),
  });
  const registries = parseRegistryFlags({
    registry: options.registry,
    defaultRegistry: options.defaultRegistry,
    username: options.registryUsername ?? config.registryUsername,
    password: options.registryPasswordStdin
      ? readSecretStdin('--registry-password-stdin')
      : config.registryPassword,
  });
  const gitIntegrations = gitIntegrationsForRun({
    flags: options.gitIntegration ?? [],
    file: options.gitIntegrations,
    cwd: options.cwd,
  });
  const source = readPipelineFile(file, options.cwd);
  const stepTypes = localStepTypes(term, config, source, {
    flags: options.stepTypes,
    cwd: options.cwd,
  });
  const parsed = parsePipeline(source.text, { file: source.display, stepTypes });
  if (parsed.issues.length > 0) printIssues(term, parsed.issues, source.text);
  if (!parsed.ok) return EXIT.invalid;

  const docker = DockerClient.create(dockerEndpoint(config, options.dockerHost));
  await docker.ping();
  const git = await readGitFacts(dirname(source.path));
  const buildId = options.buildId ?? newBuildId();
  const controller = new AbortController();
  let signalName: 'SIGINT' | 'SIGTERM' | undefined;
  const onSignal = (name: 'SIGINT' | 'SIGTERM') => {
    if (signalName !== undefined) process.exit(EXIT[name]);
    signalName = name;
    term.err(
      term.paint('yellow', `\n${name} received: stopping the build (again to exit at once)`),
    );
    controller.abort();
  };
  const onInt = () => onSignal('SIGINT');
  const onTerm = () => onSignal('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  let summary: BuildSummary;
  try {
    summary = await runBuild(parsed.pipeline, {
      docker,
      buildId,
      facts: {
        ...git,
        branch: options.branch ?? git.branch,
        revision: options.revision ?? git.revision,
        pipelineName: source.name,
        initiator: 'sluice run',
      },
      variables: { ...stepSettingsFrom(config.proxy).variables, ...variables },
      secrets,
      volumeKey: options.volumeKey ?? source.name,
      gitImage: options.gitImage ?? config.gitImage,
      onEvent:
        options.output === 'json'
          ? (e) => term.out(safeJson(e))
          : createBuildReporter(term, { steps: parsed.pipeline.steps }),
      signal: controller.signal,
      registries,
      gitIntegrations,
      // No control plane to hold them: a clone naming one not given goes on anonymously.
      unknownGitIntegration: 'anonymous',
      approve,
    });
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }
  if (options.output !== 'json') printSummary(term, summary);
  if (summary.result === 'success') return EXIT.success;
  if (summary.result === 'terminated') return EXIT[signalName ?? 'SIGTERM'];
  return EXIT.failure;
}

function newBuildId(): string {
  return `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}
