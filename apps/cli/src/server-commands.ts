/**
 * The command-line shape of the commands that talk to a server, kubectl
 * style: `auth` contexts, `get projects|pipelines|builds|agents`, `describe build`, `logs`,
 * `create project|pipeline`, `apply -f`, `run-pipeline`, `cancel`, `restart`, `approve`,
 * `deny`. Each action's module is imported only when it runs, like every command of main.ts.
 * @module
 */
import { InputError } from '@sluice/errors';
import type { Command } from 'commander';
import { examples, HELP_GROUPS } from './cli-help.js';
import type { OutputFormat } from './commands/server-resources.js';
import type { ServerCommandsContext, ServerFlags } from './server-commands-context.js';
import type { CreatePipelineFlags } from './commands/apply.js';
import { addRunnerInstallCommands } from './runner/runner-commands.js';
import { addDeleteCommands } from './delete-commands.js';
import { addAuthLoginCommands } from './auth-login-commands.js';

type Output = { output: OutputFormat };

const collect = (value: string, previous: string[]) => [...previous, value];

export function parseFormat(value: string): OutputFormat {
  if (value === 'table' || value === 'wide' || value === 'yaml' || value === 'json') return value;
  throw new InputError(
    'SLUICE_CLI_BAD_OUTPUT',
    `--output must be table, wide, yaml or json, got "${value}"`,
  );
}

function parseLimit(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new InputError(
      'SLUICE_CLI_BAD_LIMIT',
      `--limit must be a whole number from 1 to 1000, got "${value}"`,
    );
  return n;
}

export function addServerCommands(ctx: ServerCommandsContext): void {
  addAuthCommands(ctx);
  addReadCommands(ctx);
  addWriteCommands(ctx);
  addRunCommands(ctx);
  addRunnerCommands(ctx);
}

function addAuthCommands(ctx: ServerCommandsContext): void {
  const { program, term, config, setExitCode } = ctx;
  const auth = examples(
    program
      .command('auth')
      .description('Contexts: which server and token the CLI uses')
      .helpGroup(HELP_GROUPS.setup),
    'sluice auth create-context local --url http://127.0.0.1:8080 --token-stdin < ~/.sluice/admin-token',
    'sluice auth get-contexts',
  );
  addAuthLoginCommands(auth, ctx);
  examples(
    auth
      .command('create-context')
      .description('Add or replace a context and use it (the token is checked with the server)')
      .argument('<name>', 'context name')
      .requiredOption('--url <url>', 'the Sluice server, e.g. http://127.0.0.1:8080')
      .option('--token-stdin', 'read the user token from standard input')
      .option('--no-verify', 'store the context without asking the server')
      .option('--no-use', 'keep the context in use as it is'),
    'sluice auth create-context prod --url https://ci.example.com --token-stdin < token.txt',
  ).action(
    async (
      name: string,
      opts: { url: string; tokenStdin?: boolean; verify: boolean; use: boolean },
    ) => {
      const { createContext } = await import('./commands/auth.js');
      setExitCode(
        await createContext(term, name, {
          file: config.contextFile,
          ownDirectory: config.contextDirOwned,
          url: opts.url,
          tokenStdin: opts.tokenStdin,
          noVerify: !opts.verify,
          noUse: !opts.use,
        }),
      );
    },
  );
  examples(
    auth.command('use-context').description('Use this context from now on').argument('<name>'),
    'sluice auth use-context prod',
  ).action(async (name: string) => {
    const { useContext } = await import('./commands/auth.js');
    setExitCode(
      useContext(term, name, { file: config.contextFile, ownDirectory: config.contextDirOwned }),
    );
  });
  examples(
    auth
      .command('get-contexts')
      .description('The contexts (never their tokens); * marks the one in use')
      .option('-o, --output <format>', 'table, yaml or json', parseFormat, 'table'),
    'sluice auth get-contexts',
    'sluice auth get-contexts -o json',
  ).action(async (opts: Output) => {
    const { getContexts } = await import('./commands/auth.js');
    setExitCode(getContexts(term, config.contextFile, opts.output));
  });
  examples(
    auth.command('current-context').description('The name of the context in use'),
    'sluice auth current-context',
  ).action(async () => {
    const { currentContext } = await import('./commands/auth.js');
    setExitCode(currentContext(term, config.contextFile));
  });
  examples(
    auth.command('delete-context').description('Forget a context and its token').argument('<name>'),
    'sluice auth delete-context old',
  ).action(async (name: string) => {
    const { deleteContext } = await import('./commands/auth.js');
    setExitCode(
      deleteContext(term, name, { file: config.contextFile, ownDirectory: config.contextDirOwned }),
    );
  });
}

