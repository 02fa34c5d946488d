/**
 * The CLI that drives builds, as a new user runs it against a real server with the local
 * runtime, on PostgreSQL (`sluice server` and `sluice agent`), and its first steps (a context,
 * manifests applied, a build that succeeds and one that fails) on PGlite (`sluice up`) too: the
 * rest is the CLI's, the same whatever the server's database. A context made from the printed
 * token, projects and pipelines applied from manifests (twice, and round-tripped through `get -o
 * yaml`), `run-pipeline` following the log with the build's outcome as exit code (success, failure, cancelled, denied, errored), `--detach` then `logs
 * -f`, `describe build`, `restart`, `approve`/`deny`, the output formats and their schemas,
 * and the errors a wrong token or an unreachable server give.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { TestDatabases } from '@sluice/db/testing';
import { exportSecretKey, generateSecretKey } from '@sluice/pki';
import { Build, createClient } from '@sluice/protocol';
import type { SluiceClient } from '@sluice/protocol';
import {
  ensureDockerEngine,
  ensureTestImages,
  freeLoopbackPort,
  makeTempDir,
  waitFor,
} from '@sluice/testkit';
import type { TempDir } from '@sluice/testkit';
import {
  kill,
  runSluice,
  seededDataDir,
  startServer,
  startSluice,
  waitForUp,
} from './cli-harness.js';
import type { CliResult, RunningCli, SluiceRunOptions } from './cli-harness.js';
import { startAgentProcess } from './cluster-fixture.js';
import type { AgentProcess } from './cluster-fixture.js';
import { createLocalRuntime } from './control-plane-seed.js';

const IMAGE = 'sluice/busybox:1';
const OK_YAML = `version: "1.0"
# a comment that must survive get -o yaml and apply -f
steps:
  greet:
    image: ${IMAGE}
    commands:
      - echo "hello $GREETING on $CF_BRANCH"
      - for i in 1 2 3; do echo "count $i"; done
      - echo "key $API_KEY"
    on_success:
      annotations:
        set:
          - entity_type: build
            annotations: [{greeted: '\${{GREETING}}'}, reviewed]
  second:
    image: ${IMAGE}
    commands:
      - echo second step
`;
const FAIL_YAML = `version: "1.0"
steps:
  broken:
    image: ${IMAGE}
    commands:
      - echo about to fail
      - exit 3
`;
const SLOW_YAML = `version: "1.0"
steps:
  wait:
    image: ${IMAGE}
    commands:
      - echo sleeping
      - sleep 300
`;
const GATE_YAML = `version: "1.0"
steps:
  gate:
    type: pending-approval
  after:
    image: ${IMAGE}
    commands:
      - echo approved and running
`;

/**
 * A step that prints what would drive a terminal (the clipboard, the window title, a cleared
 * screen) and a colour, and puts a title change in an annotation.
 */
const HOSTILE_YAML = `version: "1.0"
steps:
  hostile:
    image: ${IMAGE}
    commands:
      - printf '\\033]52;c;aGk=\\007\\033]0;owned\\007\\033[2J\\033[31mred\\033[0m\\n'
      - cf_export EVIL="$(printf 'x\\033]0;owned\\007y')"
    on_success:
      annotations:
        set:
          - entity_type: build
            annotations: [{evil: '\${{EVIL}}'}]
`;

/** A manifest file: a Project and three Pipelines, with a plain variable and a secret. */
function manifest(project: string, okYaml = OK_YAML): string {
  const pipeline = (name: string, yaml: string, extra = '') =>
    `---
apiVersion: sluice/v1
kind: Pipeline
metadata:
  name: ${name}
  project: ${project}
spec:${extra}
  yaml: |
${yaml
  .trimEnd()
  .split('\n')
  .map((l) => `    ${l}`)
  .join('\n')}
`;
  return [
    `apiVersion: sluice/v1\nkind: Project\nmetadata:\n  name: ${project}\n`,
    pipeline(
      'ok',
      okYaml,
      '\n  variables:\n    - name: GREETING\n      value: world\n    - name: API_KEY\n      value: s3cr3t-value\n      secret: true',
    ),
    pipeline('fails', FAIL_YAML),
    pipeline('slow', SLOW_YAML),
    pipeline('gate', GATE_YAML),
  ].join('');
}

