/**
 * Live build output: a header per step (with its attempt when `retry` runs it again), its log
 * lines as they arrive, a result line, then a summary table. While more than one step runs at
 * once (parallel blocks, DAG pipelines) every log line carries its step's name, so the lanes
 * can be told apart. Lines arrive already masked by the engine.
 * @module
 */
import type { BuildEvent, BuildSummary, StepResult } from '@sluice/engine';
import type { Step } from '@sluice/pipeline';
import { annotationLines } from './annotation-lines.js';
import { formatDuration, formatTable } from './terminal.js';
import type { Style, Terminal } from './terminal.js';

const RESULT_STYLE: Record<StepResult | 'error', Style> = {
  success: 'green',
  failure: 'red',
  skipped: 'dim',
  terminated: 'yellow',
  timeout: 'red',
  denied: 'red',
  error: 'red',
};

const RESULT_MARK: Record<StepResult, string> = {
  success: '✔',
  failure: '✖',
  skipped: '↷',
  terminated: '■',
  timeout: '⏱',
  denied: '⊘',
};

const RESULT_WORD: Record<StepResult, string> = {
  success: 'success',
  failure: 'failure',
  skipped: 'skipped',
  terminated: 'terminated',
  timeout: 'timed out',
  denied: 'denied',
};

interface StepInfo {
  /** Parallel blocks and step groups only hold other steps: they print no lines of their own. */
  container: boolean;
  maxAttempts: number;
}

/** Every step of the tree by name. */
function stepInfo(steps: readonly Step[], into = new Map<string, StepInfo>()) {
  for (const step of steps) {
    const container = step.type === 'parallel' || step.type === 'group';
    into.set(step.name, { container, maxAttempts: step.retry?.maxAttempts ?? 1 });
    if (step.type === 'parallel' || step.type === 'group') stepInfo(step.steps, into);
  }
  return into;
}

export interface BuildReporterOptions {
  /** The pipeline's steps, for the step count, lanes and retry limits. */
  steps: readonly Step[];
}

export function createBuildReporter(
  term: Terminal,
  options: BuildReporterOptions,
): (event: BuildEvent) => void {
  const info = stepInfo(options.steps);
  const total = info.size;
  const numbered = new Map<string, number>();
  const running = new Set<string>();
  /** `[n/total] ` in the order steps first start; steps the engine adds (hooks) get none. */
  const counter = (step: string) => {
    if (!info.has(step)) return '';
    let n = numbered.get(step);
    if (n === undefined) numbered.set(step, (n = numbered.size + 1));
    return `[${n}/${total}] `;
  };
  return (event) => {
    switch (event.type) {
      case 'build-started':
        term.out(
          term.paint('bold', `▶ ${event.pipelineName}`) +
            term.paint('dim', ` · build ${event.buildId} · volume ${event.volumeName}`),
        );
        return;
      case 'step-started': {
        if (!info.get(event.step)?.container) running.add(event.step);
        const attempt =
          (event.attempt ?? 1) > 1
            ? ` · attempt ${event.attempt}/${info.get(event.step)?.maxAttempts ?? event.attempt}`
            : '';
        const lane = event.parent ? ` · in ${event.parent}` : '';
        term.out('');
        term.out(
          term.paint('cyan', `━━ ${counter(event.step)}${event.step}`) +
            term.paint('dim', `${event.title ? ` · ${event.title}` : ''}${lane}${attempt}`),
        );
        return;
      }
      case 'approval-requested':
        // The engine says so in the step's own output, with its timeout.
        return;
      case 'annotations':
        // Printed once, as they end up, in the summary.
        return;
      case 'step-log':
        term.out(
          formatLogLine(term, event.stream, event.line, running.size > 1 ? event.step : undefined),
        );
        return;
      case 'step-finished': {
        running.delete(event.step);
        // A skipped step never started: it still takes its place in the count.
        const skipped = event.result === 'skipped';
        term.out(stepResultLine(term, event, skipped ? counter(event.step) : ''));
        return;
      }
      // The volume is named at the start already; whether it was warm is in `-o json`.
      case 'volume-ready':
      case 'build-finished':
        return;
    }
  };
}

function formatLogLine(
  term: Terminal,
  stream: 'stdout' | 'stderr' | 'system',
  line: string,
  lane: string | undefined,
): string {
  const prefix = lane === undefined ? '  ' : `  ${term.paint('cyan', `[${lane}]`)} `;
  if (stream === 'system') return `${prefix}${term.paint('magenta', `» ${line}`)}`;
  return stream === 'stderr' && term.color
    ? `${prefix}${term.paint('yellow', line)}`
    : `${prefix}${line}`;
}

function stepResultLine(
  term: Terminal,
  event: Extract<BuildEvent, { type: 'step-finished' }>,
  counter: string,
): string {
  const mark = term.paint(
    RESULT_STYLE[event.result],
    `${RESULT_MARK[event.result]} ${counter}${event.step} ${RESULT_WORD[event.result]}`,
  );
  const reason = event.reason ? term.paint('dim', `: ${event.reason}`) : '';
  if (event.result === 'skipped') return `${mark}${reason}`;
  const exit =
    event.exitCode !== undefined && event.exitCode !== 0 ? ` (exit code ${event.exitCode})` : '';
  const why = event.result === 'denied' || event.result === 'timeout' ? reason : '';
  return `${mark} in ${formatDuration(event.durationMs)}${exit}${why}`;
}

export function printSummary(term: Terminal, summary: BuildSummary): void {
  term.out('');
  const rows = [
    ['STEP', 'RESULT', 'DURATION', 'NOTE'],
    ...summary.steps.map((s) => [
      s.name,
      s.result,
      s.result === 'skipped' ? '-' : formatDuration(s.durationMs),
      s.reason ?? '',
    ]),
  ];
  const [header, ...body] = formatTable(rows);
  term.out(term.paint('bold', header ?? ''));
  body.forEach((line, i) => {
    const step = summary.steps[i];
    term.out(step ? term.paint(RESULT_STYLE[step.result], line) : line);
  });
  term.out('');
  const annotations = annotationLines(summary.annotations);
  for (const line of annotations) term.out(line);
  if (annotations.length > 0) term.out('');
  const verdict =
    summary.result === 'success'
      ? 'succeeded'
      : summary.result === 'failure'
        ? 'failed'
        : summary.result === 'terminated'
          ? 'was terminated'
          : 'failed with an error';
  const style =
    summary.result === 'success' ? 'green' : summary.result === 'terminated' ? 'yellow' : 'red';
  term.out(
    term.paint(
      style,
      term.paint(
        'bold',
        `Build ${summary.buildId} ${verdict} in ${formatDuration(summary.durationMs)}`,
      ),
    ),
  );
  if (summary.reason && summary.result === 'error') term.out(term.paint('red', summary.reason));
}
