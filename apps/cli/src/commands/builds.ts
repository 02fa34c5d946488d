/**
 * `sluice get builds [ID]` (filters, pages, `-o wide|yaml|json`), `sluice describe build ID`
 * (where and how it ran, its steps and its timing waterfall), and the verbs that move a build
 * on: `cancel`, `approve`, `deny`.
 * @module
 */
import { closest, InputError } from '@sluice/errors';
import { BuildStatus } from '@sluice/protocol';
import type { Build, CommitStatusReport, SluiceClient } from '@sluice/protocol';
import type { Terminal } from '../ui/terminal.js';
import { formatAge, formatDuration } from '../ui/terminal.js';
import { resolvePipeline } from './pipeline-ref.js';
import { describeCache, printSteps, printWaterfall } from './remote-build-report.js';
import { annotationLines } from '../ui/annotation-lines.js';
import { printDocument, printResources, serverClient } from './server-resources.js';
import type { OutputFormat, ServerOptions } from './server-resources.js';

const STATUSES: readonly BuildStatus[] = BuildStatus.options;
const PAGE = 200;

export interface GetBuildsOptions extends ServerOptions {
  output: OutputFormat;
  columns: number;
  pipeline?: string;
  status?: string;
  branch?: string;
  limit: number;
}

export async function getBuilds(
  term: Terminal,
  id: string | undefined,
  options: GetBuildsOptions,
): Promise<number> {
  const client = serverClient(options);
  if (id !== undefined) {
    const build = await client.call('getBuild', { params: { buildId: id } });
    if (options.output === 'json' || options.output === 'yaml')
      printDocument(term, build, options.output);
    else printResources(term, [build], options.output, BUILD_TABLE, options);
    return 0;
  }
  const builds = await listBuilds(client, options);
  printResources(term, builds, options.output, BUILD_TABLE, options);
  return 0;
}

async function listBuilds(client: SluiceClient, options: GetBuildsOptions): Promise<Build[]> {
  const status = options.status === undefined ? undefined : checkStatus(options.status);
  const pipelineId =
    options.pipeline === undefined
      ? undefined
      : (await resolvePipeline(client, options.pipeline)).id;
  const builds: Build[] = [];
  let cursor: string | undefined;
  do {
    const limit = Math.min(PAGE, options.limit - builds.length);
    const page = await client.call('listBuilds', {
      query: { limit, cursor, pipelineId, status, branch: options.branch },
    });
    builds.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined && builds.length < options.limit);
  return builds;
}

function checkStatus(value: string): BuildStatus {
  const status = STATUSES.find((s) => s === value);
  if (status !== undefined) return status;
  const near = closest(value, STATUSES);
  throw new InputError('SLUICE_CLI_BAD_STATUS', `--status "${value}" is not a build status`, {
    hint: near
      ? `Did you mean "${near}"? (one of: ${STATUSES.join(', ')})`
      : `Use one of: ${STATUSES.join(', ')}`,
  });
}

const BUILD_TABLE = {
  header: ['ID', 'PIPELINE', 'NUMBER', 'STATUS', 'BRANCH', 'AGE', 'DURATION'],
  row: (b: Build) => [
    b.id,
    `${b.project}/${b.pipeline}`,
    String(b.number),
    b.status,
    b.branch ?? '',
    formatAge(b.createdAt),
    buildDuration(b),
  ],
  wide: {
    header: ['TRIGGER', 'REVISION', 'RUNTIME', 'REASON'],
    row: (b: Build) => [
      b.trigger,
      (b.revision ?? '').slice(0, 12),
      b.runtimeEnvironment ?? '',
      b.reason ?? '',
    ],
  },
};

function buildDuration(build: Build, now = Date.now()): string {
  const from = Date.parse(build.timing.queuedAt ?? build.createdAt);
  const to = build.finishedAt === null ? now : Date.parse(build.finishedAt);
  if (Number.isNaN(from) || Number.isNaN(to)) return '-';
  return formatDuration(Math.max(0, to - from));
}

export interface DescribeOptions extends ServerOptions {
  columns: number;
}

