/**
 * `sluice up --demo`: a project `demo` with a pipeline `hello` (made once; three freestyle
 * steps on `sluice/busybox:1`, one `cf_export`), one build of it through the API, its log
 * followed over Server-Sent Events as it is written, then its status, steps and timing.
 * @module
 */
import { isSluiceError } from '@sluice/errors';
import type { Build, SluiceClient } from '@sluice/protocol';
import type { Terminal } from '../ui/terminal.js';
import { followBuildLog } from './follow-build-log.js';
import { formatLogLine, printRemoteBuild } from './remote-build-report.js';

export const DEMO_PROJECT = 'demo';
export const DEMO_PIPELINE = 'hello';

export const DEMO_YAML = `version: "1.0"
steps:
  hello:
    title: Say hello
    image: sluice/busybox:1
    commands:
      - echo "Hello from Sluice, build $CF_BUILD_ID"
      - uname -sm
      - cf_export GREETING="hello from the first step"
  count:
    title: Use the exported value
    image: sluice/busybox:1
    commands:
      - echo "The first step says $GREETING"
      - for i in 1 2 3; do echo "counting $i"; sleep 1; done
  done:
    title: Finish
    image: sluice/busybox:1
    commands:
      - echo "All done on branch \${{CF_BRANCH}}"
`;

/** Runs one demo build and prints it; undefined when `signal` aborted (Ctrl-C) first. */
export async function runDemo(
  term: Terminal,
  admin: SluiceClient,
  signal: AbortSignal,
): Promise<Build | undefined> {
  const pipelineId = await ensureDemoPipeline(admin);
  const queued = await admin.call('createBuild', {
    params: { pipelineId },
    body: { branch: 'main' },
  });
  term.out('');
  term.out(
    term.paint('bold', `Demo: build #${queued.number} of ${DEMO_PROJECT}/${DEMO_PIPELINE}`) +
      term.paint('dim', ` (${queued.id}); its log, as it is written:`),
  );
  const end = await followBuildLog(
    admin,
    queued.id,
    (line) => term.out(formatLogLine(term, line)),
    {
      signal,
    },
  );
  if (end.kind === 'aborted') return undefined;
  const build = await admin.call('getBuild', { params: { buildId: queued.id } });
  printRemoteBuild(term, build);
  return build;
}

async function ensureDemoPipeline(admin: SluiceClient): Promise<string> {
  try {
    await admin.call('getProject', { params: { project: DEMO_PROJECT } });
  } catch (err) {
    if (!isSluiceError(err) || err.category !== 'not-found') throw err;
    await admin.call('createProject', { body: { name: DEMO_PROJECT } });
  }
  const { items } = await admin.call('listPipelines', { params: { project: DEMO_PROJECT } });
  const existing = items.find((p) => p.name === DEMO_PIPELINE);
  if (existing !== undefined) return existing.id;
  const body = { name: DEMO_PIPELINE, yaml: DEMO_YAML };
  return (await admin.call('createPipeline', { params: { project: DEMO_PROJECT }, body })).id;
}