function addReadCommands(ctx: ServerCommandsContext): void {
  const { term, config, verbs, withServer, server, setExitCode } = ctx;
  const output = (cmd: Command) =>
    cmd.option('-o, --output <format>', 'table, wide, yaml or json', parseFormat, 'table');
  examples(
    output(withServer(verbs.get.command('projects').alias('project')))
      .description('Projects: all, or one by name')
      .argument('[name]', 'project name'),
    'sluice get projects',
    'sluice get project web -o yaml',
  ).action(async (name: string | undefined, opts: ServerFlags & Output) => {
    const { getProjects } = await import('./commands/pipelines.js');
    setExitCode(
      await getProjects(term, name, { ...opts, ...server(opts), columns: config.columns }),
    );
  });
  examples(
    output(withServer(verbs.get.command('pipelines').alias('pipeline')))
      .description("Pipelines: all, a project's, or one (project/pipeline, or its id)")
      .argument('[name]', 'project/pipeline, a pipeline id, or a name only one project has')
      .option('--project <name>', 'only this project'),
    'sluice get pipelines',
    'sluice get pipelines --project web',
    'sluice get pipeline web/build -o yaml > build.yaml   # edit, then: sluice apply -f build.yaml',
  ).action(async (name: string | undefined, opts: ServerFlags & Output & { project?: string }) => {
    const { getPipelines } = await import('./commands/pipelines.js');
    setExitCode(
      await getPipelines(term, name, { ...opts, ...server(opts), columns: config.columns }),
    );
  });
  examples(
    output(withServer(verbs.get.command('builds').alias('build')))
      .description('Builds, newest first: filtered, or one by id')
      .argument('[id]', 'build id')
      .option('--pipeline <pipeline>', 'only builds of this pipeline (project/pipeline or id)')
      .option(
        '--status <status>',
        'only builds in this status (pending, running, success, failure, ...)',
      )
      .option('--branch <name>', 'only builds of this branch')
      .option('--limit <n>', 'at most this many (1 to 1000)', parseLimit, 20),
    'sluice get builds',
    'sluice get builds --pipeline web/build --status failure --limit 5 -o wide',
    'sluice get build bld_0mf3... -o json',
  ).action(
    async (
      id: string | undefined,
      opts: ServerFlags &
        Output & { pipeline?: string; status?: string; branch?: string; limit: number },
    ) => {
      const { getBuilds } = await import('./commands/builds.js');
      setExitCode(await getBuilds(term, id, { ...opts, ...server(opts), columns: config.columns }));
    },
  );
  examples(
    output(withServer(verbs.get.command('agents').alias('agent')))
      .description('Runner agents: online, healthy, version')
      .argument('[name]', 'agent name or id'),
    'sluice get agents',
    'sluice get agents -o wide',
  ).action(async (name: string | undefined, opts: ServerFlags & Output) => {
    const { getAgents } = await import('./commands/agents.js');
    setExitCode(await getAgents(term, name, { ...opts, ...server(opts), columns: config.columns }));
  });

  examples(
    withServer(verbs.describe.command('build').alias('builds'))
      .description('A build: where it ran, its steps and durations, its timing waterfall')
      .argument('<id>', 'build id'),
    'sluice describe build bld_0mf3...',
  ).action(async (id: string, opts: ServerFlags) => {
    const { describeBuild } = await import('./commands/builds.js');
    setExitCode(await describeBuild(term, id, { ...server(opts), columns: config.columns }));
  });
}