const temps: TempDir[] = [];
const children: { stop: () => Promise<unknown> }[] = [];
const databases = TestDatabases.create();

before(async () => {
  await ensureDockerEngine();
  await ensureTestImages();
});

after(async () => {
  for (const child of children.reverse()) await child.stop().catch(() => undefined);
  await databases.close();
  for (const temp of temps) await temp.cleanup();
});

interface Target {
  url: string;
  token: string;
  admin: SluiceClient;
  /** The CLI's environment: its own contexts file, no SLUICE_SERVER/SLUICE_TOKEN. */
  env: NodeJS.ProcessEnv;
  configFile: string;
}

async function tempDir(prefix: string): Promise<string> {
  const dir = await makeTempDir(prefix);
  temps.push(dir);
  return dir.path;
}

async function cliEnv(): Promise<{ env: NodeJS.ProcessEnv; configFile: string }> {
  const configFile = join(await tempDir('sluice-cli-config-'), 'nested', 'config.yaml');
  return {
    configFile,
    env: { SLUICE_CONFIG: configFile, SLUICE_SERVER: '', SLUICE_TOKEN: '', SLUICE_CONTEXT: '' },
  };
}

/** `sluice up` on PGlite: the URL and token it prints. */
async function upOnPglite(): Promise<Target> {
  const dir = await tempDir('sluice-cli-up-');
  const cli = startSluice(['up', '--port', '0', '--data-dir', await seededDataDir(dir)]);
  children.push({
    stop: async () => {
      if (cli.child.exitCode === null) cli.child.kill('SIGTERM');
      await cli.done;
    },
  });
  const { url, token } = await waitForUp(cli);
  return { url, token, admin: createClient({ baseUrl: url, token }), ...(await cliEnv()) };
}

/** `sluice server` on PostgreSQL with a `sluice agent` serving the local runtime. */
async function serverOnPostgres(): Promise<Target> {
  const token = 'slu_u_build-cli-test-token-0123456789';
  const target = await databases.prepare('postgres');
  const port = await freeLoopbackPort();
  const server = await startServer(
    target,
    {
      SLUICE_BOOTSTRAP_TOKEN: token,
      SLUICE_SECRET_KEY: exportSecretKey(generateSecretKey()),
      SLUICE_PUBLIC_URL: `http://127.0.0.1:${port}`,
    },
    port,
  );
  children.push({ stop: () => kill(server, 'SIGTERM') });
  const admin = createClient({ baseUrl: server.url, token });
  await createLocalRuntime(admin, { isDefault: true });
  const { token: agentToken } = await admin.call('createAgent', {
    body: { name: 'local', runtimes: ['local'] },
  });
  const stateDir = await tempDir('sluice-cli-agent-');
  const agent: AgentProcess = await startAgentProcess({
    serverUrl: server.url,
    token: agentToken,
    args: ['--local-runtime', 'local', '--state-dir', stateDir],
    logPath: join(stateDir, 'agent.log'),
  });
  children.push({ stop: () => agent.stop() });
  return { url: server.url, token, admin, ...(await cliEnv()) };
}

/** The control characters in `text` but newline and tab (C0, DEL, C1). */
function controls(text: string): string[] {
  return [...text].filter((c) => {
    const code = c.charCodeAt(0);
    return (code < 0x20 && c !== '\n' && c !== '\t') || (code >= 0x7f && code <= 0x9f);
  });
}

function sluice(t: Target, args: string[], options: SluiceRunOptions = {}): Promise<CliResult> {
  return runSluice(args, { ...options, env: { ...t.env, ...options.env } });
}

/** The build id `run-pipeline` names on stderr before it follows. */
async function buildIdOf(cli: RunningCli): Promise<string> {
  const id = await waitFor(
    () => /Build (bld_\w+):/.exec(cli.stderr())?.[1],
    (found) => found !== undefined,
    { what: 'run-pipeline to name its build' },
  );
  return id ?? '';
}

async function statusOf(t: Target, id: string): Promise<string> {
  return (await t.admin.call('getBuild', { params: { buildId: id } })).status;
}