export async function describeBuild(
  term: Terminal,
  id: string,
  options: DescribeOptions,
): Promise<number> {
  const client = serverClient(options);
  const build = await client.call('getBuild', { params: { buildId: id } });
  const status = await client.call('getBuildCommitStatus', { params: { buildId: id } });
  let agent = build.agentId ?? '-';
  if (build.agentId !== null) {
    const { items } = await client.call('listAgents');
    const found = items.find((a) => a.id === build.agentId);
    if (found !== undefined) agent = `${found.name} (${found.id})`;
  }
  const variables = [
    ...Object.keys(build.variables),
    ...build.secretNames.map((n) => `${n} (secret)`),
  ];
  const fields: [string, string][] = [
    ['Build', build.id],
    ['Pipeline', `${build.project}/${build.pipeline} #${build.number}`],
    ['Status', build.reason === null ? build.status : `${build.status}: ${build.reason}`],
    [
      'Trigger',
      build.initiator === null
        ? build.trigger
        : `${build.trigger} by ${build.initiatorName ?? build.initiator}`,
    ],
    ['Branch', build.branch ?? '-'],
    ['Revision', build.revision ?? '-'],
    ['Definition', describeDefinition(build.definition)],
    ['Runtime', build.runtimeEnvironment ?? '(not chosen yet)'],
    ['Agent', agent],
    ['Created', `${build.createdAt} (${formatAge(build.createdAt)} ago)`],
    ['Finished', build.finishedAt ?? '-'],
    ['Duration', buildDuration(build)],
    ['Cache', build.cache === null ? 'not recorded' : describeCache(build.cache)],
  ];
  const commit = build.commit;
  if (commit?.message) fields.push(['Commit', commit.message.split('\n')[0] ?? '']);
  if (commit?.author) fields.push(['Author', commit.author]);
  if (commit?.url) fields.push(['Commit URL', commit.url]);
  if (status !== null) fields.push(['Commit status', describeCommitStatus(status)]);
  if (build.retryOf !== null) fields.push(['Restart of', build.retryOf]);
  if (variables.length > 0) fields.push(['Variables', variables.join(', ')]);
  const width = Math.max(...fields.map(([k]) => k.length)) + 2;
  for (const [key, value] of fields)
    term.out(`${term.paint('bold', `${key}:`.padEnd(width))}${value}`);
  term.out('');
  const annotations = annotationLines(build);
  for (const line of annotations) term.out(line);
  if (annotations.length > 0) term.out('');
  if (build.steps.length === 0)
    term.out(
      build.definition.location === 'git' && build.definition.sha === null
        ? `No steps yet: reading ${build.definition.path ?? 'codefresh.yml'} from the repository`
        : 'No steps yet',
    );
  else printSteps(term, build, { detail: true, columns: options.columns });
  printWaterfall(term, build.timing);
  return 0;
}

/** What the build's commit was told on its git host, and whether the host took it. */
export function describeCommitStatus(status: CommitStatusReport): string {
  const on = `${status.context} on ${status.repo}@${status.sha.slice(0, 8)} via ${status.integration}`;
  const sent = status.sent.map((s) => s.state).join(' → ') || 'nothing yet';
  const failing =
    status.lastError === null ? '' : `; refused ${status.attempts}×: ${status.lastError}`;
  return `${sent} (${on})${failing}`;
}

/** Where the build's pipeline definition came from, and at which commit. */
export function describeDefinition(definition: Build['definition']): string {
  if (definition.location === 'inline') return "the pipeline's stored YAML";
  const at = definition.revision === null ? 'the default branch' : definition.revision;
  const read = definition.sha === null ? `not read yet (${at})` : `at ${definition.sha}`;
  return `${definition.path ?? 'codefresh.yml'} in ${definition.repo ?? '?'}, ${read}`;
}

export async function cancelBuild(
  term: Terminal,
  id: string,
  options: ServerOptions,
): Promise<number> {
  const build = await serverClient(options).call('cancelBuild', { params: { buildId: id } });
  term.out(
    build.status === 'terminated'
      ? `build/${id} cancelled`
      : `build/${id} cancel requested: its engine stops the running step (sluice logs -f ${id})`,
  );
  return 0;
}

export async function answerBuild(
  term: Terminal,
  id: string,
  decision: 'approve' | 'deny',
  options: ServerOptions & { step?: string },
): Promise<number> {
  const route = decision === 'approve' ? 'approveBuild' : 'denyBuild';
  await serverClient(options).call(route, {
    params: { buildId: id },
    body: { step: options.step },
  });
  const what = options.step === undefined ? 'every waiting approval' : `step ${options.step}`;
  term.out(`build/${id} ${decision === 'approve' ? 'approved' : 'denied'} (${what})`);
  return 0;
}
