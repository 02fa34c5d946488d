/**
 * `sluice run-pipeline PIPELINE` (start a build of a stored pipeline and follow its log to the
 * end; the exit code is the build's outcome; `--local-file PATH` runs that file once instead of
 * the pipeline's definition, its problems shown at PATH:line:column), `sluice restart BUILD [-f]` (the same revision,
 * variables and secrets as a new build) and `sluice logs BUILD [-f] [--step NAME]`. Following
 * survives a server restart or a dropped network: it resumes after the last line printed.
 * Ctrl-C stops following only; the build goes on.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { NotFoundError } from '@sluice/errors';
import type { Build, LogLine, SluiceClient } from '@sluice/protocol';
import { parsePairs } from '../config.js';
import { issuesOf, readDocument } from './document-file.js';
import type { Terminal } from '../ui/terminal.js';
import { BUILD_EXIT_CODES, buildOutcome } from './build-outcome.js';
import { followBuildLog } from './follow-build-log.js';
import { resolvePipeline } from './pipeline-ref.js';
import {
  formatLogLine,
  formatStepLine,
  printRemoteBuild,
  rawLogLine,
} from './remote-build-report.js';
import { serverClient } from './server-resources.js';
import type { ServerOptions } from './server-resources.js';

/** Exit code when Ctrl-C (or SIGTERM) stopped the following, as for any command stopped so. */
const STOPPED = { SIGINT: 130, SIGTERM: 143 } as const;

export interface RunPipelineOptions extends ServerOptions {
  branch?: string;
  sha?: string;
  var: string[];
  secret: string[];
  runtime?: string;
  detach?: boolean;
  /** Run this file once instead of the pipeline's definition. */
  localFile?: string;
}

export async function runPipeline(
  term: Terminal,
  ref: string,
  options: RunPipelineOptions,
): Promise<number> {
  const variables = parsePairs('--var', options.var);
  const secrets = parsePairs('--secret', options.secret);
  const client = serverClient(options);
  const yaml = options.localFile === undefined ? undefined : readDocument(options.localFile);
  const pipeline = await resolvePipeline(client, ref);
  const build = await client
    .call('createBuild', {
      params: { pipelineId: pipeline.id },
      body: {
        branch: options.branch,
        revision: options.sha,
        variables: Object.keys(variables).length ? variables : undefined,
        secrets: Object.keys(secrets).length ? secrets : undefined,
        runtimeEnvironment: options.runtime,
        yaml,
      },
    })
    .catch((err: unknown) => {
      // The file's problems at its own lines, as `sluice validate` shows them.
      for (const issue of issuesOf(err) ?? [])
        term.err(
          term.paint('red', `${options.localFile}:${issue.line}:${issue.column}: ${issue.message}`),
        );
      throw err;
    });
  if (options.detach) {
    term.out(build.id);
    return 0;
  }
  return followToEnd(term, client, build);
}

export async function restartBuild(
  term: Terminal,
  id: string,
  options: ServerOptions & { follow?: boolean },
): Promise<number> {
  const client = serverClient(options);
  const build = await client.call('restartBuild', { params: { buildId: id } });
  if (!options.follow) {
    term.out(`build/${build.id} created (restart of ${id})`);
    return 0;
  }
  return followToEnd(term, client, build);
}

export interface LogsOptions extends ServerOptions {
  follow?: boolean;
  /** One step's lines only, as it printed them (no `[step] ` prefix). */
  step?: string;
  /** The lines as stored: control characters and all, nothing painted. */
  raw?: boolean;
}

export async function logsCommand(
  term: Terminal,
  id: string,
  options: LogsOptions,
): Promise<number> {
  const client = serverClient(options);
  const { step, raw } = options;
  if (options.follow) {
    const build = await client.call('getBuild', { params: { buildId: id } });
    if (step !== undefined) checkStep(build, step);
    return followToEnd(term, client, build, { summary: false, step, raw });
  }
  if (step !== undefined) {
    checkStep(await client.call('getBuild', { params: { buildId: id } }), step);
    // The server picks the step's lines: only they cross the network.
    const response = await client.raw('buildLog', { params: { buildId: id }, query: { step } });
    const text = (await response.text()).replace(/\n$/, '');
    if (text !== '' && raw) term.raw(text);
    else if (text !== '') term.out(text);
    return 0;
  }
  const show = (line: LogLine) => {
    if (raw) term.raw(rawLogLine(line));
    else term.out(formatLogLine(term, line));
  };
  await followBuildLog(client, id, show, {
    signal: new AbortController().signal,
    follow: false,
  });
  return 0;
}

