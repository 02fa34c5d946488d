#!/usr/bin/env node
// repo-source: what reading codefresh.yml from the repository adds before a build's work starts,
// against the same pipeline stored in Sluice, in the same run. `sluice up` (PGlite, the local
// runtime) and a git server over HTTP with a token (reached from the build's containers); two
// pipelines with the same YAML, a clone of the repository then one step: `inline` stores it,
// `repo` reads it from the repository at the build's branch. BENCH_BUILDS (10) builds of each,
// alternating, after one warm-up build of each, BENCH_GAP_MS (2.5 s) apart.
//   inline_s, repo_s   median of build created → the step after the clone started (the work:
//                      the clone is needed by both, and the repository's build reuses the clone
//                      its engine made to read the file)
//   first_step_s       median of created → first step started, for each (the repository's
//                      first step starts after its engine read the file)
//   phases_s           for each, the medians of the start's phases (bench/build-timing.mjs)
//   ratio              repo_s / inline_s
// Goal: ratio at most 1.3.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import { createClient } from '@sluice/protocol';
import {
  createGitRepo,
  dockerHostAddress,
  ensureDockerEngine,
  ensureTestImages,
  makeTempDir,
  startGitHttpServer,
  waitFor,
} from '@sluice/testkit';
import { between, START_PHASES } from '../build-timing.mjs';
import { startSluice, waitForUp } from '../../test/dist/e2e/cli-harness.js';
import { createPipelines } from '../../test/dist/e2e/control-plane-seed.js';

const BUILDS = Number(process.env.BENCH_BUILDS ?? 10);
/**
 * Between builds: the agent refills its standby engine a second after handing one out, and a
 * build that came sooner would start a cold engine whichever kind it is (bench/local-start).
 */
const GAP_MS = Number(process.env.BENCH_GAP_MS ?? 2500);
const PROJECT = 'bench';
const GIT_TOKEN = 'bench-git-token-0123456789';
const PIPELINE = [
  'version: "1.0"',
  'steps:',
  '  main_clone:',
  '    type: git-clone',
  '    repo: ${{REPO_URL}}',
  '    revision: ${{CF_BRANCH}}',
  '    git: gitsrv',
  '  work:',
  '    image: sluice/busybox:1',
  '    commands: [ls]',
  '',
].join('\n');

const seconds = (ms) => Math.round(ms) / 1000;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length / 2) - 1];

/** One build of `pipelineId` on main, run to its end: created → first step, → the work step. */
async function oneBuild(admin, pipelineId, repoUrl) {
  await new Promise((resolve) => setTimeout(resolve, GAP_MS));
  const created = await admin.call('createBuild', {
    params: { pipelineId },
    body: { branch: 'main', variables: { REPO_URL: repoUrl } },
  });
  const build = await waitFor(
    () => admin.call('getBuild', { params: { buildId: created.id } }),
    (b) => b.timing.finishedAt !== undefined,
    { what: `build ${created.id} to finish`, intervalMs: 50, timeoutMs: 120_000 },
  );
  if (build.status !== 'success')
    throw new Error(`build ${build.id} ${build.status}: ${build.reason}`);
  const createdAt = Date.parse(build.createdAt);
  const work = build.steps.find((s) => s.name === 'work');
  const phases = Object.fromEntries(
    START_PHASES.map(([name, from, to]) => [name, between(build.timing[from], build.timing[to])]),
  );
  return {
    firstStep: Date.parse(build.timing.firstStepStartedAt) - createdAt,
    work: Date.parse(work?.startedAt ?? '') - createdAt,
    phases,
  };
}

await ensureDockerEngine();
await ensureTestImages();
const temp = await makeTempDir('sluice-bench-repo-source-');
// The bare repository is <temp>/acme/repo.git, served as /acme/repo.git.
await createGitRepo({
  files: { 'codefresh.yml': PIPELINE, 'app.txt': 'app\n' },
  dir: join(temp.path, 'acme'),
});
const git = await startGitHttpServer({ root: temp.path, username: 'ci-bot', password: GIT_TOKEN });
const cli = startSluice(['up', '--port', '0', '--data-dir', join(temp.path, 'data')]);
try {
  const { url, token } = await waitForUp(cli);
  const admin = createClient({ baseUrl: url, token });
  const host = await dockerHostAddress();
  const repoUrl = `${git.urlVia(host)}/acme/repo.git`;
  await admin.call('createGitIntegration', {
    body: {
      name: 'gitsrv',
      kind: 'git',
      url: git.urlVia(host),
      username: 'ci-bot',
      token: GIT_TOKEN,
    },
  });
  const { inline } = await createPipelines(admin, PROJECT, { inline: PIPELINE });
  const fromRepo = await admin.call('createPipeline', {
    params: { project: PROJECT },
    body: { name: 'repo', specTemplate: { location: 'git', repo: repoUrl, context: 'gitsrv' } },
  });
  const loadAtStart = loadavg()[0];
  await oneBuild(admin, inline, repoUrl);
  await oneBuild(admin, fromRepo.id, repoUrl);
  const runs = { inline: [], repo: [] };
  for (let i = 0; i < BUILDS; i++) {
    runs.inline.push(await oneBuild(admin, inline, repoUrl));
    runs.repo.push(await oneBuild(admin, fromRepo.id, repoUrl));
    console.log(
      `builds ${i + 1}/${BUILDS}: created → work inline ${runs.inline.at(-1).work} ms, from the repository ${runs.repo.at(-1).work} ms`,
    );
  }
  const of = (kind, key) => median(runs[kind].map((r) => r[key]));
  const ratio = of('repo', 'work') / of('inline', 'work');
  console.log(
    JSON.stringify({
      bench: 'repo-source',
      builds: BUILDS,
      inline_s: seconds(of('inline', 'work')),
      repo_s: seconds(of('repo', 'work')),
      phases_s: Object.fromEntries(
        ['inline', 'repo'].map((kind) => [
          kind,
          Object.fromEntries(
            START_PHASES.map(([name]) => [
              name,
              seconds(median(runs[kind].map((r) => r.phases[name]))),
            ]),
          ),
        ]),
      ),
      first_step_s: {
        inline: seconds(of('inline', 'firstStep')),
        repo: seconds(of('repo', 'firstStep')),
      },
      ratio: Math.round(ratio * 100) / 100,
      goal: { ratio: 1.3 },
      met: ratio <= 1.3,
      machine: {
        cpus: cpus().length,
        loadavg_1m: [Math.round(loadAtStart * 100) / 100, Math.round(loadavg()[0] * 100) / 100],
      },
    }),
  );
} finally {
  cli.child.kill('SIGTERM');
  await cli.done;
  await git.close();
  spawnSync('docker', [
    'volume',
    'rm',
    '-f',
    `sluice-volume-${PROJECT}-inline`,
    `sluice-volume-${PROJECT}-repo`,
  ]);
  await temp.cleanup();
}