function addWriteCommands(ctx: ServerCommandsContext): void {
  const { program, term, verbs, withServer, server, setExitCode } = ctx;
  addDeleteCommands(ctx);
  examples(
    withServer(verbs.create.command('project'))
      .description('Create a project')
      .argument('<name>', 'project name'),
    'sluice create project web',
  ).action(async (name: string, opts: ServerFlags) => {
    const { createProject } = await import('./commands/pipelines.js');
    setExitCode(await createProject(term, name, server(opts)));
  });
  examples(
    withServer(verbs.create.command('agent'))
      .description(
        'Create a runner agent for runtimes; prints its token once (stdout), nothing else',
      )
      .argument('<name>', 'agent name')
      .requiredOption(
        '--runtime <name>',
        'a runtime environment it serves (repeatable)',
        collect,
        [],
      ),
    'sluice create agent cluster-agent --runtime my-cluster/builds > agent-token',
  ).action(async (name: string, opts: ServerFlags & { runtime: string[] }) => {
    const { createAgent } = await import('./commands/agents.js');
    setExitCode(await createAgent(term, name, { ...opts, ...server(opts) }));
  });
  examples(
    withServer(verbs.delete.command('agent'))
      .description('Delete a runner agent; its token stops working at once')
      .argument('<name>', 'agent name or id'),
    'sluice delete agent cluster-agent',
  ).action(async (name: string, opts: ServerFlags) => {
    const { deleteAgent } = await import('./commands/agents.js');
    setExitCode(await deleteAgent(term, name, server(opts)));
  });
  examples(
    withServer(verbs.create.command('pipeline'))
      .description(
        'Create the pipelines (and projects) of a manifest file, or one whose definition each build reads from its repository; existing ones are refused',
      )
      .argument('[pipeline]', 'PROJECT/NAME, with --from-repo')
      .option('-f, --filename <file>', 'the manifest (YAML or JSON), or - for standard input')
      .option(
        '--from-repo <repo>',
        "read the definition from this repository at each build's commit: OWNER/NAME on the git integration's host, or a clone URL",
      )
      .option('--path <file>', 'with --from-repo: the file in the repository', 'codefresh.yml')
      .option(
        '--revision <ref>',
        "with --from-repo: always read it from this branch or tag, not the build's commit",
      )
      .option(
        '--git-integration <name>',
        'with --from-repo: the git integration that reads it (default: the account default)',
      )
      .option('--runtime <name>', "the pipeline's runtime environment"),
    'sluice create pipeline -f build.yaml',
    'sluice create pipeline web/build --from-repo acme/web --git-integration github',
    'sluice create pipeline deploy/prod --from-repo acme/ops --path ci/prod.yml --revision main',
  ).action(async (ref: string | undefined, opts: ServerFlags & CreatePipelineFlags) => {
    const { createPipeline } = await import('./commands/apply.js');
    setExitCode(await createPipeline(term, ref, { ...opts, ...server(opts) }));
  });
  examples(
    withServer(program.command('apply'))
      .description('Create or update the projects and pipelines of a manifest file')
      .helpGroup(HELP_GROUPS.manage)
      .requiredOption(
        '-f, --filename <file>',
        'the manifest (YAML or JSON), or - for standard input',
      ),
    'sluice apply -f build.yaml',
    'sluice get pipelines -o yaml | sluice apply -f -',
  ).action(async (opts: ServerFlags & { filename: string }) => {
    const { applyFile } = await import('./commands/apply.js');
    setExitCode(await applyFile(term, opts.filename, server(opts)));
  });
}

function addRunnerCommands(ctx: ServerCommandsContext): void {
  const { program, term, config, withServer, server, setExitCode } = ctx;
  const runner = examples(
    program
      .command('runner')
      .description('Runners: the agents that run builds, by runtime')
      .helpGroup(HELP_GROUPS.services),
    'sluice runner init',
    'sluice runner info',
  );
  examples(
    withServer(runner.command('info'))
      .description('Each runtime with its agents: online, healthy, version, what is wrong')
      .option('-o, --output <format>', 'table, yaml or json', parseFormat, 'table'),
    'sluice runner info',
    'sluice runner info -o json',
  ).action(async (opts: ServerFlags & Output) => {
    const { runnerInfo } = await import('./commands/runner-info.js');
    setExitCode(await runnerInfo(term, { ...opts, ...server(opts), columns: config.columns }));
  });
  addRunnerInstallCommands(ctx, runner);
}