/**
 * A step the build does not have is refused, naming those it has; while it runs, a name not
 * planned may still come (the engine adds hook steps such as `build.on_success` as they start).
 */
function checkStep(build: Build, step: string): void {
  if (build.steps.some((s) => s.name === step) || build.finishedAt === null) return;
  throw new NotFoundError(
    'SLUICE_CLI_STEP_NOT_FOUND',
    `Build ${build.id} has no step "${step}" (its steps: ${build.steps.map((s) => s.name).join(', ') || 'none'})`,
    { hint: `See them with: sluice describe build ${build.id}` },
  );
}

/** How often a pending build is looked at, and how often its unchanged reason is said again. */
const PENDING_POLL_MS = 1000;
const PENDING_REPEAT_MS = 30_000;

/**
 * Until `signal` aborts (the first log line came, or following ended): while the build is
 * pending, says why on stderr when it is first known and whenever it changes, and again every
 * 30 s with how long it has waited. A build never waits silently.
 */
async function sayWhilePending(
  term: Terminal,
  client: SluiceClient,
  buildId: string,
  signal: AbortSignal,
): Promise<void> {
  const since = Date.now();
  let said = '';
  let saidAt = 0;
  while (!signal.aborted) {
    const build = await client.call('getBuild', { params: { buildId } }).catch(() => undefined);
    if (signal.aborted || (build !== undefined && build.status !== 'pending')) return;
    const reason = build?.reason ?? '';
    if (reason !== '' && (reason !== said || Date.now() - saidAt >= PENDING_REPEAT_MS)) {
      const waited = Math.round((Date.now() - since) / 1000);
      // The reasons read as sentences: "No runtime environment: …", "Waiting: the account …".
      term.err(
        term.paint(
          'yellow',
          said === reason ? `Still pending after ${waited} s. ${reason}` : reason,
        ),
      );
      said = reason;
      saidAt = Date.now();
    }
    await sleep(PENDING_POLL_MS, undefined, { signal }).catch(() => undefined);
  }
}

/**
 * Prints the build's log until it ends, then its steps and timing; returns the exit code of
 * its outcome. A person is told (on stderr) when the stream drops and when it resumes.
 */
export async function followToEnd(
  term: Terminal,
  client: SluiceClient,
  build: Build,
  options: { summary?: boolean; step?: string | undefined; raw?: boolean | undefined } = {},
): Promise<number> {
  const { step, raw } = options;
  term.err(
    term.paint(
      'dim',
      `Build ${build.id}: ${build.project}/${build.pipeline} #${build.number}; Ctrl-C stops following, the build goes on`,
    ),
  );
  const stop = new AbortController();
  let stoppedBy: keyof typeof STOPPED | undefined;
  const onSignal = (signal: keyof typeof STOPPED) => {
    stoppedBy = signal;
    stop.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // Says why the build is pending until its first line, or until following ends however it ends.
  const pendingNotice = new AbortController();
  void sayWhilePending(term, client, build.id, pendingNotice.signal);
  try {
    const onLine = (line: LogLine) => {
      if (step !== undefined && line.step !== step) return;
      if (raw) term.raw(step === undefined ? rawLogLine(line) : line.line);
      else term.out(step === undefined ? formatLogLine(term, line) : formatStepLine(term, line));
      // The engine says so when a pending-approval step starts waiting: say how to answer.
      if (
        line.stream === 'system' &&
        line.step !== null &&
        line.line.startsWith('Waiting for approval')
      )
        term.err(
          term.paint(
            'yellow',
            `Answer it: sluice approve ${build.id} --step ${line.step}, or sluice deny ${build.id} --step ${line.step}`,
          ),
        );
    };
    const result = await followBuildLog(
      client,
      build.id,
      (line) => {
        pendingNotice.abort();
        onLine(line);
      },
      {
        signal: stop.signal,
        onConnection: (state) =>
          term.err(
            term.paint(
              'yellow',
              state === 'lost'
                ? 'Lost the log stream; reconnecting (the build goes on)…'
                : 'Reconnected; resuming after the last line shown',
            ),
          ),
      },
    );
    if (result.kind === 'aborted') {
      term.err(
        `Stopped following; build ${build.id} goes on. Follow it: sluice logs -f ${build.id}`,
      );
      return STOPPED[stoppedBy ?? 'SIGINT'];
    }
  } finally {
    pendingNotice.abort();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  const finished = await client.call('getBuild', { params: { buildId: build.id } });
  if (options.summary !== false) printRemoteBuild(term, finished);
  return BUILD_EXIT_CODES[buildOutcome(finished)];
}