const Manifest = z
  .object({
    apiVersion: z.literal('sluice/v1'),
    kind: z.literal('Pipeline'),
    metadata: z.object({ name: z.string(), project: z.string() }).strict(),
    spec: z
      .object({
        runtimeEnvironment: z.string().nullable(),
        maxConcurrentBuilds: z.number().nullable(),
        variables: z.array(
          z
            .object({
              name: z.string(),
              value: z.string().optional(),
              secret: z.boolean().optional(),
            })
            .strict(),
        ),
        yaml: z.string(),
      })
      .strict(),
  })
  .strict();
const PipelineList = z.object({ kind: z.literal('List'), items: z.array(Manifest) }).strict();
const BuildList = z.object({ kind: z.literal('List'), items: z.array(Build.strict()) }).strict();

// Each backend's run starts about twenty CLI processes and a dozen builds: 2 minutes alone on
// a 2-core CI machine, and more than 7 beside the rest of the suite there (cancelled at 420 s).
for (const backend of ['pglite', 'postgres'] as const) {
  test(`the build CLI end to end on ${backend}`, { timeout: 720_000 }, async (t) => {
    const target = backend === 'pglite' ? await upOnPglite() : await serverOnPostgres();
    const project = `cli-${backend}`;

    await t.test('a context from the printed token; the file is 0600', async () => {
      const made = await sluice(
        target,
        ['auth', 'create-context', 'local', '--url', target.url, '--token-stdin'],
        { input: `${target.token}\n` },
      );
      assert.equal(made.code, 0, made.stderr);
      assert.match(made.stdout, /context\/local created \(in use\)/);
      assert.equal(statSync(target.configFile).mode & 0o777, 0o600);
      assert.equal(statSync(join(target.configFile, '..')).mode & 0o777, 0o700);
      const listed = await sluice(target, ['auth', 'get-contexts']);
      assert.match(listed.stdout, new RegExp(`^\\*\\s+local\\s+${target.url}$`, 'm'));
      assert.doesNotMatch(listed.stdout + listed.stderr, new RegExp(target.token));
    });

    const file = join(await tempDir('sluice-cli-manifest-'), 'pipelines.yaml');
    await t.test('apply -f creates, then finds everything unchanged, then configures', async () => {
      writeFileSync(file, manifest(project));
      const first = await sluice(target, ['apply', '-f', file]);
      assert.equal(first.code, 0, first.stderr);
      assert.deepEqual(first.stdout.trim().split('\n'), [
        `project/${project} created`,
        `pipeline/${project}/ok created`,
        `pipeline/${project}/fails created`,
        `pipeline/${project}/slow created`,
        `pipeline/${project}/gate created`,
      ]);
      const again = await sluice(target, ['apply', '-f', file]);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, new RegExp(`pipeline/${project}/fails unchanged`));
      // The secret is given again, so it is set again; everything else is unchanged.
      assert.match(again.stdout, new RegExp(`pipeline/${project}/ok configured`));
      writeFileSync(file, manifest(project, OK_YAML.replace('second step', 'second step, v2')));
      const changed = await sluice(target, ['apply', '-f', file]);
      assert.match(changed.stdout, new RegExp(`pipeline/${project}/ok configured`));
      const stored = await sluice(target, ['get', 'pipeline', `${project}/ok`, '-o', 'yaml']);
      assert.match(stored.stdout, /second step, v2/);
      const refused = await sluice(target, ['create', 'pipeline', '-f', file]);
      assert.equal(refused.code, 75, refused.stderr);
      assert.match(refused.stderr, /already exists/);
    });

    await t.test('get pipelines -o yaml round-trips through apply -f', async () => {
      const yaml = await sluice(target, ['get', 'pipelines', '--project', project, '-o', 'yaml']);
      assert.equal(yaml.code, 0, yaml.stderr);
      const list = PipelineList.parse(parse(yaml.stdout));
      const ok = list.items.find((p) => p.metadata.name === 'ok');
      assert.match(ok?.spec.yaml ?? '', /# a comment that must survive/);
      assert.deepEqual(ok?.spec.variables, [
        { name: 'API_KEY', secret: true },
        { name: 'GREETING', value: 'world' },
      ]);
      const back = await sluice(target, ['apply', '-f', '-'], { input: yaml.stdout });
      assert.equal(back.code, 0, back.stderr);
      for (const name of ['ok', 'fails', 'slow', 'gate'])
        assert.match(back.stdout, new RegExp(`pipeline/${project}/${name} unchanged`));
      const json = await sluice(target, ['get', 'pipelines', '--project', project, '-o', 'json']);
      PipelineList.parse(JSON.parse(json.stdout));
      const table = await sluice(target, ['get', 'pipelines']);
      assert.match(table.stdout, /^NAME\s+RUNTIME\s+CONCURRENCY\s+VARIABLES\s+AGE$/m);
      assert.match(table.stdout, new RegExp(`^${project}/ok\\s+\\(default\\)\\s+-\\s+2\\s`, 'm'));
      const wide = await sluice(target, ['get', 'pipelines', '-o', 'wide']);
      assert.match(wide.stdout, /\s+UPDATED\s+ID$/m);
      assert.match(wide.stdout, /pip_\w+$/m);
    });

    let okBuild = '';
    await t.test('run-pipeline follows the log and exits 0; describe shows it', async () => {
      const run = await sluice(target, [
        'run-pipeline',
        `${project}/ok`,
        '-b',
        'main',
        '--sha',
        'abc123',
      ]);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /^\[greet\] hello world on main$/m);
      assert.match(run.stdout, /^\[greet\] count 3$/m);
      assert.match(run.stdout, /^\[second\] second step, v2$/m);
      assert.ok(!(run.stdout + run.stderr).includes('\u001b['), 'no colour off a terminal');
      okBuild = /Build (bld_\w+) success/.exec(run.stdout)?.[1] ?? '';
      assert.notEqual(okBuild, '', run.stdout);
      const described = await sluice(target, ['describe', 'build', okBuild]);
      assert.equal(described.code, 0, described.stderr);
      assert.match(described.stdout, new RegExp(`^Pipeline:\\s+${project}/ok #1$`, 'm'));
      assert.match(described.stdout, /^Status:\s+success$/m);
      assert.match(described.stdout, /^Runtime:\s+local$/m);
      assert.match(described.stdout, /^Agent:\s+local \(agt_\w+\)$/m);
      assert.match(described.stdout, /^Revision:\s+abc123$/m);
      assert.match(
        described.stdout,
        /^STEP\s+STATUS\s+DURATION\s+TITLE\s+ATTEMPT\s+EXIT\s+REASON$/m,
      );
      assert.match(described.stdout, /^greet\s+success\s+\d[\d.]*m?s\s+1\s+0/m);
      assert.match(described.stdout, /Timing \(from queued\)/);
      assert.match(described.stdout, /first step started {2}\(\d/);
      assert.match(described.stdout, /^Annotations:\n {2}greeted: world\n {2}reviewed$/m);
    });

    let failedBuild = '';
    await t.test('a failing pipeline exits 1; --runtime picks the runtime', async () => {
      const run = await sluice(target, ['run-pipeline', `${project}/fails`, '--runtime', 'local']);
      assert.equal(run.code, 1, run.stdout + run.stderr);
      failedBuild = /Build (bld_\w+) failure/.exec(run.stdout)?.[1] ?? '';
      assert.match(run.stdout, /^\[broken\] about to fail$/m);
      const missing = await sluice(target, ['run-pipeline', `${project}/ok`, '--runtime', 'nope']);
      assert.equal(missing.code, 66, missing.stderr);
      assert.match(missing.stderr, /Runtime environment "nope" does not exist/);
    });
    // `sluice up`'s first steps end here; what follows does not depend on the database.
    if (backend === 'pglite') return;

    await t.test('an errored build exits 5', async () => {
      await target.admin.call('createRuntimeEnvironment', {
        body: {
          name: 'incomplete',
          spec: { metadata: { name: 'incomplete' }, runtimeScheduler: { type: 'KubernetesPod' } },
        },
      });
      const run = await sluice(target, [
        'run-pipeline',
        `${project}/ok`,
        '--runtime',
        'incomplete',
      ]);
      assert.equal(run.code, 5, run.stdout + run.stderr);
      assert.match(run.stdout, /Build bld_\w+ error/);
    });

    await t.test('--detach prints the id at once; logs -f follows to the end', async () => {
      const detached = await sluice(target, ['run-pipeline', `${project}/ok`, '--detach']);
      assert.equal(detached.code, 0, detached.stderr);
      const id = detached.stdout.trim();
      assert.match(id, /^bld_\w+$/);
      assert.notEqual(await statusOf(target, id), 'success', 'detach did not wait');
      const logs = await sluice(target, ['logs', '-f', id]);
      assert.equal(logs.code, 0, logs.stderr);
      assert.match(logs.stdout, /^\[second\] second step, v2$/m);
      const whole = await sluice(target, ['logs', id]);
      assert.equal(whole.stdout, logs.stdout, 'logs without -f prints the same finished log');
    });

    await t.test("logs --step: one step's lines, masked; -f follows it to the end", async () => {
      const detached = await sluice(target, ['run-pipeline', `${project}/ok`, '--detach']);
      const id = detached.stdout.trim();
      const followed = await sluice(target, ['logs', '-f', id, '--step', 'greet']);
      assert.equal(followed.code, 0, followed.stderr);
      const [hello, ...rest] = followed.stdout.trim().split('\n');
      assert.match(hello ?? '', /^hello world on /, followed.stdout);
      assert.deepEqual(rest, ['count 1', 'count 2', 'count 3', 'key ****']);
      const second = await sluice(target, ['logs', id, '--step', 'second']);
      assert.equal(second.code, 0, second.stderr);
      assert.equal(second.stdout, 'second step, v2\n');
      const greet = await sluice(target, ['logs', id, '--step', 'greet']);
      assert.equal(greet.stdout, followed.stdout, 'the finished step prints what -f printed');
      assert.ok(!(followed.stdout + greet.stdout).includes('s3cr3t-value'), 'the secret is masked');
      const missing = await sluice(target, ['logs', id, '--step', 'nope']);
      assert.equal(missing.code, 66, missing.stderr);
      assert.match(missing.stderr, /has no step "nope" \(its steps: greet, second\)/);
      // -f exits with the build's result, as logs -f does: the failed build's is 1.
      const broken = await sluice(target, ['logs', '-f', failedBuild, '--step', 'broken']);
      assert.equal(broken.code, 1, broken.stdout + broken.stderr);
      assert.equal(broken.stdout, 'about to fail\nThe step exited with code 3\n');
    });

    await t.test('what a build wrote is shown escaped, colours kept with colour on', async () => {
      const pipeline = await target.admin.call('createPipeline', {
        params: { project },
        body: { name: 'hostile', yaml: HOSTILE_YAML },
      });
      assert.ok(pipeline.id);
      const escaped = '\\x1b]52;c;aGk=\\x07\\x1b]0;owned\\x07\\x1b[2J';
      const run = await sluice(target, ['run-pipeline', `${project}/hostile`]);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.ok(run.stdout.includes(`[hostile] ${escaped}red\n`), run.stdout);
      // Off a terminal nothing reaches it raw: no escape, no bell, not even a colour.
      assert.deepEqual(controls(run.stdout + run.stderr), []);
      const id = /Build (bld_\w+) success/.exec(run.stdout)?.[1] ?? '';
      const color = { env: { NO_COLOR: undefined, FORCE_COLOR: '1' } };
      const logs = await sluice(target, ['logs', id], color);
      assert.equal(logs.code, 0, logs.stderr);
      assert.ok(logs.stdout.includes(`${escaped}\u001b[31mred\u001b[0m`), logs.stdout);
      for (const sent of ['\u001b]', '\u0007', '\u001b[2J']) assert.ok(!logs.stdout.includes(sent));
      const raw = await sluice(target, ['logs', id, '--raw']);
      assert.ok(raw.stdout.includes('\u001b]52;c;aGk=\u0007\u001b]0;owned\u0007\u001b[2J'));
      const described = await sluice(target, ['describe', 'build', id], color);
      assert.equal(described.code, 0, described.stderr);
      assert.match(described.stdout, /^ {2}evil: x\\x1b\]0;owned\\x07y$/m);
      for (const sent of ['\u001b]', '\u0007']) assert.ok(!described.stdout.includes(sent));
    });

    await t.test('cancel stops a running build; run-pipeline exits 3', async () => {
      const run = startSluice(['run-pipeline', `${project}/slow`], { env: target.env });
      children.push({ stop: () => Promise.resolve(run.child.kill('SIGKILL')) });
      await run.waitForOutput('[wait] sleeping', 120_000);
      const id = await buildIdOf(run);
      const cancelled = await sluice(target, ['cancel', id]);
      assert.equal(cancelled.code, 0, cancelled.stderr);
      const result = await run.done;
      assert.equal(result.code, 3, result.stdout + result.stderr);
      assert.equal(await statusOf(target, id), 'terminated');
    });

    await t.test('deny exits 4, approve lets the build on', async () => {
      for (const [decision, code] of [
        ['deny', 4],
        ['approve', 0],
      ] as const) {
        const run = startSluice(['run-pipeline', `${project}/gate`], { env: target.env });
        children.push({ stop: () => Promise.resolve(run.child.kill('SIGKILL')) });
        const id = await buildIdOf(run);
        await waitFor(
          () => statusOf(target, id),
          (status) => status === 'pending-approval',
          { what: `build ${id} to wait for approval` },
        );
        const answered = await sluice(target, [decision, id]);
        assert.equal(answered.code, 0, answered.stderr);
        const result = await run.done;
        assert.equal(result.code, code, `${decision}: ${result.stdout}${result.stderr}`);
        if (decision === 'approve') assert.match(result.stdout, /\[after\] approved and running/);
        assert.match(result.stderr, new RegExp(`Answer it: sluice approve ${id} --step gate`));
      }
    });

    await t.test('restart starts a new build of the same revision', async () => {
      const restarted = await sluice(target, ['restart', okBuild]);
      assert.equal(restarted.code, 0, restarted.stderr);
      const id = /build\/(bld_\w+) created \(restart of /.exec(restarted.stdout)?.[1] ?? '';
      const build = await target.admin.call('getBuild', { params: { buildId: id } });
      assert.equal(build.retryOf, okBuild);
      assert.equal(build.revision, 'abc123');
      assert.equal(build.branch, 'main');
      await waitFor(
        () => statusOf(target, id),
        (status) => status === 'success',
        { what: `restarted build ${id} to finish` },
      );
    });

    await t.test('get builds: table, filters, wide, json and yaml', async () => {
      const table = await sluice(target, ['get', 'builds']);
      assert.equal(table.code, 0, table.stderr);
      const lines = table.stdout.trimEnd().split('\n');
      assert.match(lines[0] ?? '', /^ID\s+PIPELINE\s+NUMBER\s+STATUS\s+BRANCH\s+AGE\s+DURATION$/);
      for (const line of lines) assert.ok(line.length <= 100, `wider than 100: ${line}`);
      const failed = await sluice(target, [
        'get',
        'builds',
        '--pipeline',
        `${project}/fails`,
        '--status',
        'failure',
      ]);
      assert.equal(failed.stdout.trimEnd().split('\n').length, 2, failed.stdout);
      assert.match(failed.stdout, new RegExp(`${project}/fails\\s+1\\s+failure`));
      const branch = await sluice(target, ['get', 'builds', '--branch', 'main', '-o', 'wide']);
      assert.match(branch.stdout, /TRIGGER\s+REVISION\s+RUNTIME\s+REASON$/m);
      assert.match(branch.stdout, /manual\s+abc123\s+local/);
      const json = await sluice(target, ['get', 'builds', '--limit', '3', '-o', 'json']);
      assert.equal(BuildList.parse(JSON.parse(json.stdout)).items.length, 3);
      const yaml = await sluice(target, ['get', 'build', okBuild, '-o', 'yaml']);
      assert.equal(Build.strict().parse(parse(yaml.stdout)).id, okBuild);
      const typo = await sluice(target, ['get', 'builds', '--status', 'sucess']);
      assert.equal(typo.code, 2);
      assert.match(typo.stderr, /Did you mean "success"/);
    });

    await t.test(
      'create agent prints only its token; get agents shows it; delete agent',
      async () => {
        const made = await sluice(target, [
          'create',
          'agent',
          `extra-${backend}`,
          '--runtime',
          'local',
        ]);
        assert.equal(made.code, 0, made.stderr);
        assert.match(made.stdout, /^slu_a_\S+\n$/);
        const table = await sluice(target, ['get', 'agents', '-o', 'wide']);
        assert.match(
          table.stdout,
          /^NAME\s+RUNTIMES\s+ONLINE\s+HEALTHY\s+VERSION\s+LAST SEEN\s+ID\s+MESSAGE$/m,
        );
        assert.match(table.stdout, new RegExp(`^extra-${backend}\\s+local\\s+no\\s`, 'm'));
        assert.match(table.stdout, /^local\s+local\s+yes\s+yes\s/m);
        const info = await sluice(target, ['runner', 'info']);
        assert.equal(info.code, 0, info.stderr);
        assert.match(
          info.stdout,
          /^RUNTIME\s+KIND\s+AGENT\s+ONLINE\s+HEALTHY\s+VERSION\s+LAST SEEN\s+POOL$/m,
        );
        assert.match(info.stdout, /^local \(default\)\s+local\s+local\s+yes\s+yes\s+\d/m);
        assert.match(
          info.stdout,
          new RegExp(`^local \\(default\\)\\s+local\\s+extra-${backend}\\s+no\\s+-`, 'm'),
        );
        assert.match(info.stdout, /^incomplete\s+kubernetes\s+\(none\)/m);
        assert.match(info.stderr, /No agent serves incomplete: builds there wait/);
        const infoJson = JSON.parse(
          (await sluice(target, ['runner', 'info', '-o', 'json'])).stdout,
        ) as {
          items: { runtime: string; agents: { name: string }[] }[];
        };
        assert.deepEqual(
          infoJson.items
            .find((r) => r.runtime === 'local')
            ?.agents.map((a) => a.name)
            .sort(),
          ['local', `extra-${backend}`].sort(),
        );
        const deleted = await sluice(target, ['delete', 'agent', `extra-${backend}`]);
        assert.equal(deleted.code, 0, deleted.stderr);
        const gone = await sluice(target, ['get', 'agent', `extra-${backend}`]);
        assert.equal(gone.code, 66);
      },
    );

    await t.test(
      'SLUICE_SERVER and SLUICE_TOKEN win; bad tokens and dead servers say what to do',
      async () => {
        const dead = `http://127.0.0.1:${await freeLoopbackPort()}`;
        const made = await sluice(
          target,
          ['auth', 'create-context', 'dead', '--url', dead, '--token-stdin', '--no-verify'],
          { input: 'slu_u_whatever' },
        );
        assert.equal(made.code, 0, made.stderr);
        const unreachable = await sluice(target, ['get', 'builds']);
        assert.equal(unreachable.code, 69);
        assert.deepEqual(unreachable.stderr.trim().split('\n').length, 1, unreachable.stderr);
        assert.match(
          unreachable.stderr,
          new RegExp(`${dead} \\(context "dead"\\).*sluice auth create-context dead`),
        );
        const env = { SLUICE_SERVER: target.url, SLUICE_TOKEN: target.token };
        const overridden = await sluice(target, ['get', 'builds', '--limit', '1'], { env });
        assert.equal(overridden.code, 0, overridden.stderr);
        const wrong = await sluice(
          target,
          ['auth', 'create-context', 'wrong', '--url', target.url, '--token-stdin', '--no-verify'],
          { input: 'slu_u_not-a-real-token' },
        );
        assert.equal(wrong.code, 0, wrong.stderr);
        const refused = await sluice(target, ['get', 'builds']);
        assert.equal(refused.code, 77);
        assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
        assert.match(
          refused.stderr,
          new RegExp(
            `${target.url} \\(context "wrong"\\) refused the token.*sluice auth create-context wrong --url ${target.url}`,
          ),
        );
        const use = await sluice(target, ['auth', 'use-context', 'local']);
        assert.equal(use.code, 0, use.stderr);
        assert.equal((await sluice(target, ['get', 'projects'])).code, 0);
      },
    );
  });
}