function addRunCommands(ctx: ServerCommandsContext): void {
  const { program, term, withServer, server, setExitCode } = ctx;
  const group = HELP_GROUPS.run;
  examples(
    withServer(program.command('run-pipeline'))
      .description('Start a build of a stored pipeline and follow its log; exits with its result')
      .helpGroup(group)
      .argument('<pipeline>', 'project/pipeline, a pipeline id, or a name only one project has')
      .option('-b, --branch <name>', 'CF_BRANCH')
      .option('--sha <revision>', 'CF_REVISION: the commit to build')
      .option('--var <KEY=value>', 'a build variable (repeatable)', collect, [])
      .option(
        '--secret <KEY=value>',
        'a secret variable, masked in all output (repeatable)',
        collect,
        [],
      )
      .option('--runtime <name>', "run on this runtime environment instead of the pipeline's")
      .option('-d, --detach', 'print the build id and exit without following')
      .option(
        '--local-file <path>',
        "run this codefresh.yml once instead of the pipeline's definition (try a change before pushing it)",
      )
      .addHelpText(
        'after',
        '\nExit codes: 0 success, 1 failure, 3 cancelled (terminated), 4 denied, 5 error;\n130/143 when Ctrl-C or SIGTERM stopped the following (the build goes on).',
      ),
    'sluice run-pipeline web/build -b main',
    'sluice run-pipeline web/build -b my-change --local-file codefresh.yml',
    'sluice run-pipeline web/build --var TARGET=staging --runtime k8s',
    'BUILD=$(sluice run-pipeline web/build --detach) && sluice logs -f "$BUILD"',
  ).action(
    async (
      ref: string,
      opts: ServerFlags & {
        branch?: string;
        sha?: string;
        var: string[];
        secret: string[];
        runtime?: string;
        detach?: boolean;
        localFile?: string;
      },
    ) => {
      const { runPipeline } = await import('./commands/run-pipeline.js');
      setExitCode(await runPipeline(term, ref, { ...opts, ...server(opts) }));
    },
  );
  examples(
    withServer(program.command('logs'))
      .description("A build's log: what it wrote so far, or (-f) until it ends")
      .helpGroup(group)
      .argument('<build>', 'build id')
      .option(
        '-f, --follow',
        'follow until the build ends; exits with its result like run-pipeline',
      )
      .option('--step <name>', "only this step's lines, as it printed them (no [step] prefix)")
      .option(
        '--raw',
        'the lines as stored, terminal escapes and all (by default only colours are kept)',
      ),
    'sluice logs bld_0mf3...',
    'sluice logs -f bld_0mf3...',
    'sluice logs bld_0mf3... --step unit-tests > unit-tests.log',
    'sluice logs bld_0mf3... --raw > build.log',
  ).action(
    async (id: string, opts: ServerFlags & { follow?: boolean; step?: string; raw?: boolean }) => {
      const { logsCommand } = await import('./commands/run-pipeline.js');
      setExitCode(await logsCommand(term, id, { ...opts, ...server(opts) }));
    },
  );
  examples(
    withServer(program.command('cancel'))
      .description('Cancel a build: at once if it has not started, else its engine stops it')
      .helpGroup(group)
      .argument('<build>', 'build id'),
    'sluice cancel bld_0mf3...',
  ).action(async (id: string, opts: ServerFlags) => {
    const { cancelBuild } = await import('./commands/builds.js');
    setExitCode(await cancelBuild(term, id, server(opts)));
  });
  examples(
    withServer(program.command('restart'))
      .description('Run a build again as a new build: same revision, variables and secrets')
      .helpGroup(group)
      .argument('<build>', 'build id')
      .option('-f, --follow', 'follow the new build like run-pipeline'),
    'sluice restart bld_0mf3...',
    'sluice restart -f bld_0mf3...',
  ).action(async (id: string, opts: ServerFlags & { follow?: boolean }) => {
    const { restartBuild } = await import('./commands/run-pipeline.js');
    setExitCode(await restartBuild(term, id, { ...opts, ...server(opts) }));
  });
  for (const decision of ['approve', 'deny'] as const) {
    examples(
      withServer(program.command(decision))
        .description(
          `${decision === 'approve' ? 'Approve' : 'Deny'} a build waiting at a pending-approval step`,
        )
        .helpGroup(group)
        .argument('<build>', 'build id')
        .option('--step <name>', 'only this step (default: every step waiting)'),
      `sluice ${decision} bld_0mf3...`,
      `sluice ${decision} bld_0mf3... --step deploy_gate`,
    ).action(async (id: string, opts: ServerFlags & { step?: string }) => {
      const { answerBuild } = await import('./commands/builds.js');
      setExitCode(await answerBuild(term, id, decision, { ...opts, ...server(opts) }));
    });
  }
}
